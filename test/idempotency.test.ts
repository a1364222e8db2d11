import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { API, call, createOrg, dbQuery, uniq, type OrgFixture } from './support/helpers';
import { invoiceBody } from './support/matrix-fixtures';

describe('Idempotency-Key on routes that create', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
  });

  const newUser = () => ({ FirstName: 'Ida', LastName: 'Empotent', Email: `${uniq('idem')}@example.com`, Password: 'idempotent pass 1' });

  test('when the same key and body are sent twice, then the first response is replayed and one user exists', async () => {
    const key = uniq('key-');
    const body = newUser();
    const first = await call('POST', '/api/users', { token: org.adminToken, body, headers: { 'Idempotency-Key': key } });
    const second = await call('POST', '/api/users', { token: org.adminToken, body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    // The replay says where the created record is, as the first answer did.
    expect(first.headers.get('location')).toBeTruthy();
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    // Without the key the same e-mail is reused (200): proof the replay did not run the handler again.
    const third = await call('POST', '/api/users', { token: org.adminToken, body });
    expect(third.status).toBe(200);
    expect(third.body.UserId).toBe(first.body.UserId);
  });

  test('when the request holding a key died before answering, then the key answers 409 while the claim is fresh, and a retry with the same key runs once the claim is older than the lease', async () => {
    const key = uniq('key-');
    const body = newUser();
    const first = await call('POST', '/api/users', { token: org.adminToken, body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    // What an API process killed mid-request leaves behind: the claim, without a response.
    const orphan = (age: string) =>
      dbQuery(
        `update idempotency_record set response_status = null, response_body = null, response_headers = null, completed_at = null, created_at = now() - $3::interval
          where organization_id = $1 and key = $2`,
        [org.organizationId, key, age],
      );
    await orphan('0 seconds');
    const fresh = await call('POST', '/api/users', { token: org.adminToken, body, headers: { 'Idempotency-Key': key } });
    expect(fresh.status).toBe(409);
    await orphan('10 minutes');
    const retried = await call('POST', '/api/users', { token: org.adminToken, body, headers: { 'Idempotency-Key': key } });
    // The handler ran again and found the user it had created: the same user, no second one.
    expect(retried.status).toBe(200);
    expect(retried.body.UserId).toBe(first.body.UserId);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    const replayed = await call('POST', '/api/users', { token: org.adminToken, body, headers: { 'Idempotency-Key': key } });
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  });

  test('when the same key comes with another body, then 409 problem details', async () => {
    const key = uniq('key-');
    const first = await call('POST', '/api/users', { token: org.adminToken, body: newUser(), headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    const second = await call('POST', '/api/users', { token: org.adminToken, body: newUser(), headers: { 'Idempotency-Key': key } });
    expect(second.status).toBe(409);
    expect(second.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  test('when a keyed request fails validation, then nothing is stored and a corrected retry with the same key succeeds', async () => {
    const key = uniq('key-');
    const bad = await call('POST', '/api/users', { token: org.adminToken, body: { FirstName: 'X' }, headers: { 'Idempotency-Key': key } });
    expect(bad.status).toBe(400);
    const good = await call('POST', '/api/users', { token: org.adminToken, body: newUser(), headers: { 'Idempotency-Key': key } });
    expect(good.status).toBe(201);
  });

  test('when two organizations use the same key, then each gets its own result', async () => {
    const other = await createOrg();
    const key = uniq('shared-');
    const a = await call('POST', '/api/users', { token: org.adminToken, body: newUser(), headers: { 'Idempotency-Key': key } });
    const b = await call('POST', '/api/users', { token: other.adminToken, body: newUser(), headers: { 'Idempotency-Key': key } });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.UserId).not.toBe(a.body.UserId);
  });

  test('when an invoice is created twice with the same Idempotency-Key, then one invoice exists and the same number is answered', async () => {
    const key = uniq('inv-');
    const body = invoiceBody();
    const first = await call('POST', '/api/invoices', { token: org.adminToken, body, headers: { 'Idempotency-Key': key } });
    const second = await call('POST', '/api/invoices', { token: org.adminToken, body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
    expect(second.body.invoiceNumber).toBe(first.body.invoiceNumber);
    const list = await call('GET', `/api/invoices?customerId=${body.customer.customerNumber}`, { token: org.adminToken });
    expect(list.body.totalCount).toBe(1);
  });
});

/**
 * The matrix (issue 38, finding 6): every operation of /openapi.json that changes state (POST, PUT,
 * PATCH of an authenticated caller) declares Idempotency-Key, and honours it through the one store:
 * a stored answer under a key is replayed for the same request, another request with that key is a
 * 409, a key still in flight is a 409 with Retry-After, and an operation whose answer carries a
 * secret never replays. The store is seeded directly (as a first request would have left it), so
 * every operation is exercised without building its world; a replay never reaches the handler.
 */
describe('Idempotency-Key matrix over every state-changing operation', () => {
  type Op = { key: string; method: string; path: string; roles: string[]; params: string[]; idempotency?: string; declares: boolean; json: boolean; multipartOnly: boolean };
  const doc = JSON.parse(
    execFileSync(process.execPath, ['-e', "fetch(process.argv[1] + '/openapi.json').then((r) => r.text()).then((t) => process.stdout.write(t))", API], { encoding: 'utf8' }),
  ) as { paths: Record<string, Record<string, any>> };
  const ops: Op[] = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => {
      const content = op.requestBody?.content ?? {};
      return {
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        roles: op['x-roles'] as string[],
        params: (op.parameters as { name: string; in: string }[]).filter((p) => p.in === 'path').map((p) => p.name),
        idempotency: op['x-idempotency-key'] as string | undefined,
        declares: (op.parameters as { name: string; in: string }[]).some((p) => p.in === 'header' && p.name === 'Idempotency-Key'),
        json: 'application/json' in content,
        multipartOnly: 'multipart/form-data' in content && !('application/json' in content),
      };
    }),
  );
  const writes = ops.filter((o) => ['POST', 'PUT', 'PATCH'].includes(o.method));
  const keyed = writes.filter((o) => o.roles.length > 0);
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');

  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
  });

  test('every state-changing operation of an authenticated caller declares Idempotency-Key and how it keeps the answer; public ones (no caller to scope a key to) do not', () => {
    expect(keyed.length).toBeGreaterThan(70);
    expect(keyed.filter((o) => !o.declares || !o.idempotency).map((o) => o.key)).toEqual([]);
    expect(writes.filter((o) => o.roles.length === 0 && o.declares).map((o) => o.key)).toEqual([]);
    // The operations whose answer carries a secret or a token.
    expect(keyed.filter((o) => o.idempotency === 'not-stored').map((o) => o.key).sort()).toEqual(
      [
        'POST /api/auth/change-password',
        'POST /api/companydocs/documents/{documentId}/refresh-url',
        'POST /api/imports/uploads',
        'POST /api/organizations/api-access',
        'POST /api/webhooks',
        'POST /api/webhooks/{webhookId}/rotate-secret',
      ].sort(),
    );
  });

  const fill = (op: Op) => op.path.replace(/\{(\w+)\}/g, (_, n: string) => (n === 'organizationId' ? org.organizationId : `idem-${n}`));
  const seed = async (op: Op, path: string, key: string, hash: string, answered: boolean) =>
    dbQuery(
      `insert into idempotency_record (id, organization_id, caller, route, key, request_hash, response_status, response_body, withheld, created_at, completed_at)
       values (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7::jsonb, $8, now(), case when $6::int is null then null else now() end)`,
      [org.organizationId, `user:${org.adminUserId}`, `${op.method} ${path}`, key, hash, answered ? 200 : null, answered ? JSON.stringify({ stored: key }) : null, answered && op.idempotency === 'not-stored'],
    );
  const send = (op: Op, path: string, key: string, body: unknown) =>
    fetch(`${API}${path}`, {
      method: op.method,
      headers: { authorization: `Bearer ${org.adminToken}`, 'idempotency-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  test.each(keyed.filter((o) => !o.multipartOnly).map((o) => [o.key, o] as const))('%s: same key and request -> the stored answer replayed (409 when it carried a secret); another body -> 409; in flight -> 409 with Retry-After', async (_, op) => {
    const path = fill(op);
    const body = op.json ? { probe: 1 } : undefined;
    const hash = sha(body === undefined ? 'null' : '{"probe":1}');

    const done = uniq('done-');
    await seed(op, path, done, hash, true);
    const again = await send(op, path, done, body);
    if (op.idempotency === 'not-stored') expect(again.status).toBe(409);
    else {
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.json()).toEqual({ stored: done });
    }
    // Another request under the same key: another body, or (an operation without a body) another query.
    const other = op.json ? await send(op, path, done, { probe: 2 }) : await send(op, `${path}?probe=2`, done, undefined);
    expect(other.status).toBe(409);
    expect(other.headers.get('content-type')).toMatch(/application\/problem\+json/);

    const busy = uniq('busy-');
    await seed(op, path, busy, hash, false);
    const running = await send(op, path, busy, body);
    expect(running.status).toBe(409);
    expect(Number(running.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
