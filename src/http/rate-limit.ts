/**
 * Fixed-window rate limiter whose counters live in PostgreSQL (table rate_limit_bucket),
 * so every API instance shares them. One upsert per request.
 *
 * Every limited answer (the 429 included) says where the caller stands through the IETF
 * RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` names each
 * policy with its quota `q` and window `w` (seconds), `RateLimit` the remaining quota `r` and the
 * seconds `t` until the window resets. `rateLimitHeaders` is the one place those headers are built.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { tenantLimitCounts } from '../metrics.js';
import { rowsOf } from '../db/sql.js';
import { classBudget, type CallerClass, type TenantShares } from '../domain/organizations/rate-classes.js';

const WINDOW_SECONDS = 60;

/** Where one caller stands against one policy after a request was counted. */
export interface RateLimitState {
  /** Policy name, a token such as `login` or `login-ip` (shown in the headers). */
  policy: string;
  /** Requests allowed per window. */
  limit: number;
  /** Window length in seconds. */
  windowSeconds: number;
  /** Requests left in the current window (0 when exceeded). */
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** `RateLimit-Policy` and `RateLimit` for the policies a request was counted against (structured-field lists). */
export function rateLimitHeaders(states: readonly RateLimitState[]): Record<string, string> {
  if (!states.length) return {};
  const name = (s: RateLimitState) => `"${s.policy.replace(/[^A-Za-z0-9_.:-]/g, '-')}"`;
  return {
    'RateLimit-Policy': states.map((s) => `${name(s)};q=${s.limit};w=${s.windowSeconds}`).join(', '),
    RateLimit: states.map((s) => `${name(s)};r=${Math.max(0, s.remaining)};t=${Math.max(0, s.resetSeconds)}`).join(', '),
  };
}

/** The 429 of an exceeded policy, carrying Retry-After and the RateLimit headers of every policy counted. */
export function rateLimitExceeded(exceeded: RateLimitState, all: readonly RateLimitState[]): AppError {
  const retryAfter = Math.max(1, exceeded.resetSeconds);
  return new AppError(
    'rate_limited',
    `Rate limit of ${exceeded.limit} requests per ${exceeded.windowSeconds === 60 ? 'minute' : `${exceeded.windowSeconds} seconds`} exceeded; retry after ${retryAfter} seconds.`,
    undefined,
    {
      'Retry-After': String(retryAfter),
      ...rateLimitHeaders(all),
    },
  );
}

/**
 * The fixed-window upsert's conflict clause (bucket alias `b`): the inserted count is added to the
 * bucket's, or starts it afresh at now() when its window of `windowParam` seconds has ended.
 */
const countInWindow = (windowParam: string) => `on conflict (key) do update set
       count = case when b.window_start <= now() - make_interval(secs => ${windowParam}) then excluded.count else b.count + excluded.count end,
       window_start = case when b.window_start <= now() - make_interval(secs => ${windowParam}) then now() else b.window_start end`;

/** Counts one request against `key` and reports the caller's standing; never throws for an exceeded limit. */
export async function countRequest(em: EntityManager, key: string, limit: number, policy: string): Promise<RateLimitState> {
  const rows = await rowsOf<{ count: number; retry_after: number }>(
    em,
    `insert into rate_limit_bucket as b (key, window_start, count) values ($1, now(), 1)
     ${countInWindow('$2')}
     returning count, ceil(extract(epoch from (window_start + make_interval(secs => $2) - now())))::int as retry_after`,
    [key, WINDOW_SECONDS],
  );
  const { count, retry_after } = rows[0];
  return { policy, limit, windowSeconds: WINDOW_SECONDS, remaining: limit - count, resetSeconds: Math.max(0, retry_after) };
}

/** Counts one request and throws the 429 when it is over the limit. */
export async function enforceRateLimit(em: EntityManager, key: string, limit: number, policy = 'default'): Promise<RateLimitState> {
  const state = await countRequest(em, key, limit, policy);
  if (state.remaining < 0) throw rateLimitExceeded(state, [state]);
  return state;
}

/** The rate_limit_bucket key of an organization's class (shared by every API instance). */
export const classKey = (organizationId: string, cls: CallerClass) => `org:${organizationId}:${cls}`;

/**
 * Per-tenant fairness (issue 21): authenticated requests per minute per organization (its own
 * `rate_limit_per_minute`, else `orgDefault`) and per credential (`credentialLimit`), counted in
 * the shared rate_limit_bucket table, so they hold across API instances. One statement counts both
 * buckets and reads the organization's limit with them. Answers the standing against both policies
 * (`organization`, `credential`) for the RateLimit headers; past either, throws the 429 carrying
 * Retry-After and those headers.
 *
 * Counted in leases (issue 18): a process that sees a bucket busy counts a block of requests at
 * once and serves the block's slots from memory, so a busy tenant's reads cost one statement each,
 * not two. The block is sized to about LEASE_SECONDS of the bucket's traffic in this process, at
 * most LEASE_MAX and at most 1/32 of what is left in the window; a bucket seeing fewer than
 * 1/LEASE_SECONDS requests a second counts every request on its own, as before. Leases never let
 * more than the limit through across instances (a block is granted only up to the limit, in the
 * same upsert), end with their window, and each slot says exactly where the caller stood when it
 * was counted. What they cost: a changed limit, and the other instances' requests, show from the
 * next lease (about LEASE_SECONDS), and slots another instance leased but has not used yet are
 * counted already (never more than 1/32 of what was left, and 1 slot near the limit).
 */
export async function enforceTenantLimits(
  em: EntityManager,
  p: { organizationId: string; callerClass: CallerClass; credential: string; orgDefault: number } & TenantShares,
): Promise<RateLimitState[]> {
  const refused = refusedFromMemory(p);
  if (refused) throw refused;
  const now = Date.now();
  const keys = [classKey(p.organizationId, p.callerClass), `cred:${p.credential}`] as const;
  const policies = [`organization-${p.callerClass}`, 'credential'] as const;
  for (const key of keys) notice(key, now);
  // A slot leased here is taken at once (concurrent requests could otherwise take it meanwhile).
  const taken = keys.map((key, i) => {
    const l = leaseWithSlot(key, now);
    return l ? take(l, policies[i], now) : null;
  });
  if (taken[0] && taken[1]) {
    tenantLimitCounts.inc({ how: 'lease' });
    return [taken[0], taken[1]];
  }
  tenantLimitCounts.inc({ how: 'statement' });
  // Count a block for each bucket without a slot here (0 for one whose slot was just taken).
  const want = keys.map((key, i) => (taken[i] ? 0 : leaseSize(key, now)));
  const rows = await rowsOf<{ key: string; count: number; window_ms: number; reset_ms: number; org_limit: number }>(
    em,
    `with lim as (select coalesce((select rate_limit_per_minute from organization where id = $1), $2)::int as org_limit)
     insert into rate_limit_bucket as b (key, window_start, count) values ($3, now(), $6), ($4, now(), $7)
     ${countInWindow('$5')}
     returning b.key, b.count, extract(epoch from b.window_start)::float8 * 1000 as window_ms,
               greatest(0, ceil(extract(epoch from (b.window_start + make_interval(secs => $5) - now())) * 1000))::int as reset_ms,
               (select org_limit from lim) as org_limit`,
    [p.organizationId, p.orgDefault, keys[0], keys[1], WINDOW_SECONDS, want[0], want[1]],
  );
  orgLimits.set(p.organizationId, rows[0].org_limit);
  const after = Date.now();
  const states = keys.map((key, i): RateLimitState => {
    const r = rows.find((x) => x.key === key)!;
    const budget = classBudget(r.org_limit, p.callerClass, p);
    const limit = i === 0 ? budget.classLimit : budget.credentialLimit;
    const mine = taken[i];
    if (mine) return mine;
    // Slots count - want + 1 .. count were counted for this process; those within the limit are its lease.
    const first = r.count - want[i] + 1;
    rememberCount(key, r.count, limit);
    if (first > limit) {
      // Over the limit, unless a lease taken meanwhile (by a concurrent request) still has a slot.
      const other = leaseWithSlot(key, after);
      return other
        ? take(other, policies[i], after)
        : { policy: policies[i], limit, windowSeconds: WINDOW_SECONDS, remaining: limit - first, resetSeconds: Math.ceil(r.reset_ms / 1000) };
    }
    return take(addLease(key, { windowMs: r.window_ms, untilMs: after + r.reset_ms, limit }, first, Math.min(r.count, limit)), policies[i], after);
  });
  const over = states.filter((s) => s.remaining < 0).sort((a, b) => b.resetSeconds - a.resetSeconds)[0];
  if (over) {
    rememberExhausted(over.policy === policies[0] ? keys[0] : keys[1], over);
    throw rateLimitExceeded(over, states);
  }
  return states;
}

/**
 * The blocks of counted requests this process may serve for one bucket in one window (valid until
 * `untilMs`): slot ranges, used lowest first. Concurrent leases of one bucket add ranges.
 */
interface Lease {
  windowMs: number;
  untilMs: number;
  limit: number;
  ranges: { next: number; last: number }[];
}

/** A lease covers about this much of a bucket's traffic in this process. */
const LEASE_SECONDS = 0.1;
/** The most requests one lease counts. */
const LEASE_MAX = 50;

const leases = new Map<string, Lease>();

/** The bucket's lease when it has a slot left in a window not yet over, else undefined. */
function leaseWithSlot(key: string, now: number): Lease | undefined {
  const l = leases.get(key);
  if (!l) return undefined;
  while (l.ranges.length && l.ranges[0].next > l.ranges[0].last) l.ranges.shift();
  if (l.ranges.length && now < l.untilMs) return l;
  leases.delete(key);
  return undefined;
}

/** Adds slots first..last of a window to the bucket's lease (a new window replaces the old lease). */
function addLease(key: string, w: { windowMs: number; untilMs: number; limit: number }, first: number, last: number): Lease {
  let l = leases.get(key);
  if (!l || l.windowMs !== w.windowMs) leases.set(key, (l = { ...w, ranges: [] }));
  l.limit = w.limit;
  l.ranges.push({ next: first, last });
  l.ranges.sort((a, b) => a.next - b.next);
  return l;
}

/** Serves the lease's lowest free slot: where the caller stands after this request. */
function take(l: Lease, policy: string, now: number): RateLimitState {
  const r = l.ranges.find((x) => x.next <= x.last)!;
  const slot = r.next++;
  return { policy, limit: l.limit, windowSeconds: WINDOW_SECONDS, remaining: l.limit - slot, resetSeconds: Math.max(0, Math.ceil((l.untilMs - now) / 1000)) };
}

/** Requests of each bucket this process saw in the current and the previous second, and the bucket's count and limit as last counted. */
const traffic = new Map<string, { second: number; current: number; previous: number; count: number; limit: number }>();

function notice(key: string, now: number): void {
  const second = Math.floor(now / 1000);
  let t = traffic.get(key);
  if (!t) {
    if (traffic.size >= 10_000) {
      for (const [k, v] of traffic) if (v.second < second - 1) traffic.delete(k);
      for (const [k, l] of leases) if (l.untilMs <= now) leases.delete(k);
    }
    traffic.set(key, (t = { second, current: 0, previous: 0, count: 0, limit: 0 }));
  }
  if (t.second !== second) {
    t.previous = t.second === second - 1 ? t.current : 0;
    t.current = 0;
    t.second = second;
  }
  t.current++;
}

function rememberCount(key: string, count: number, limit: number): void {
  const t = traffic.get(key);
  if (t) {
    t.count = count;
    t.limit = limit;
  }
}

/** How many requests to count at once for `key`: about LEASE_SECONDS of its recent traffic here, at most LEASE_MAX and 1/32 of what its window has left. */
function leaseSize(key: string, now: number): number {
  const t = traffic.get(key);
  if (!t || t.second < Math.floor(now / 1000) - 1) return 1;
  const rate = Math.max(t.previous, t.current);
  const left = t.limit - t.count;
  return Math.max(1, Math.min(LEASE_MAX, Math.floor(rate * LEASE_SECONDS), Math.floor(left / 32)));
}

/** Where an organization or credential this process saw over its limit in this window stands (no statement needed), else undefined. */
const knownExhausted = (p: TenantCaller) => exhaustedUntilReset(classKey(p.organizationId, p.callerClass)) ?? exhaustedUntilReset(`cred:${p.credential}`);

/** An authenticated caller as the tenant limits see it: its organization, class and credential (hashed). */
export interface TenantCaller {
  organizationId: string;
  callerClass: CallerClass;
  credential: string;
}

/** The 429 for an organization's class or a credential this process saw over its limit in this window (no statement needed), else null. */
export function refusedFromMemory(p: TenantCaller): AppError | null {
  const known = knownExhausted(p);
  return known ? rateLimitExceeded(known, [known]) : null;
}

/** The organization's per-minute limit as this process last counted it (its own or the default). */
const orgLimits = new Map<string, number>();

/**
 * Each organization's pacing bucket in this process: tokens left (negative = turns already promised)
 * at `atMs`. A bucket idle for a minute is full again (a minute refills the whole per-minute limit;
 * the 10-request floor only matters below 10 per minute, where the per-minute count decides), so
 * such buckets are the ones dropped when the map is large.
 */
const paceBuckets = new Map<string, { tokens: number; atMs: number }>();

/** Requests of each organization this process holds right now (paced or held before a refusal). */
const holding = new Map<string, number>();

/** More held requests of one organization than this are refused at once (memory stays bounded). */
const MAX_HELD_PER_ORGANIZATION = 256;

/** Holds one request of `orgId` for `ms`, counted in `holding` meanwhile. */
async function holdFor(orgId: string, ms: number): Promise<void> {
  holding.set(orgId, (holding.get(orgId) ?? 0) + 1);
  try {
    await new Promise((resolve) => setTimeout(resolve, ms));
  } finally {
    const n = (holding.get(orgId) ?? 1) - 1;
    if (n <= 0) holding.delete(orgId);
    else holding.set(orgId, n);
  }
}

/**
 * Admits an authenticated request before it is counted (issue 21, tenant fairness), in memory, no
 * statement:
 * - a caller this process already saw over its per-minute limit is held `maxWaitMs` (never past its
 *   window's reset) and then refused: a client that ignores Retry-After and retries at once cannot
 *   make the API spend its CPU on thousands of refusals a second while other tenants wait;
 * - an organization is paced at its average rate (per-minute limit / 60 per second), after a burst
 *   of `burstSeconds` of that rate (at least 10 requests): a request beyond the burst waits for its
 *   turn, and when its turn is more than `maxWaitMs` away it is held that long and refused with
 *   Retry-After. The per-minute budget alone let a tenant spend it in the first second at full
 *   speed, beside everybody else's requests.
 * Pacing is per process: with N API instances a tenant's burst is N times larger; the per-minute
 * count in PostgreSQL stays the budget across instances.
 */
export async function admitTenantRequest(p: TenantCaller, cfg: { perOrganizationPerMinute: number; burstSeconds: number; maxWaitMs: number } & TenantShares): Promise<void> {
  // Paced per class of the organization, at the class's share of the organization's rate.
  const key = `${p.organizationId}:${p.callerClass}`;
  const mayHold = (holding.get(key) ?? 0) < MAX_HELD_PER_ORGANIZATION;
  const known = knownExhausted(p);
  if (known) {
    if (mayHold) await holdFor(key, Math.min(cfg.maxWaitMs, known.resetSeconds * 1000));
    const still = refusedFromMemory(p);
    if (still) throw still;
    return; // its window reset while it was held: counted as a new request
  }
  const limit = classBudget(orgLimits.get(p.organizationId) ?? cfg.perOrganizationPerMinute, p.callerClass, cfg).classLimit;
  const ratePerMs = limit / 60_000;
  const capacity = Math.max(10, (limit * cfg.burstSeconds) / 60);
  const now = Date.now();
  const b = paceBuckets.get(key) ?? { tokens: capacity, atMs: now };
  b.tokens = Math.min(capacity, b.tokens + (now - b.atMs) * ratePerMs);
  b.atMs = now;
  if (paceBuckets.size >= 10_000 && !paceBuckets.has(key)) for (const [k, v] of paceBuckets) if (now - v.atMs >= 60_000) paceBuckets.delete(k);
  paceBuckets.set(key, b);
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return;
  }
  const waitMs = (1 - b.tokens) / ratePerMs;
  if (waitMs <= cfg.maxWaitMs && mayHold) {
    b.tokens -= 1; // this request's turn is promised
    await holdFor(key, waitMs);
    return;
  }
  if (mayHold) await holdFor(key, cfg.maxWaitMs);
  const burstWindow = Math.max(1, Math.ceil(capacity / (ratePerMs * 1000)));
  const pace: RateLimitState = {
    policy: `organization-${p.callerClass}-burst`,
    limit: Math.floor(capacity),
    windowSeconds: burstWindow,
    remaining: 0,
    resetSeconds: Math.max(1, Math.ceil((waitMs - cfg.maxWaitMs) / 1000)),
  };
  throw rateLimitExceeded(pace, [pace]);
}

/**
 * Buckets this process saw over their limit, until their window resets: a tenant past its limit is
 * refused from memory, without a contended upsert on its one bucket row
 * (bench-fairness: refusals that each cost a write slowed the other tenants as much as serving them).
 * Other instances still refuse through the shared table; a limit raised meanwhile applies from the
 * next window at the latest (at most WINDOW_SECONDS).
 */
const exhausted = new Map<string, { untilMs: number; state: RateLimitState }>();

function rememberExhausted(key: string, state: RateLimitState): void {
  if (exhausted.size >= 10_000) for (const [k, v] of exhausted) if (v.untilMs <= Date.now()) exhausted.delete(k);
  exhausted.set(key, { untilMs: Date.now() + state.resetSeconds * 1000, state });
}

function exhaustedUntilReset(key: string): RateLimitState | undefined {
  const e = exhausted.get(key);
  if (!e) return undefined;
  const left = e.untilMs - Date.now();
  if (left <= 0) {
    exhausted.delete(key);
    return undefined;
  }
  return { ...e.state, remaining: 0, resetSeconds: Math.ceil(left / 1000) };
}
