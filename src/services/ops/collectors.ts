/**
 * Gauges read at scrape time (src/metrics.ts onScrape): the PostgreSQL pool of this process and,
 * on the API, commission statements waiting for someone (Generating, Draft, Approved) by state
 * over every organization: one grouped count served by the index on status, so a scrape costs the
 * backlog, not every statement ever paid or rejected (docs/decisions.md).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { taskQueueBacklogs, type Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { boundRows } from '../../db/orm-sql.js';
import { log } from '../../logger.js';
import { dbPool, onScrape, outboxDepth, outboxOldestAge, statementsByState, taskQueueBacklog } from '../../metrics.js';

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

/**
 * The outboxes' depth and oldest age over every organization (cross-tenant operator reads, like
 * the statements' count above): one statement, each part served by an index that is not led by
 * organization_id (the statement audit accepts it): workflow_start_outbox by next_attempt_at (every
 * row has one), webhook_event and webhook_delivery by their partial indexes of pending rows.
 */
const OUTBOX_SQL = `select 'workflow_start' as outbox, count(*) as n, coalesce(extract(epoch from now() - min(created_at)), 0) as age
  from workflow_start_outbox where next_attempt_at > '-infinity'::timestamptz
union all
select 'webhook_event', count(*), coalesce(extract(epoch from now() - min(occurred_at)), 0) from webhook_event where dispatched_at is null
union all
select 'webhook_delivery', count(*), coalesce(extract(epoch from now() - min(created_at)), 0) from webhook_delivery where started_at is null`;

export function collectOutboxMetrics(orm: MikroORM): void {
  onScrape(async () => {
    const rows = await boundRows<{ outbox: string; n: string; age: string }>(orm.em.fork(), OUTBOX_SQL);
    for (const r of rows) {
      outboxDepth.set({ outbox: r.outbox }, Number(r.n));
      outboxOldestAge.set({ outbox: r.outbox }, Math.max(0, Number(r.age)));
    }
  });
}

/** How long a scrape waits for the Temporal server's answer: past it the gauges keep their last values and the scrape answers. */
const BACKLOG_TIMEOUT_MS = 2000;

/** The Temporal server's backlog of each of the deployment's task queues (workflow and activity tasks), through the one client, at scrape. */
export function collectTaskQueueMetrics(client: Client, config: Config, queues: readonly string[]): void {
  onScrape(async () => {
    try {
      for (const b of await taskQueueBacklogs(client, config, queues, BACKLOG_TIMEOUT_MS)) taskQueueBacklog.set({ task_queue: b.taskQueue, type: b.type }, b.backlog);
    } catch (e) {
      log.debug('task queue backlog not read', { error: String(e).slice(0, 200) });
    }
  });
}
