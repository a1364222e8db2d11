/**
 * Registration-driven fuzzing: every operation in /openapi.json receives malformed variants
 * (wrong types, NUL and control characters, huge strings and numbers, deep nesting, bad path
 * ids, broken JSON, forms and multipart bodies, junk credentials), with a valid token for the
 * operation's role. No answer may be a 5xx; every 4xx is application/problem+json with its
 * status, and no error answer is large (errors name the field and rule, never echo the value).
 * A new endpoint is covered by being registered.
 */
import { execFileSync } from 'node:child_process';
import { API, createMemberUser, createOrg, randomIp, type OrgFixture } from './support/helpers';

type Json = Record<string, any>;

interface FuzzOp {
  key: string;
  method: string;
  path: string;
  roles: string[];
  params: string[];
  query: { name: string; schema: Json }[];
  json?: Json;
  form?: Json;
  multipart?: Json;
  idempotent: boolean;
}

interface Variant {
  label: string;
  path?: string;
  query?: string;
  body?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  noAuth?: boolean;
}

const doc = JSON.parse(
  execFileSync(process.execPath, ['-e', "fetch(process.argv[1] + '/openapi.json').then((r) => r.text()).then((t) => process.stdout.write(t))", API], { encoding: 'utf8' }),
) as { paths: Record<string, Record<string, Json>> };

const ops: FuzzOp[] = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
  Object.entries(byMethod).map(([method, op]) => {
    const parameters = (op.parameters ?? []) as { name: string; in: string; schema?: Json }[];
    const content = (op.requestBody?.content ?? {}) as Record<string, { schema: Json }>;
    return {
      key: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      roles: (op['x-roles'] ?? []) as string[],
      params: parameters.filter((p) => p.in === 'path').map((p) => p.name),
      query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
      json: content['application/json']?.schema,
      form: content['application/x-www-form-urlencoded']?.schema,
      multipart: content['multipart/form-data']?.schema,
      idempotent: parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'),
    };
  }),
);

/** Operations whose handler acts without any input: only credential variants are sent (they never reach the handler). */
const NO_INPUT_SIDE_EFFECTS = new Set(['POST /api/organizations/api-access']);

const FAKE_ID = '00000000-0000-4000-8000-000000000000';
const HUGE = 'x'.repeat(120_000);
const NUL = 'a\u0000b';
const CONTROL = '\u0001\u0002\u0007\u001b[31m\u007f';

/** A plausible value for a schema, used for the fields that are not being broken. */
function plausible(schema: Json | undefined, depth = 0): unknown {
  if (!schema || depth > 6) return 'x';
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.enum?.length) return schema.enum[0];
  switch (type) {
    case 'object': {
      const out: Json = {};
      for (const [k, s] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) out[k] = plausible(s, depth + 1);
      return out;
    }
    case 'array':
      return [plausible(schema.items, depth + 1)];
    case 'integer':
      return schema.minimum ?? 1;
    case 'number':
      return schema.minimum ?? 1.5;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'email') return 'fuzz@example.com';
      if (schema.format === 'uri') return 'https://example.com/';
      if (schema.format === 'date-time') return '2026-01-01T00:00:00Z';
      if (schema.format === 'binary') return undefined;
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    default:
      return 'x';
  }
}

/** Values that break a field of the given schema type. */
function badValues(schema: Json): { label: string; value: unknown; raw?: string }[] {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const common = [
    { label: 'object', value: { nested: { deeper: [1, 'two', null] } } },
    { label: 'array', value: [1, [2, [3]]] },
    { label: 'null', value: null },
    { label: 'nul-string', value: NUL },
    { label: 'control-string', value: CONTROL },
    { label: 'huge-string', value: HUGE },
    { label: 'nul-in-object', value: { 'k\u0000ey': 'v', k: NUL } },
  ];
  if (type === 'string') return [...common, { label: 'number', value: 12345 }, { label: 'boolean', value: false }, { label: 'huge-number', value: 1e308 }];
  if (type === 'integer' || type === 'number')
    return [
      ...common,
      { label: 'string', value: 'twelve' },
      { label: 'int32+1', value: 2_147_483_648 },
      { label: 'negative-huge', value: -99_999_999_999_999 },
      { label: 'fraction', value: 1.000001 },
      { label: 'max-double', value: 1.7976931348623157e308 },
      { label: 'overflow-literal', value: 0, raw: '1e400' },
      { label: 'tiny', value: 5e-324 },
    ];
  if (type === 'boolean') return [...common, { label: 'string', value: 'yes' }, { label: 'number', value: 2 }];
  if (type === 'array') return [...common.filter((c) => c.label !== 'array'), { label: 'array-of-nul', value: [NUL, NUL] }, { label: 'array-of-objects', value: [{ a: NUL }, { b: [[[]]] }] }];
  return common;
}

