/**
 * Pacing of an organization's requests inside one API process (issue 21, tenant fairness): a burst
 * of `burstSeconds` of its average rate runs at once, the next requests wait for their turn at
 * that rate, and a request whose turn is further than `maxWaitMs` away is held that long and then
 * refused with Retry-After. Fake timers: the waits are the rule under test, not the machine's speed.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../../src/errors';
import { admitTenantRequest, type TenantCaller } from '../../src/http/rate-limit';
import type { CallerClass } from '../../src/domain/organizations/rate-classes';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** 600 per minute for the API class (here its whole organization) = 10 per second; a burst of 2 s of that rate is 20 requests. */
const cfg = { perOrganizationPerMinute: 600, burstSeconds: 2, maxWaitMs: 1000, shares: { buyers: 100, staff: 100, api: 100 }, credentialShare: 100, perCredentialPerMinute: 600 };
const caller = (callerClass: CallerClass = 'api') => ({ organizationId: randomUUID(), callerClass, credential: randomUUID() });

/** Starts `n` requests at the same moment; each settles to its outcome and the fake time it settled at. */
function startMany(who: TenantCaller, n: number, settings = cfg) {
  const t0 = Date.now();
  return Array.from({ length: n }, () =>
    admitTenantRequest(who, settings).then(
      () => ({ ok: true as const, atMs: Date.now() - t0, error: null }),
      (e: unknown) => ({ ok: false as const, atMs: Date.now() - t0, error: e as AppError }),
    ),
  );
}

test('when an organization sends its burst at once, then every request of the burst runs without waiting', async () => {
  const outcomes = startMany(caller(), 20);
  await jest.advanceTimersByTimeAsync(0);
  const done = await Promise.all(outcomes);
  expect(done.every((o) => o.ok && o.atMs === 0)).toBe(true);
});

test('when an organization goes past its burst, then each next request waits for its turn at the average rate, and one whose turn is more than the longest wait away is held that long and refused with Retry-After', async () => {
  const who = caller();
  const outcomes = startMany(who, 35);
  await jest.advanceTimersByTimeAsync(3000);
  const done = await Promise.all(outcomes);
  const admitted = done.filter((o) => o.ok);
  const refused = done.filter((o) => !o.ok);
  // 20 at once, then one every 100 ms for as long as the turn is at most 1 s away: 10 more.
  expect(admitted).toHaveLength(30);
  expect(admitted.slice(20).map((o) => o.atMs)).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
  expect(refused).toHaveLength(5);
  for (const r of refused) {
    expect(r.atMs).toBe(1000); // held, not answered at once
    expect(r.error).toBeInstanceOf(AppError);
    expect(r.error.status).toBe(429);
    expect(Number(r.error.headers!['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(r.error.headers!['RateLimit-Policy']).toBe('"organization-api-burst";q=20;w=2');
  }
  // Another organization is not paced by the first one's queue.
  const other = startMany(caller(), 5);
  await jest.advanceTimersByTimeAsync(0);
  expect((await Promise.all(other)).every((o) => o.ok && o.atMs === 0)).toBe(true);
});

test('when an organization waits as long as its rate refills its burst, then it may burst again', async () => {
  const who = caller();
  const first = startMany(who, 20);
  await jest.advanceTimersByTimeAsync(0);
  await Promise.all(first);
  await jest.advanceTimersByTimeAsync(2000);
  const again = startMany(who, 20);
  await jest.advanceTimersByTimeAsync(0);
  expect((await Promise.all(again)).every((o) => o.ok && o.atMs === 0)).toBe(true);
});

test('when an organization has a small per-minute limit, then its burst is still 10 requests, so the per-minute count decides', async () => {
  const outcomes = startMany(caller(), 10, { ...cfg, perOrganizationPerMinute: 8 });
  await jest.advanceTimersByTimeAsync(0);
  expect((await Promise.all(outcomes)).every((o) => o.ok && o.atMs === 0)).toBe(true);
});

test("when an organization's buyers go past their class's burst, then its staff are not paced behind them (issue 38)", async () => {
  const split = { ...cfg, shares: { buyers: 30, staff: 20, api: 50 } };
  const buyer = caller('buyers');
  const buyers = startMany(buyer, 40, split);
  const staff = startMany({ ...buyer, callerClass: 'staff', credential: randomUUID() }, 10, split);
  await jest.advanceTimersByTimeAsync(0);
  const firstStaff = await Promise.all(staff);
  expect(firstStaff.every((o) => o.ok && o.atMs === 0)).toBe(true);
  await jest.advanceTimersByTimeAsync(5000);
  expect((await Promise.all(buyers)).some((o) => !o.ok)).toBe(true);
});
