/**
 * Gauges read at scrape time (src/metrics.ts onScrape): the PostgreSQL pool of this process and,
 * on the API, commission statements waiting for someone (Generating, Draft, Approved) by state
 * over every organization: one grouped count served by the index on status, so a scrape costs the
 * backlog, not every statement ever paid or rejected (docs/decisions.md).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { boundRows } from '../../db/orm-sql.js';
import { dbPool, onScrape, statementsByState } from '../../metrics.js';

const OPEN_STATES = ['Generating', 'Draft', 'Approved'];
const OPEN_COUNTS = `select status, count(*) as n from commission_statement where status in (${OPEN_STATES.map((s) => `'${s}'`).join(', ')}) group by status`;

/** Requests waiting for a connection: none while one is idle (those are handed one on the next tick). */
export function poolWaiting(idle: number, queued: number): number {
  return idle > 0 ? 0 : queued;
}

export function collectPoolMetrics(orm: MikroORM, max: number): void {
  onScrape(async () => {
    const pool = await orm.em.getConnection().getNativeClient();
    dbPool.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
    dbPool.set({ state: 'idle' }, pool.idleCount);
    // pg-pool queues a request for a tick even while a connection is idle (this scrape's own
    // statement count is one): only requests that find no idle connection are waiting.
    dbPool.set({ state: 'waiting' }, poolWaiting(pool.idleCount, pool.waitingCount));
    dbPool.set({ state: 'max' }, max);
  });
}

export function collectStatementMetrics(orm: MikroORM): void {
  onScrape(async () => {
    const rows = await boundRows<{ status: string; n: string }>(orm.em.fork(), OPEN_COUNTS);
    for (const s of OPEN_STATES) statementsByState.set({ state: s }, 0);
    for (const r of rows) statementsByState.set({ state: r.status }, Number(r.n));
  });
}