/** Leaf fields of a body schema (two levels deep, first array item), as paths. */
function fieldPaths(schema: Json | undefined, prefix: (string | number)[] = [], depth = 0): { path: (string | number)[]; schema: Json }[] {
  if (!schema || depth > 2) return [];
  const out: { path: (string | number)[]; schema: Json }[] = [];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object') {
    for (const [k, s] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      out.push({ path: [...prefix, k], schema: s });
      out.push(...fieldPaths(s, [...prefix, k], depth + 1));
    }
  } else if (type === 'array' && schema.items) {
    out.push(...fieldPaths(schema.items, [...prefix, 0], depth + 1));
  }
  return out;
}

function setAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  const clone = JSON.parse(JSON.stringify(root ?? {})) as Json;
  let cur: Json = clone;
  path.forEach((p, i) => {
    if (i === path.length - 1) cur[p] = value;
    else {
      if (cur[p] === null || typeof cur[p] !== 'object') cur[p] = typeof path[i + 1] === 'number' ? [] : {};
      cur = cur[p];
    }
  });
  return clone;
}

const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

function pathWith(op: FuzzOp, override: Record<string, string> = {}): string {
  return op.path.replace(/\{(\w+)\}/g, (_, n: string) => override[n] ?? (n === 'organizationId' ? '%ORG%' : FAKE_ID));
}

