/**
 * Tells the open approval requests of customers whose Approvers changed (a buyer row changed or
 * ended, a user re-associated or removed) to revise their chain at once (signal approversChanged
 * of approvePurchase). Best effort after the change committed: a request that misses it still
 * e-mails only those who may decide when it escalates, and a former Approver can neither see nor
 * decide it (src/services/approvals/steps.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { isWorkflowNotFound, type Client } from '../../adapters/temporal.js';
import { ApprovalRequest } from '../../entities/index.js';
import { log } from '../../logger.js';
import { approversChangedSignal } from '../../workflows/approve-purchase-defs.js';

export async function approversChanged(em: EntityManager, temporal: Client, orgId: string, customerIds: readonly string[]): Promise<void> {
  if (!customerIds.length) return;
  const open = await em.fork().find(ApprovalRequest, { organizationId: orgId, customerId: { $in: [...customerIds] }, status: 'Pending' }, { fields: ['id'] });
  await Promise.all(
    open.map(async (a) => {
      try {
        await temporal.workflow.getHandle(`approval-${a.id}`).signal(approversChangedSignal);
      } catch (e) {
        if (!isWorkflowNotFound(e)) log.warn('could not tell an approval its approvers changed', { approvalId: a.id, error: String(e).slice(0, 300) });
      }
    }),
  );
}
