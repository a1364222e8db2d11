/**
 * Fulfillment of one order (id `fulfillment-<orderId>`, commerce queue; search attributes
 * OrganizationId, CustomerNumber, OrderNumber and BusinessKeys = the shipment numbers;
 * docs/fulfillment.md). Started when an order with a tracked line is placed (the start outbox,
 * written in the order's transaction) or by the order's first shipment. On every wake-up (a
 * shipment written, lines allocated, a delivery confirmed, a timer) it reads the order (activity
 * syncFulfillment, which also completes a Shipped order once every delivery is confirmed, or when
 * the timer fired), tags itself with any new shipment number, and sends each e-mail once (sendEmail
 * children: `email-shipment-<shipmentId>`, `email-backorder-allocated-<allocationId>`). While units
 * wait for stock it keeps a durable timer to the organization's escalation date; when it fires with
 * units still waiting, the admins get the escalation e-mail (once). Once the order is Shipped it
 * waits at most `autoCompleteMs` for the deliveries, then completes it. Ends when the order is
 * Complete or Cancelled.
 */
import { allHandlersFinished, condition, proxyActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { createFulfillmentActivities } from '../activities/fulfillment.js';
import { startChildOnce } from './lib/start-child-once.js';
import { MUST_SUCCEED } from './retry-policies.js';
import { childTags, emailAbout, SA } from './tags-defs.js';
import { allocatedSignal, deliveryConfirmedUpdate, shipmentsChangedSignal, type FulfillmentState, type FulfillOrderInput } from './fulfill-order-defs.js';

const { syncFulfillment } = proxyActivities<ReturnType<typeof createFulfillmentActivities>>({
  startToCloseTimeout: '1 minute',
  retry: MUST_SUCCEED,
});

const FINAL = ['Complete', 'Cancelled', 'Missing'];

export async function fulfillOrder(input: FulfillOrderInput): Promise<FulfillmentState> {
  const ref = { organizationId: input.organizationId, orderId: input.orderId };
  const keys = { organizationId: input.organizationId, customerNumber: input.customerNumber, orderNumber: input.orderNumber };
  let orderStatus = 'Processing';
  /** Wake-ups asked for (signals, updates) and the last one a sync has answered. */
  let asked = 0;
  let answered = 0;
  /** The order is Complete or Cancelled: a late update answers at once. */
  let closed = false;
  setHandler(shipmentsChangedSignal, () => {
    asked++;
  });
  setHandler(allocatedSignal, () => {
    asked++;
  });
  setHandler(deliveryConfirmedUpdate, async () => {
    const ticket = ++asked;
    await condition(() => answered >= ticket || closed);
    return { orderStatus };
  });

  const numbers = new Set<string>();
  const mailed = new Set<string>();
  let shippedAt: number | null = null;
  let timerFired = false;
  /** The escalation: due (its timer fired, the next sync mails the admins), then done. */
  let escalationDue = false;
  let escalated = false;
  for (;;) {
    const ticket = asked;
    const s = await syncFulfillment({ ...ref, timerFired, ...(escalationDue ? { escalationDue } : {}) });
    if (escalationDue) escalated = true;
    escalationDue = false;
    orderStatus = s.orderStatus;
    const fresh = s.shipments.filter((x) => !numbers.has(x.shipmentNumber));
    if (fresh.length) {
      for (const x of fresh) numbers.add(x.shipmentNumber);
      upsertSearchAttributes([{ key: SA.BusinessKeys, value: [...numbers] }]);
    }
    for (const mail of s.mails) {
      if (mailed.has(mail.emailId)) continue;
      mailed.add(mail.emailId);
      await startChildOnce('sendEmail', {
        workflowId: `email-${mail.emailId}`,
        args: [mail],
        taskQueue: workflowInfo().taskQueue,
        ...childTags(keys, emailAbout(mail.template, keys, mail.data.shipmentNumber ? `shipment ${String(mail.data.shipmentNumber)}` : `backorder ${String(mail.data.sku ?? '')}`)),
      });
    }
    answered = ticket;
    if (FINAL.includes(orderStatus)) break;
    if (orderStatus === 'Shipped' && shippedAt === null) shippedAt = Date.now();
    const autoCompleteMs = input.autoCompleteMs ?? s.autoCompleteMs ?? 0;
    // Units waiting for stock: wake at the escalation date at the latest (once).
    const escalateIn = !escalated && (s.backordered ?? 0) > 0 && s.escalateAt !== undefined ? Math.max(1, s.escalateAt - Date.now()) : null;
    if (shippedAt === null && escalateIn !== null) {
      if (!(await condition(() => asked > answered, escalateIn))) escalationDue = true;
      continue;
    }
    const woke =
      shippedAt === null ? await condition(() => asked > answered).then(() => true) : await condition(() => asked > answered, Math.max(1, shippedAt + autoCompleteMs - Date.now()));
    if (!woke) timerFired = true;
  }
  closed = true;
  await condition(allHandlersFinished);
  return { orderStatus };
}
