/**
 * Reads on the streaming replica (issue 44 item 2; docs/scaling.md "Reads on the replica"): lists
 * and reports read the replica once it has caught up, and a write followed by its read never sees
 * the old value, also when the replica is behind (it then reads the primary). Runs in the cluster
 * phase of `npm test`, where the stack has a replica (DATABASE_REPLICA_URL).
 */
import pg from 'pg';
import { call, createOrg, ensureCustomer, stack, uniq, type OrgFixture } from '../support/helpers';

jest.setTimeout(120_000);

const replicaUrl = stack.env.production.DATABASE_REPLICA_URL;
/** Every production API process's ops address (the cluster names two, space-separated). */
const opsUrls: string[] = stack.urls.apiOps.split(' ');

/** The sum over the API processes of db_read_target_total for a target and reason. */
async function reads(target: string, reason: string): Promise<number> {
  let sum = 0;
  for (const base of opsUrls) {
    const text = await (await fetch(`${base}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('db_read_target_total{') && l.includes(`target="${target}"`) && l.includes(`reason="${reason}"`));
    if (line) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

async function onReplica<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: replicaUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const productFilter = (sku: string) => encodeURIComponent(JSON.stringify([{ field: 'sku', operator: 'equals', value: sku }]));

describe('reads on the replica', () => {
  let org: OrgFixture;
  const A = () => ({ base: org.base, token: org.adminToken });
  beforeAll(async () => {
    expect(replicaUrl).toBeTruthy();
    org = await createOrg();
    await ensureCustomer(org, uniq('RC'), 'Retail');
  });

  it('is a streaming replica of the database the API writes', async () => {
    const [row] = await onReplica(async (c) => (await c.query<{ standby: boolean }>('select pg_is_in_recovery() as standby')).rows);
    expect(row.standby).toBe(true);
  });

  it('serves lists from the replica, and each write is seen by the read that follows it', async () => {
    const sku = uniq('RR');
    const before = await reads('replica', 'fresh');
    for (let i = 0; i < 20; i++) {
      const name = `Name ${i}`;
      const put = await call('PUT', '/api/products', { ...A(), body: { sku, name, prices: [{ tier: 'Retail', price: 10 + i, atQuantity: 1 }] } });
      expect(put.status).toBeLessThan(300);
      const list = await call('GET', `/api/products?filters=${productFilter(sku)}`, A());
      expect(list.status).toBe(200);
      expect(list.body.data.map((p: { name: string }) => p.name)).toEqual([name]);
    }
    // The customers list reads through the ORM (its replica connection).
    for (let i = 0; i < 5; i++) {
      const customerNumber = uniq('RC');
      await ensureCustomer(org, customerNumber);
      const f = encodeURIComponent(JSON.stringify([{ field: 'customerNumber', operator: 'equals', value: customerNumber }]));
      const list = await call('GET', `/api/customers?filters=${f}`, A());
      expect(list.status).toBe(200);
      expect(list.body.data.map((c: { customerNumber: string }) => c.customerNumber)).toEqual([customerNumber]);
    }
    // Most of those reads found the replica caught up (it is on loopback); none saw an old value.
    expect((await reads('replica', 'fresh')) - before).toBeGreaterThanOrEqual(10);
  });

  it('reads the primary while the replica is behind, so a write is never read back old', async () => {
    const sku = uniq('RL');
    expect((await call('PUT', '/api/products', { ...A(), body: { sku, name: 'Before', prices: [{ tier: 'Retail', price: 10, atQuantity: 1 }] } })).status).toBeLessThan(300);
    await onReplica((c) => c.query('select pg_wal_replay_pause()'));
    try {
      const lagging = await reads('primary', 'lagging');
      expect((await call('PUT', '/api/products', { ...A(), body: { sku, name: 'After', prices: [{ tier: 'Retail', price: 11, atQuantity: 1 }] } })).status).toBeLessThan(300);
      // The replica still shows the old name: a read there would be stale.
      const [stale] = await onReplica(async (c) => (await c.query<{ name: string }>('select name from product where sku = $1', [sku])).rows);
      expect(stale?.name).toBe('Before');
      const list = await call('GET', `/api/products?filters=${productFilter(sku)}`, A());
      expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['After']);
      expect((await reads('primary', 'lagging')) - lagging).toBeGreaterThanOrEqual(1);
    } finally {
      await onReplica((c) => c.query('select pg_wal_replay_resume()'));
    }
  });
});
