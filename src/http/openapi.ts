/** OpenAPI 3.1 document generated from the RouteDefs and their yup schemas. */
import type { AnySchema, SchemaDescription } from 'yup';
import type { RouteDef } from './route.js';

type Json = Record<string, unknown>;

function describeToJson(d: SchemaDescription | Json): Json {
  const desc = d as SchemaDescription & { fields?: Record<string, SchemaDescription>; innerType?: SchemaDescription; oneOf?: unknown[]; tests?: { name?: string; params?: Json }[] };
  const tests = desc.tests ?? [];
  const out: Json = {};
  switch (desc.type) {
    case 'object': {
      out.type = 'object';
      const props: Json = {};
      const required: string[] = [];
      for (const [k, f] of Object.entries(desc.fields ?? {})) {
        props[k] = describeToJson(f);
        if (!(f as SchemaDescription & { optional?: boolean }).optional) required.push(k);
      }
      out.properties = props;
      if (required.length) out.required = required;
      break;
    }
    case 'array':
      out.type = 'array';
      if (desc.innerType) out.items = describeToJson(desc.innerType);
      break;
    case 'string':
      out.type = 'string';
      if (tests.some((t) => t.name === 'email')) out.format = 'email';
      if (tests.some((t) => t.name === 'url')) out.format = 'uri';
      break;
    case 'number':
      out.type = tests.some((t) => t.name === 'integer') ? 'integer' : 'number';
      break;
    case 'boolean':
      out.type = 'boolean';
      break;
    case 'date':
      out.type = 'string';
      out.format = 'date-time';
      break;
    default:
      break;
  }
  for (const t of tests) {
    if (t.name === 'max' && t.params) out[out.type === 'string' ? 'maxLength' : out.type === 'array' ? 'maxItems' : 'maximum'] = t.params.max;
    if (t.name === 'min' && t.params) out[out.type === 'string' ? 'minLength' : out.type === 'array' ? 'minItems' : 'minimum'] = t.params.min;
  }
  const list = (desc.oneOf ?? []).filter((v) => v !== undefined && v !== null);
  if (list.length) out.enum = list;
  // A schema may state its OpenAPI form itself, e.g. a multipart file: .meta({ openapi: { type: 'string', format: 'binary' } }).
  Object.assign(out, (desc as { meta?: { openapi?: Json } }).meta?.openapi ?? {});
  if ((desc as { nullable?: boolean }).nullable && out.type) out.type = [out.type, 'null'];
  return out;
}

const toOpenApiPath = (p: string) => p.replace(/:(\w+)/g, '{$1}');

export function buildOpenApi(routes: RouteDef[], info: { title: string; version: string; servers: string[] }): Json {
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    const path = toOpenApiPath(r.path);
    const params: { name: string; in: string; required: boolean; schema: Json; description?: string }[] = [...r.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (r.query) {
      const q = describeToJson(r.query.describe()) as { properties?: Record<string, Json>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) params.push({ name, in: 'query', required: (q.required ?? []).includes(name), schema });
    }
    if (r.idempotent)
      params.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', maxLength: 200 },
        description: 'Replays the first response for the same key and body; another body with the same key is a 409.',
      });
    const responses: Record<string, Json> = {};
    for (const [status, description] of Object.entries(r.responses)) responses[status] = { description };
    const op: Json = {
      operationId: `${r.method}${path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string) => (c ? c.toUpperCase() : ''))}`,
      summary: r.summary,
      tags: [r.tag],
      parameters: params,
      responses,
      security: r.auth === 'public' ? [] : [{ bearer: [] }, { apiKey: [] }],
      'x-roles': r.auth === 'public' ? [] : [...r.auth],
      ...(r.rateLimit ? { 'x-rate-limit': r.rateLimit.scope } : {}),
    };
    if (r.body) {
      const kind = r.bodyKind ?? 'json';
      const mimes = kind === 'json' ? ['application/json'] : kind === 'form' ? ['application/x-www-form-urlencoded'] : kind === 'json-or-multipart' ? ['application/json', 'multipart/form-data'] : ['multipart/form-data'];
      const schema = describeToJson((r.body as AnySchema).describe());
      op.requestBody = { required: true, content: Object.fromEntries(mimes.map((m) => [m, { schema }])) };
    }
    (paths[path] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: 'Multi-tenant B2B commerce API. Errors are application/problem+json.' },
    servers: info.servers.map((url) => ({ url })),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Access token from /api/auth/login or /api/auth/token' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Access token or static API key' },
      },
    },
    paths,
  };
}
