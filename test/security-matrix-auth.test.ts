/**
 * The registration-driven security matrix: every operation in /openapi.json that requires a
 * role is checked for 401 (no, malformed, expired, rotated-away token), 403 (wrong role, another
 * organization's id in the path) and 404 (another organization's resource in the path).
 * A route joins the matrix by being registered; path parameters need a fixture in
 * test/support/matrix-fixtures.ts.
 */
import { execFileSync } from 'node:child_process';
import { API, call, createMemberUser, createOrg, dbQuery, issueApiAccess, signTestToken, type OrgFixture } from './support/helpers';
import { matrixBodies, pathParamFixtures, synthesizeBody } from './support/matrix-fixtures';

interface MatrixOp {
  key: string;
  method: string;
  path: string;
  roles: string[];
  params: string[];
  schema?: Record<string, any>;
}

// test.each needs the operations when the file loads, so the document is fetched synchronously.
const doc = JSON.parse(
  execFileSync(process.execPath, ['-e', "fetch(process.argv[1] + '/openapi.json').then((r) => r.text()).then((t) => process.stdout.write(t))", API], { encoding: 'utf8' }),
) as { paths: Record<string, Record<string, any>> };

const allOps: MatrixOp[] = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({
    key: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    path,
    roles: op['x-roles'] as string[],
    params: (op.parameters as { name: string; in: string }[]).filter((p) => p.in === 'path').map((p) => p.name),
    schema: op.requestBody?.content?.['application/json']?.schema,
  })),
);
const secured = allOps.filter((o) => o.roles.length > 0);

const fill = (path: string, values: Record<string, string>) => path.replace(/\{(\w+)\}/g, (_, n: string) => values[n] ?? '00000000-0000-4000-8000-000000000000');
const bodyFor = (op: MatrixOp, org: OrgFixture) => (matrixBodies[op.key] ? matrixBodies[op.key](org) : op.schema ? synthesizeBody(op.schema) : undefined);

let orgA: OrgFixture;
let orgB: OrgFixture;
let customerA: string;
let expiredA: string;
let rotatedAway: { org: OrgFixture; token: string };

beforeAll(async () => {
  [orgA, orgB] = await Promise.all([createOrg(), createOrg()]);
  customerA = (await createMemberUser(orgA)).token;
  const [{ credential_version: cv }] = await dbQuery<{ credential_version: number }>('select credential_version from organization where id = $1', [orgA.organizationId]);
  const claims = { OrganizationId: orgA.organizationId, CustomerNumber: null, PriceTier: null, CurrencyCode: null, role: 'Admin', roles: ['Admin'], kind: 'client', cv };
  expiredA = signTestToken(claims, { expOffsetSeconds: -10 });
  // Control: the same claims unexpired are accepted, so the expired token fails for its expiry only.
  const control = await call('GET', '/api/organization', { token: signTestToken(claims) });
  expect(control.status).toBe(200);
  const orgC = await createOrg();
  rotatedAway = { org: orgC, token: orgC.adminToken };
  await issueApiAccess(orgC);
});

describe('security matrix coverage', () => {
  test('when the document is read, then it lists secured operations', () => {
    expect(secured.length).toBeGreaterThan(5);
  });

  test('when an operation has a path parameter, then a fixture is registered for it', () => {
    const missing = allOps.flatMap((o) => o.params.filter((p) => p !== 'organizationId' && !pathParamFixtures[p]).map((p) => `${o.key}: {${p}}`));
    expect(missing).toEqual([]);
  });
});

describe('security matrix', () => {
  test.each(secured.map((o) => [o.key, o] as const))('%s: when the token is missing, malformed, expired, rotated away, of the wrong role or of another organization, then 401/403/404', async (_key, op) => {
    const pathA = fill(op.path, { organizationId: orgA.organizationId });
    const body = bodyFor(op, orgA);
    const failures: string[] = [];
    const expectStatus = (what: string, status: number, res: { status: number; text: string }) => {
      if (res.status !== status) failures.push(`${what}: expected ${status}, got ${res.status} ${res.text.slice(0, 200)}`);
    };

    expectStatus('no token', 401, await call(op.method, pathA, { body }));
    expectStatus('malformed Bearer', 401, await call(op.method, pathA, { body, headers: { authorization: 'Bearer abc' } }));
    expectStatus('malformed x-api-key', 401, await call(op.method, pathA, { body, apiKey: 'abc' }));
    expectStatus('expired token', 401, await call(op.method, pathA, { body, token: expiredA }));
    const pathC = fill(op.path, { organizationId: rotatedAway.org.organizationId });
    expectStatus('rotated-away token', 401, await call(op.method, pathC, { body: bodyFor(op, rotatedAway.org), token: rotatedAway.token }));

    if (!op.roles.includes('Customer')) expectStatus('Customer role', 403, await call(op.method, pathA, { body, token: customerA }));

    if (op.params.includes('organizationId')) {
      const pathOther = fill(op.path, { organizationId: orgB.organizationId });
      expectStatus("another organization's id in the path", 403, await call(op.method, pathOther, { body, token: orgA.adminToken }));
    }

    const resourceParams = op.params.filter((p) => p !== 'organizationId');
    if (resourceParams.length) {
      const values: Record<string, string> = { organizationId: orgA.organizationId };
      for (const p of resourceParams) {
        const fixture = pathParamFixtures[p];
        if (!fixture) {
          failures.push(`no fixture registered for path parameter {${p}} in test/support/matrix-fixtures.ts`);
          continue;
        }
        values[p] = await fixture(orgB);
      }
      expectStatus("another organization's resource", 404, await call(op.method, fill(op.path, values), { body, token: orgA.adminToken }));
    }

    expect(failures).toEqual([]);
  });
});
