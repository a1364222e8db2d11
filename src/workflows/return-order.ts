/**
 * returnOrder (id `return-<returnId>`, commerce queue; search attributes OrganizationId,
 * CustomerNumber, OrderNumber and BusinessKeys = [the RMA number]; docs/returns.md "Returns").
 * Started with the return request. The database row is the return's state; the API writes each
 * staff decision there and sends the `returnChanged` update, and the workflow re-reads the row
 * (activity syncReturn) on every wake-up. It holds the timers and the money step:
 *
 * - Requested: after `reminderAfterMs` without a decision, one reminder e-mail to the admins.
 * - Approved: after `expiryMs` without the goods, the return expires.
 * - Received: the money step: credited (the API issued and applied the credit note with the
 *   receipt), or the card refund at the provider with key `return-<returnId>` (retried while the
 *   provider is unreachable), then recorded; then Closed.
 *
 * Ends when the return is Closed, Rejected or Expired.
 */
import { allHandlersFinished, condition, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createPaymentActivities } from '../activities/payments.js';
import type { createReturnActivities } from '../activities/returns.js';
import { startChildOnce } from './lib/start-child-once.js';
import { surface } from './lib/surface.js';
import { mustSucceed, providerCall } from './retry-policies.js';
import { childTags, emailAbout } from './tags-defs.js';
import { returnChangedUpdate, type ReturnOrderInput, type ReturnState } from './return-order-defs.js';

const db = proxyActivities<ReturnType<typeof createReturnActivities>>(mustSucceed);
const provider = proxyActivities<ReturnType<typeof createPaymentActivities>>(providerCall);

const FINAL = ['Closed', 'Rejected', 'Expired'];

export async function returnOrder(input: ReturnOrderInput): Promise<ReturnState> {
  const ref = { organizationId: input.organizationId, returnId: input.returnId };
  const keys = { organizationId: input.organizationId, customerNumber: input.customerNumber, orderNumber: input.orderNumber };
  let status = 'Requested';
  let asked = 0;
  let answered = 0;
  let closed = false;
  setHandler(returnChangedUpdate, async () => {
    const ticket = ++asked;
    await condition(() => answered >= ticket || closed);
    return { status };
  });

  const startedAt = Date.now();
  let reminded = false;
  let approvedAt: number | null = null;
  let expire = false;
  try {
    for (;;) {
      const ticket = asked;
      status = (await db.syncReturn({ ...ref, expire })).status;
      if (status === 'Received') {
        const s = await db.settleReturn(ref);
        status = s.status;
        if (s.refund) {
          await provider.refundCharge(s.refund);
          status = (await db.recordReturnRefund(ref)).status;
        }
      }
      if (status === 'Refunded' || status === 'Credited') status = (await db.closeReturn(ref)).status;
      answered = ticket;
      if (FINAL.includes(status)) break;
      if (status === 'Requested' && !reminded) {
        const woke = await condition(() => asked > answered, Math.max(1, startedAt + input.reminderAfterMs - Date.now()));
        if (!woke) {
          reminded = true;
          const r = await db.remindReturn(ref);
          for (const mail of r.mails) {
            await startChildOnce('sendEmail', {
              workflowId: `email-${mail.emailId}`,
              args: [mail],
              taskQueue: workflowInfo().taskQueue,
              ...childTags(keys, emailAbout(mail.template, keys, `return ${input.rmaNumber} awaiting a decision`)),
            });
          }
        }
      } else if (status === 'Approved') {
        if (approvedAt === null) approvedAt = Date.now();
        const woke = await condition(() => asked > answered, Math.max(1, approvedAt + input.expiryMs - Date.now()));
        if (!woke) expire = true;
      } else {
        await condition(() => asked > answered);
      }
    }
  } catch (e) {
    surface(e);
  }
  closed = true;
  await condition(allHandlersFinished);
  return { status };
}
