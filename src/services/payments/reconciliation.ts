/**
 * Finance's view of the payment janitor (issue 21): run it now for the caller's organization, and
 * the report of what it did (src/services/payments/janitor.ts). The deployment's schedule runs it
 * for every organization; see src/workflows/payment-janitor.ts.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { taskQueue, type Config } from '../../config.js';
import type { Deps } from '../../deps.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { ensureSchedule, runWorkflow, workflowTags, type Client } from '../../adapters/temporal.js';
import { PAYMENT_JANITOR_SCHEDULE_ID, type PaymentJanitorInput, type PaymentJanitorResult } from '../../workflows/payment-janitor-defs.js';
import { reconciliationReport } from './janitor.js';

/** Runs one janitor pass over the organization's charges and answers its counts. */
export async function runReconciliation(deps: Deps, orgId: string): Promise<PaymentJanitorResult> {
  const input: PaymentJanitorInput = { lookbackDays: deps.config.janitor.lookbackDays, minAgeSeconds: deps.config.janitor.minAgeSeconds, organizationId: orgId };
  return runWorkflow<PaymentJanitorResult>(deps.temporal, deps.config, {
    workflowType: 'paymentJanitor',
    workflowId: `payment-janitor-${orgId}-${randomUUID()}`,
    args: [input],
    keys: { organizationId: orgId },
    waitMs: deps.config.checkoutWaitMs,
    what: 'The reconciliation',
    about: { what: 'Payment janitor run (charges without a recorded payment)' },
  });
}

/** The janitor's actions on the organization's charges, newest first unless sortDirection=asc (generic paged envelope). */
export const reconciliationListSpec: ListSpec = { filters: {}, sorts: { createdAt: 'created_at' }, defaultSort: 'createdAt', defaultDirection: 'desc' };

export async function listReconciliation(em: EntityManager, orgId: string, query: Record<string, unknown>) {
  const q = parseList(query, reconciliationListSpec);
  const { rows, total } = await reconciliationReport(em, orgId, q.pageSize, (q.page - 1) * q.pageSize, q.orderBy.created_at === 'asc' ? 'asc' : 'desc');
  return genericEnvelope(rows, total, q);
}

/**
 * The deployment's janitor schedule (one per Temporal namespace): created at worker start unless
 * it exists (a second worker, or a restart, finds it and leaves it). Overlapping runs are skipped.
 */
export async function ensureJanitorSchedule(client: Client, config: Config): Promise<boolean> {
  return ensureSchedule(client, {
    scheduleId: PAYMENT_JANITOR_SCHEDULE_ID,
    spec: { intervals: [{ every: `${config.janitor.everyMinutes} minutes` }] },
    action: {
      type: 'startWorkflow',
      workflowType: 'paymentJanitor',
      taskQueue: taskQueue(config, 'commerce'),
      args: [{ lookbackDays: config.janitor.lookbackDays, minAgeSeconds: Math.max(config.janitor.minAgeSeconds, 300), organizationId: null } satisfies PaymentJanitorInput],
      // Each scheduled run is a system workflow (every organization's charges), described as every other.
      ...workflowTags({ scope: 'system' }, { what: `Payment janitor run every ${config.janitor.everyMinutes} minutes (charges without a recorded payment)` }),
    },
  });
}
