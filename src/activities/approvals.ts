/** Approval activities (workflow approvePurchase); each idempotent, see src/services/approvals/steps.ts. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { approvalChain, askLevel, decide, expireApproval, recordApprovalCheckout, reviseChain } from '../services/approvals/steps.js';
import { mapped } from './failures.js';

export function createApprovalActivities(deps: { orm: MikroORM; config: Config }) {
  return {
    approvalChain: (i: Parameters<typeof approvalChain>[1]) => mapped(() => approvalChain(deps.orm.em.fork(), i)),
    reviseApprovalChain: (i: Parameters<typeof reviseChain>[1]) => mapped(() => reviseChain(deps.orm.em.fork(), i)),
    askApprovalLevel: (i: Parameters<typeof askLevel>[1]) => mapped(() => askLevel(deps.orm.em.fork(), i)),
    decideApproval: (i: Parameters<typeof decide>[1]) => mapped(() => decide(deps.orm.em.fork(), i)),
    expireApproval: (i: Parameters<typeof expireApproval>[1]) => mapped(() => expireApproval(deps.orm.em.fork(), i)),
    recordApprovalCheckout: (i: Parameters<typeof recordApprovalCheckout>[1]) => mapped(() => recordApprovalCheckout(deps.orm.em.fork(), i)),
  };
}
