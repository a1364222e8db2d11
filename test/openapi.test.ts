import { randomUUID } from 'node:crypto';
import { API, call, expectProblem } from './helpers';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Routes of the platform issue: each must be served and documented. */
const PLATFORM_ROUTES = [
  'GET /health',
  'GET /openapi.json',
  'GET /docs',
  'POST /api/auth/login',
  'POST /api/auth/token',
  'POST /api/auth/access',
  'POST /api/auth/set-password',
  'POST /api/organizations',
  'GET /api/organization',
  'GET /api/organizations/users/admins',
  'POST /api/organizations/users/admins',
  'DELETE /api/organizations/users/admins',
  'GET /api/organizations/price-tiers',
  'POST /api/organizations/price-tiers',
  'PUT /api/organizations/price-tiers',
  'DELETE /api/organizations/price-tiers',
  'POST /api/organizations/api-access',
  'POST /api/users',
  'GET /api/users/profile',
  'GET /api/users/exists',
  'GET /api/users/organizations',
];

interface Op {
  operationId: string;
  summary: string;
  tags: string[];
  parameters: { name: string; in: string; required: boolean }[];
  responses: Record<string, { description: string }>;
  'x-roles': string[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
}

let doc: { openapi: string; info: Record<string, unknown>; paths: Record<string, Record<string, Op>>; components: Record<string, any> };
const documented = () => Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
const concrete = (path: string) => path.replace(/\{\w+\}/g, () => randomUUID());

beforeAll(async () => {
  const res = await call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = res.body;
});

describe('GET /openapi.json', () => {
  test('when fetched, then it is an OpenAPI 3.1 document with bearer and x-api-key security schemes', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info).toEqual(expect.objectContaining({ title: expect.any(String), version: expect.any(String) }));
    expect(doc.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(doc.components.securitySchemes.apiKey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }));
  });

  test('when fetched, then every platform route is documented', () => {
    expect(documented()).toEqual(expect.arrayContaining(PLATFORM_ROUTES));
  });

  test('when fetched, then every operation has a unique operationId, a summary, a tag, responses and x-roles, and path parameters match the path', () => {
    const ids = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      expect(Object.keys(ops).every((m) => (METHODS as readonly string[]).includes(m))).toBe(true);
      for (const op of Object.values(ops)) {
        expect(ids.has(op.operationId)).toBe(false);
        ids.add(op.operationId);
        expect(op.summary.length).toBeGreaterThan(0);
        expect(op.tags).toHaveLength(1);
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
        expect(Array.isArray(op['x-roles'])).toBe(true);
        const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
        expect(op.parameters.filter((p) => p.in === 'path').map((p) => p.name).sort()).toEqual(inPath);
      }
    }
  });

  test('when fetched, then request bodies carry their yup schemas (required fields listed)', () => {
    const create = doc.paths['/api/organizations'].post.requestBody!.content['application/json'].schema as { required: string[]; properties: Record<string, any> };
    expect(create.required.sort()).toEqual(['Organization', 'User']);
    expect(create.properties.Organization.required).toEqual(['Name']);
    expect(create.properties.User.required.sort()).toEqual(['Email', 'FirstName', 'LastName']);
    const exists = doc.paths['/api/users/exists'].get;
    expect(exists.parameters).toContainEqual(expect.objectContaining({ name: 'Email', in: 'query', required: true }));
    expect(exists['x-roles']).toEqual([]);
    expect(doc.paths['/api/organization'].get['x-roles']).toEqual(['Admin']);
  });
});

describe('documented routes exist and served routes are documented', () => {
  test('when every documented operation is called, then none answers "No route" 404 or 405', async () => {
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const res = await call(method.toUpperCase(), concrete(path));
        if (res.status === 405 || res.status === 501 || (res.status === 404 && /No route for/.test(res.body?.detail ?? ''))) missing.push(`${method.toUpperCase()} ${path} -> ${res.status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test('when OPTIONS is sent to every documented path, then the Allow header lists exactly the documented methods', async () => {
    const mismatches: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      const res = await fetch(`${API}${concrete(path)}`, { method: 'OPTIONS' });
      const allowed = (res.headers.get('allow') ?? '')
        .split(',')
        .map((m) => m.trim().toLowerCase())
        .filter((m) => m && m !== 'head' && m !== 'options')
        .sort();
      // A concrete path can also match a parameterised sibling (GET /api/images/{id} serves
      // /api/images/from-local too): expect the union of every documented template it matches.
      const target = concrete(path);
      const expected = [
        ...new Set(
          Object.entries(doc.paths)
            .filter(([p]) => p === path || new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(target))
            .flatMap(([, o]) => Object.keys(o as object)),
        ),
      ].sort();
      void ops;
      if (res.status !== 200 || JSON.stringify(allowed) !== JSON.stringify(expected)) mismatches.push(`${path}: ${res.status} allow=[${allowed}] documented=[${expected}]`);
    }
    expect(mismatches).toEqual([]);
  });

  test('when an undocumented method is used on a documented path, then 405 problem details with Allow', async () => {
    const res = await call('PATCH', '/api/organization');
    expectProblem(res, 405);
    expect(res.headers.get('allow')).toMatch(/GET/);
  });

  test('when an unknown path is called, then 404 problem details naming the route', async () => {
    const res = await call('GET', '/api/definitely-not-a-route');
    expectProblem(res, 404);
    expect(res.body.detail).toMatch(/No route for GET \/api\/definitely-not-a-route/);
  });
});

describe('GET /docs', () => {
  test('when fetched, then an HTML page mentions every documented path', async () => {
    const res = await call('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toMatch(/^<!doctype html>/i);
    const absent = Object.keys(doc.paths).filter((p) => !res.text.includes(`<code>${p}</code>`));
    expect(absent).toEqual([]);
    expect(res.text).toContain('/openapi.json');
  });
});