function variantsFor(op: FuzzOp): Variant[] {
  const v: Variant[] = [];
  // Credentials: junk tokens never reach a handler.
  if (op.roles.length) {
    v.push({ label: 'bearer-nul', noAuth: true, headers: { authorization: 'Bearer a%00b.c.d' } });
    v.push({ label: 'bearer-huge', noAuth: true, headers: { authorization: `Bearer ${'a'.repeat(7000)}` } });
    v.push({ label: 'apikey-huge', noAuth: true, headers: { 'x-api-key': `b2bk_${'z'.repeat(7000)}` } });
    v.push({ label: 'bearer-not-jwt', noAuth: true, headers: { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJ4Ijp7fX0.' } });
  }
  if (NO_INPUT_SIDE_EFFECTS.has(op.key)) return v;
  // Path parameters.
  for (const p of op.params) {
    for (const [label, value] of [
      ['nul', '%00'],
      ['nul-inside', 'abc%00def'],
      ['long', 'y'.repeat(5000)],
      ['bad-utf8', '%ff%fe%fd'],
      ['traversal', '..%2f..%2fetc%2fpasswd'],
      ['control', '%01%02%1b'],
      ['huge-int', '99999999999999999999999'],
      ['negative', '-1'],
      ['quote', "'%22;--"],
      ['unicode', '%F0%9F%92%A9%E2%80%AE'],
    ] as const)
      v.push({ label: `path ${p}=${label}`, path: pathWith(op, { [p]: value }) });
  }
  // Query parameters (declared ones, plus paging and filters, which every list accepts).
  const qnames = [...new Set([...op.query.map((q) => q.name), ...(op.method === 'GET' ? ['filters', 'pageSize', 'pageNumber', 'sortOn'] : [])])];
  for (const q of qnames) {
    for (const [label, value] of [
      ['nul', '%00'],
      ['long', 'q'.repeat(5000)],
      ['huge-int', '99999999999999999999'],
      ['int32+1', '2147483648'],
      ['overflow', '1e400'],
      ['array', null],
      ['nested', null],
      ['control', '%01%1b'],
    ] as const) {
      let query: string;
      if (label === 'array') query = `${q}[]=1&${q}[]=2`;
      else if (label === 'nested') query = `${q}[a][b][c][d][e]=1`;
      else query = `${q}=${value}`;
      v.push({ label: `query ${q}=${label}`, query });
    }
  }
  if (op.method === 'GET') {
    const filters = (f: unknown) => `filters=${encodeURIComponent(typeof f === 'string' ? f : JSON.stringify(f))}`;
    v.push({ label: 'filters broken json', query: filters('[{"field":"x"') });
    v.push({ label: 'filters nul value', query: filters([{ field: 'name', operator: 'contains', value: NUL }]) });
    v.push({ label: 'filters nul field', query: filters([{ field: NUL, operator: 'equals', value: 'x' }]) });
    v.push({ label: 'filters huge value', query: filters([{ field: 'name', operator: 'contains', value: 'v'.repeat(3000) }]) });
    v.push({ label: 'filters deep', query: filters(JSON.parse(deepArray(200))) });
    v.push({ label: 'filters object value', query: filters([{ field: 'name', operator: 'equals', value: { $ne: 1 } }]) });
    v.push({ label: 'filters not array', query: filters({ field: 'name' }) });
    v.push({ label: 'page overflow', query: 'pageNumber=1e20&pageSize=1e309' });
  }
  // JSON bodies.
  if (op.json) {
    const base = plausible(op.json);
    const json = (body: unknown) => JSON.stringify(body);
    for (const [label, raw] of [
      ['broken', '{"a":'],
      ['truncated-string', '{"a":"abc'],
      ['array', '[]'],
      ['null', 'null'],
      ['string', '"text"'],
      ['number', '42'],
      ['empty', ''],
      ['deep-array-8000', `{"x":${deepArray(8000)}}`],
      ['deep-object-8000', deepObject(8000)],
      ['nul-key', '{"\\u0000":1}'],
      ['overflow-literal', '{"a":1e400}'],
      ['big-body-96k', json({ ...(base as Json), junk: 'j'.repeat(96_000) })],
    ] as const)
      v.push({ label: `json ${label}`, body: raw, contentType: 'application/json' });
    v.push({ label: 'json bad-utf8', body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), contentType: 'application/json' });
    v.push({ label: 'json as text/plain', body: json(base), contentType: 'text/plain' });
    v.push({ label: 'json as form', body: 'a=1&b=%00', contentType: 'application/x-www-form-urlencoded' });
    for (const f of fieldPaths(op.json)) {
      for (const bad of badValues(f.schema)) {
        const body = setAt(base, f.path, bad.raw ? '__RAW__' : bad.value);
        const text = bad.raw ? json(body).replace('"__RAW__"', bad.raw) : json(body);
        v.push({ label: `json ${f.path.join('.')}=${bad.label}`, body: text, contentType: 'application/json' });
      }
    }
    // Every string field huge at once, with a 96 KB value (the error must stay small).
    const allHuge = fieldPaths(op.json).reduce<unknown>((acc, f) => setAt(acc, f.path, 'h'.repeat(96_000 / Math.max(1, fieldPaths(op.json).length))), base);
    v.push({ label: 'json all fields huge', body: json(allHuge), contentType: 'application/json' });
  }
  if (op.form) {
    for (const [label, raw] of [
      ['nul', 'a=%00&b=1'],
      ['broken', '%%%&&=='],
      ['huge', `a=${'f'.repeat(200_000)}`],
      ['nested', 'a[b][c][d][e][f][g]=1'],
      ['json', '{"a":1}'],
    ] as const)
      v.push({ label: `form ${label}`, body: raw, contentType: 'application/x-www-form-urlencoded' });
  }
  if (op.multipart) {
    const boundary = 'fuzzBoundary7MA4YWxk';
    const part = (name: string, content: string, filename?: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n${filename ? 'Content-Type: image/png\r\n' : ''}\r\n${content}\r\n`;
    const png = '\x89PNG\r\n\x1a\n';
    v.push({ label: 'multipart missing boundary', body: part('image', png, 'a.png'), contentType: 'multipart/form-data' });
    v.push({ label: 'multipart truncated', body: part('image', png, 'a.png').slice(0, 60), contentType: `multipart/form-data; boundary=${boundary}` });
    v.push({ label: 'multipart empty file', body: `${part('image', '', 'a.png')}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` });
    v.push({ label: 'multipart two files', body: `${part('image', png, 'a.png')}${part('image2', png, 'b.png')}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` });
    v.push({ label: 'multipart no file', body: `${part('categoryName', 'x')}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` });
    v.push({ label: 'multipart nul field', body: `${part('categoryName', NUL)}${part('sku', NUL)}${part('image', 'not an image', 'a.png')}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` });
    v.push({ label: 'multipart file as text', body: `${part('image', 'just text')}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` });
    v.push({ label: 'multipart garbage', body: 'garbage', contentType: `multipart/form-data; boundary=${boundary}` });
    v.push({ label: 'multipart as json', body: '{"image":"x"}', contentType: 'application/json' });
  }
  if (op.idempotent) {
    v.push({ label: 'idempotency-key huge', headers: { 'idempotency-key': 'k'.repeat(5000) }, body: JSON.stringify(plausible(op.json)), contentType: 'application/json' });
    v.push({ label: 'idempotency-key percent-nul', headers: { 'idempotency-key': 'k%00\u00ff' }, body: '{"a":', contentType: 'application/json' });
  }
  return v;
}

interface Finding {
  op: string;
  variant: string;
  status: number;
  detail: string;
}

let admin: OrgFixture;
let customerTokenValue: string;

beforeAll(async () => {
  admin = await createOrg();
  customerTokenValue = (await createMemberUser(admin)).token;
});

async function send(op: FuzzOp, variant: Variant): Promise<Finding | null> {
  const path = (variant.path ?? pathWith(op)).replace('%ORG%', admin.organizationId);
  const url = `${API}${path}${variant.query ? `${path.includes('?') ? '&' : '?'}${variant.query}` : ''}`;
  const headers: Record<string, string> = { 'x-forwarded-for': randomIp(), ...(variant.headers ?? {}) };
  if (!variant.noAuth && op.roles.length) headers.authorization = `Bearer ${op.roles.includes('Admin') ? admin.adminToken : customerTokenValue}`;
  if (variant.contentType) headers['content-type'] = variant.contentType;
  let status = 0;
  let text = '';
  let type = '';
  try {
    const res = await fetch(url, { method: op.method, headers, body: op.method === 'GET' || op.method === 'HEAD' ? undefined : variant.body, redirect: 'manual' });
    status = res.status;
    type = res.headers.get('content-type') ?? '';
    text = await res.text();
  } catch (e) {
    return { op: op.key, variant: variant.label, status: 0, detail: `request failed: ${String(e)}` };
  }
  if (status >= 500) return { op: op.key, variant: variant.label, status, detail: text.slice(0, 200) };
  if (status >= 400) {
    if (!/^application\/problem\+json/.test(type)) return { op: op.key, variant: variant.label, status, detail: `content-type ${type}` };
    let body: Json;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      return { op: op.key, variant: variant.label, status, detail: 'problem body is not JSON' };
    }
    if (body.status !== status || typeof body.title !== 'string' || typeof body.traceId !== 'string') return { op: op.key, variant: variant.label, status, detail: `bad problem ${text.slice(0, 200)}` };
    if (text.length > 16_384) return { op: op.key, variant: variant.label, status, detail: `error response of ${text.length} characters` };
  }
  return null;
}

async function pool<T>(items: T[], size: number, worker: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await worker(items[next++]);
    }),
  );
}

test(`when every one of the ${ops.length} operations gets malformed variants, then no answer is a 5xx and every 4xx is a small problem document`, async () => {
  const jobs = ops.flatMap((op) => variantsFor(op).map((variant) => ({ op, variant })));
  const findings: Finding[] = [];
  let sent = 0;
  await pool(jobs, 6, async ({ op, variant }) => {
    const f = await send(op, variant);
    sent++;
    if (f) findings.push(f);
  });
  console.log(`fuzz: ${sent} requests over ${ops.length} operations, ${findings.length} findings`);
  expect(sent).toBeGreaterThan(2000);
  expect(findings.slice(0, 40)).toEqual([]);
  expect(findings).toHaveLength(0);
}, 300_000);
