import { call, createOrg, dbQuery, uniq, type OrgFixture } from './support/helpers';
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
