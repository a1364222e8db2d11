/**
 * Tells the Pending approval requests whose deciders changed to revise their chain at once (signal
 * approversChanged of approvePurchase). Which requests: the rows of `approval_signal_outbox`, written
 * by database triggers in the transaction of every change of a customer's Approvers or of the
 * organization's admins, whatever path made it (buyer rows, re-association, link imports, removal
 * from the organization, admin role changes; migration 20261129101000). The writer that has a
 * Temporal client relays its organization's rows right after its commit (`approversChanged`); the
 * API's relay (src/services/workflow-outbox.ts, every 2 s) sends what is left (imports, admin
 * changes, a signal that failed). A request that still misses it e-mails only those who may decide
 * when it escalates, and a former Approver can neither see nor decide it (src/services/approvals/steps.ts).
 */
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { isWorkflowNotFound, type Client } from '../../adapters/temporal.js';
import { boundRows } from '../../db/orm-sql.js';
import { claimDueSql } from '../../db/sql.js';
import { log } from '../../logger.js';
import { approversChangedSignal } from '../../workflows/approve-purchase-defs.js';

const BATCH = 50;

/**
 * One relay pass over the outbox (of one organization, or all): claims due rows (skip locked, so
 * API processes share them), signals each request, deletes the row once signalled (or when its
 * workflow has ended); a failed signal is tried again after a back-off. Returns how many were signalled.
 */
export async function relayApproversChanged(em: EntityManager, temporal: Client, orgId?: string): Promise<number> {
  const rows = await boundRows<{ organization_id: string; approval_id: string }>(
    em,
    claimDueSql({ table: 'approval_signal_outbox', id: 'approval_id', backoffSeconds: 2, limit: BATCH, oneOrganization: Boolean(orgId) }),
    orgId ? [orgId] : [],
  );
  let sent = 0;
  await Promise.all(
    rows.map(async (r) => {
      try {
        await temporal.workflow.getHandle(`approval-${r.approval_id}`).signal(approversChangedSignal);
        sent++;
      } catch (e) {
        if (!isWorkflowNotFound(e)) {
          log.warn('could not tell an approval its approvers changed; the relay tries again', { approvalId: r.approval_id, error: String(e).slice(0, 300) });
          return;
        }
      }
      await boundRows(em, 'delete from approval_signal_outbox where organization_id = $1 and approval_id = $2', [r.organization_id, r.approval_id]);
    }),
  );
  return sent;
}

/** After a write of the organization that changed who may decide (committed): its queued requests are signalled now, best effort (the relay keeps what fails). */
export async function approversChanged(em: EntityManager, temporal: Client, orgId: string): Promise<void> {
  try {
    await relayApproversChanged(em.fork(), temporal, orgId);
  } catch (e) {
    log.warn('approval signal relay failed; the API relay tries again', { organizationId: orgId, error: String(e).slice(0, 300) });
  }
}

/** The API's periodic pass (src/services/workflow-outbox.ts). */
export const relayAllApproversChanged = (orm: MikroORM, temporal: Client) => relayApproversChanged(orm.em.fork(), temporal);
