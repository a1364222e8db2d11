/**
 * Scheduled prices' webhooks (issue 40 item 2; docs/pricing.md "Scheduled prices"): a list with a
 * future validFrom announces `price_list.activated` at that instant and `price_list.expired` at its
 * validTo, from a durable timer (workflow priceListSchedule), each exactly once; a rescheduled list
 * announces only its new instants; a change made by a request (activating, archiving, deleting a
 * list in force) announces at once. The crash test (sandbox environment, its workers killed by this
 * file) stops every worker before the boundary, restarts after it, and kills the worker again
 * inside the activity that wrote the activation: still one activation and one expiry, each with
 * the boundary's own instant.
 */
import { call, createOrg, SANDBOX_API, uniq, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';
import { SandboxWorkers } from './support/sandbox-workers';
import { startReceiver, type Received, type Receiver } from './support/webhook-receiver';

jest.setTimeout(240_000);
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => rx.close());

const EVENTS = ['price_list.activated', 'price_list.expired'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sleepUntil = (t: number) => sleep(Math.max(0, t - Date.now()));
const iso = (ms: number) => new Date(ms).toISOString();

async function subscribe(o: OrgFixture, path: string) {
  const res = await call('POST', '/api/webhooks', { base: o.base, token: o.adminToken, body: { url: rx.url(path), events: EVENTS } });
  expect(res.status).toBe(201);
}

/** A list priced for one customer's product, created with `body` (Active unless said; a function: asked once the product exists, so its instants are near). */
async function scheduledList(o: OrgFixture, body: Record<string, unknown> | (() => Record<string, unknown>)) {
  const A = { base: o.base, token: o.adminToken };
  const { customerNumber, sku } = await customerWithProduct(o, { price: 10 });
  const header = typeof body === 'function' ? body() : body;
  const r = await call('POST', '/api/price-lists', { ...A, body: { name: uniq('Sched '), currencyCode: 'USD', priority: 1, status: 'Active', ...header } });
  expect(r.status).toBe(201);
  const id = r.body.priceListId as string;
  expect((await call('PUT', `/api/price-lists/${id}/entries`, { ...A, body: { entries: [{ sku, prices: [{ price: 4, atQuantity: 1 }] }] } })).status).toBe(200);
  expect((await call('PUT', `/api/price-lists/${id}/assignments`, { ...A, body: { customerNumbers: [customerNumber] } })).status).toBe(200);
  return id;
}

const ofList = (path: string, id: string, type?: string): Received[] =>
  rx.received(path).filter((r) => r.json?.data?.priceListId === id && (!type || r.json?.type === type));
const waitFor = (path: string, id: string, type: string, timeoutMs = 60_000) => rx.waitFor(path, () => ofList(path, id, type).length > 0, timeoutMs);

describe('the schedule timer (production environment)', () => {
  let o: OrgFixture;
  beforeAll(async () => {
    o = await createOrg();
    await subscribe(o, '/pl');
  });

  test('when a list with a future validFrom is created, then price_list.activated arrives once at validFrom and price_list.expired once at validTo', async () => {
    let from = 0;
    let to = 0;
    const id = await scheduledList(o, () => {
      from = Date.now() + 6_000;
      to = from + 6_000;
      return { validFrom: iso(from), validTo: iso(to) };
    });
    await sleepUntil(from - 1_000);
    expect(ofList('/pl', id)).toEqual([]);
    await waitFor('/pl', id, 'price_list.activated');
    await waitFor('/pl', id, 'price_list.expired');
    await sleep(3_000);
    const activated = ofList('/pl', id, 'price_list.activated');
    const expired = ofList('/pl', id, 'price_list.expired');
    expect(activated).toHaveLength(1);
    expect(expired).toHaveLength(1);
    expect(activated[0].at).toBeGreaterThanOrEqual(from);
    expect(expired[0].at).toBeGreaterThanOrEqual(to);
    expect(activated[0].json).toEqual({
      type: 'price_list.activated',
      timestamp: expect.any(String),
      data: { priceListId: id, name: expect.any(String), currencyCode: 'USD', priority: 1, status: 'Active', validFrom: iso(from), validTo: iso(to), activatedAt: iso(from) },
    });
    expect(expired[0].json.data).toEqual({ ...activated[0].json.data, expiredAt: iso(to), reason: 'ValidityEnded' });
  });

  test('when a scheduled list is moved earlier before it starts, then it is activated once, at the new validFrom, and not again at the old one', async () => {
    const A = { base: o.base, token: o.adminToken };
    let first = 0;
    const id = await scheduledList(o, () => {
      first = Date.now() + 15_000;
      return { validFrom: iso(first) };
    });
    const got = (await call('GET', `/api/price-lists/${id}`, A)).body;
    const from = Date.now() + 5_000;
    const moved = await call('PUT', `/api/price-lists/${id}`, { ...A, body: { name: got.name, currencyCode: 'USD', priority: 1, status: 'Active', validFrom: iso(from) } });
    expect(moved.status).toBe(200);
    await waitFor('/pl', id, 'price_list.activated');
    await sleepUntil(first + 3_000);
    const activated = ofList('/pl', id);
    expect(activated.map((r) => [r.json.type, r.json.data.activatedAt])).toEqual([['price_list.activated', iso(from)]]);
    expect(activated[0].at).toBeGreaterThanOrEqual(from);
  });

  test('when a request activates, archives or deletes a list in force, then each announces at once, once', async () => {
    const A = { base: o.base, token: o.adminToken };
    const validFrom = iso(Date.now() - 60_000);
    const draft = await scheduledList(o, { status: 'Draft', validFrom });
    const body = (status: string) => ({ name: 'Request-driven', currencyCode: 'USD', priority: 1, status, validFrom });
    const before = Date.now();
    expect((await call('PUT', `/api/price-lists/${draft}`, { ...A, body: body('Active') })).status).toBe(200);
    const after = Date.now();
    const [act] = await waitFor('/pl', draft, 'price_list.activated', 15_000).then(() => ofList('/pl', draft, 'price_list.activated'));
    const activatedAt = Date.parse(act.json.data.activatedAt);
    expect(activatedAt).toBeGreaterThanOrEqual(before - 1);
    expect(activatedAt).toBeLessThanOrEqual(after);
    expect((await call('PUT', `/api/price-lists/${draft}`, { ...A, body: body('Archived') })).status).toBe(200);
    await waitFor('/pl', draft, 'price_list.expired', 15_000);

    const live = await scheduledList(o, {});
    await waitFor('/pl', live, 'price_list.activated', 15_000);
    expect((await call('DELETE', `/api/price-lists/${live}`, A)).status).toBe(204);
    await waitFor('/pl', live, 'price_list.expired', 15_000);
    await sleep(3_000);
    expect(ofList('/pl', draft).map((r) => [r.json.type, r.json.data.status, r.json.data.reason ?? null])).toEqual([
      ['price_list.activated', 'Active', null],
      ['price_list.expired', 'Archived', 'StatusChanged'],
    ]);
    expect(ofList('/pl', draft, 'price_list.expired')[0].json.data.activatedAt).toBe(act.json.data.activatedAt);
    expect(ofList('/pl', live).map((r) => [r.json.type, r.json.data.reason ?? null])).toEqual([
      ['price_list.activated', null],
      ['price_list.expired', 'Deleted'],
    ]);
  });
});

describe('the schedule timer across worker crashes (sandbox environment)', () => {
  const workers = new SandboxWorkers();
  let sb: OrgFixture;
  beforeAll(async () => {
    await workers.acquire();
    sb = await createOrg({ base: SANDBOX_API });
    await subscribe(sb, '/sb');
  }, 600_000);
  afterAll(async () => {
    await workers.leaveOneRunning();
  });

  test('when every worker is down at validFrom, and the late worker is killed inside the activity that wrote the activation, then one activation and one expiry arrive with the boundary instants', async () => {
    workers.killOthers();
    const first = workers.start({}, 'pl-schedule worker');
    await first.ready;
    let from = 0;
    let to = 0;
    const id = await scheduledList(sb, () => {
      from = Date.now() + 10_000;
      to = from + 50_000;
      return { validFrom: iso(from), validTo: iso(to) };
    });
    // The run has synced once and sleeps until validFrom; then no worker is left.
    await sleepUntil(from - 4_000);
    workers.killOwn();
    await sleepUntil(from + 3_000);
    expect(ofList('/sb', id)).toEqual([]);
    // The late worker writes the activation and is held inside the activity; killed there, a replacement retries it.
    const hanging = workers.start({ FAULT_INJECTION: `hang-after:syncPriceListSchedule:120000:${id}` }, 'pl-schedule hanging worker');
    await hanging.ready;
    await waitFor('/sb', id, 'price_list.activated', 30_000);
    hanging.child.kill('SIGKILL');
    const replacement = workers.start({}, 'pl-schedule replacement worker');
    await replacement.ready;
    await waitFor('/sb', id, 'price_list.expired', 120_000);
    await sleep(3_000);
    expect(ofList('/sb', id).map((r) => [r.json.type, r.json.data.activatedAt, r.json.data.expiredAt ?? null])).toEqual([
      ['price_list.activated', iso(from), null],
      ['price_list.expired', iso(from), iso(to)],
    ]);
  });
});
