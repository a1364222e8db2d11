/**
 * The workflow-start outbox (issue 21). A request whose follow-up workflow cannot be started
 * because Temporal is unreachable keeps the start in `workflow_start_outbox` (keepStart, attached to
 * the Temporal client by the composition root) and answers as usual; the API's relay starts kept
 * workflows once Temporal answers again. Workflow ids are business keys and starts use
 * REJECT_DUPLICATE, so a start that did reach Temporal before the error is not made twice.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { startPending, type Client, type PendingStart } from '../adapters/temporal.js';
import { boundRows } from '../db/orm-sql.js';
import { claimDueSql } from '../db/sql.js';
import { log } from '../logger.js';
import type { Config } from '../config.js';
import { relayAllApproversChanged } from './approvals/revise.js';
import { relayAllocationRequests } from './stock/backorders.js';

/** Platform-wide starts (no organization, e.g. a password reset) are kept under the nil id. */
const NO_ORGANIZATION = '00000000-0000-0000-0000-000000000000';
const BATCH = 20;

/** Keeps a start for the relay; a second keep of the same workflow id is a no-op. */
export function keepStart(orm: MikroORM): (start: PendingStart) => Promise<void> {
  return async (start) => {
    // On a fork: the pool, never the transaction of the request that failed to start it.
    await boundRows(
      orm.em.fork(),
      `insert into workflow_start_outbox (organization_id, workflow_id, workflow_type, task_queue, args, keys, summary)
       values ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7) on conflict do nothing`,
      [start.keys.organizationId ?? NO_ORGANIZATION, start.workflowId, start.workflowType, start.taskQueue, JSON.stringify(start.args), JSON.stringify(start.keys), start.summary],
    );
    log.warn('workflow start kept in the outbox (Temporal unavailable)', { workflowId: start.workflowId, workflowType: start.workflowType });
  };
}

interface Row {
  organization_id: string;
  workflow_id: string;
  workflow_type: string;
  task_queue: string;
  args: unknown[];
  keys: PendingStart['keys'];
  summary: string;
  attempts: number;
}

/**
 * One relay pass: claims up to BATCH due rows (skip locked, so several API processes share the
 * work), starts them, deletes the started ones; a failed start is tried again after a back-off.
 * Returns how many started.
 */
export async function relayKeptStarts(orm: MikroORM, client: Client): Promise<number> {
  const em = orm.em.fork();
  const rows = await boundRows<Row>(
    em,
    claimDueSql({ table: 'workflow_start_outbox', id: 'workflow_id', backoffSeconds: 2, limit: BATCH, returning: ['workflow_type', 'task_queue', 'args', 'keys', 'summary', 'attempts'] }),
  );
  let started = 0;
  for (const r of rows) {
    try {
      await startPending(client, { workflowType: r.workflow_type, workflowId: r.workflow_id, taskQueue: r.task_queue, args: r.args, keys: r.keys, summary: r.summary });
      await boundRows(em, 'delete from workflow_start_outbox where organization_id = $1 and workflow_id = $2', [r.organization_id, r.workflow_id]);
      started++;
    } catch (e) {
      await boundRows(em, 'update workflow_start_outbox set last_error = $1 where organization_id = $2 and workflow_id = $3', [String(e).slice(0, 500), r.organization_id, r.workflow_id]);
      // Temporal is still away: the rest of the batch would fail the same way.
      break;
    }
  }
  if (started) log.info('kept workflow starts relayed', { started });
  return started;
}

/**
 * Runs relay passes (kept starts, then approvals whose deciders changed, then backorder allocation
 * requests) every `intervalMs` until the returned stop() is called (and its pass ended).
 */
export function startOutboxRelay(orm: MikroORM, client: Client, config: Config, intervalMs = 2_000): () => Promise<void> {
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (stopped) return;
    current = current
      .then(() => (stopped ? 0 : relayKeptStarts(orm, client)))
      .catch((e: unknown) => log.warn('workflow outbox relay pass failed', { error: String(e).slice(0, 300) }))
      // Approvals whose deciders changed (src/services/approvals/revise.ts): signalled, whatever path changed them.
      .then(() => (stopped ? 0 : relayAllApproversChanged(orm, client)))
      .catch((e: unknown) => log.warn('approval signal relay pass failed', { error: String(e).slice(0, 300) }))
      // Stock arrived for waiting backorders (src/services/stock/backorders.ts): each product's allocateBackorders workflow signalled.
      .then(() => (stopped ? 0 : relayAllocationRequests(orm, client, config)))
      .catch((e: unknown) => log.warn('backorder allocation relay pass failed', { error: String(e).slice(0, 300) }));
  }, intervalMs);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await current;
  };
}
