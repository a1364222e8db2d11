/**
 * Fulfillment of one order (id `fulfillment-<orderId>`, commerce queue; search attributes
 * OrganizationId, CustomerNumber, OrderNumber and BusinessKeys = the shipment numbers;
 * docs/fulfillment.md). Started by the order's first shipment. On every wake-up (a shipment
 * written, a delivery confirmed, its timer) it reads the order's shipments (activity
 * syncFulfillment, which also completes a Shipped order once every delivery is confirmed, or when
 * the timer fired), tags itself with any new shipment number, and sends each shipment's e-mail
 * once (sendEmail child `email-shipment-<shipmentId>`). Once the order is Shipped it waits at most
 * `autoCompleteMs` (a durable timer) for the deliveries, then completes it. Ends when the order is
 * Complete or Cancelled.
 */
import { allHandlersFinished, condition, proxyActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { createFulfillmentActivities } from '../activities/fulfillment.js';
import { startChildOnce } from './lib/start-child-once.js';
import { MUST_SUCCEED } from './retry-policies.js';
import { childTags, emailAbout, SA } from './tags-defs.js';
import { deliveryConfirmedUpdate, shipmentsChangedSignal, type FulfillmentState, type FulfillOrderInput } from './fulfill-order-defs.js';

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
  setHandler(deliveryConfirmedUpdate, async () => {
    const ticket = ++asked;
    await condition(() => answered >= ticket || closed);
    return { orderStatus };
  });

  const numbers = new Set<string>();
  const mailed = new Set<string>();
  let shippedAt: number | null = null;
  let timerFired = false;
  for (;;) {
    const ticket = asked;
    const s = await syncFulfillment({ ...ref, timerFired });
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
        ...childTags(keys, emailAbout(mail.template, keys, `shipment ${String(mail.data.shipmentNumber)}`)),
      });
    }
    answered = ticket;
    if (FINAL.includes(orderStatus)) break;
    if (orderStatus === 'Shipped' && shippedAt === null) shippedAt = Date.now();
    const woke =
      shippedAt === null ? await condition(() => asked > answered).then(() => true) : await condition(() => asked > answered, Math.max(1, shippedAt + input.autoCompleteMs - Date.now()));
    if (!woke) timerFired = true;
  }
  closed = true;
  await condition(allHandlersFinished);
  return { orderStatus };
}
