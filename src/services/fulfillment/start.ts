/**
 * Starting fulfillOrder when an order with a tracked line is placed (docs/fulfillment.md
 * "Backorders"): the start is written to the workflow-start outbox (src/services/workflow-outbox.ts)
 * in the order's own transaction, so an order that commits has its process started by the API's
 * relay (within its 2 s pass), and one that rolls back has none. A checkout's order is the
 * exception: its checkoutCart workflow starts fulfillOrder as a child once the order's activity
 * has answered (durable in the workflow's history; no outbox rows). The start uses REJECT_DUPLICATE
 * like every outbox start: a shipment that started the workflow first is not a second start.
 */
import { fulfillmentWorkflowId, type FulfillOrderInput } from '../../workflows/fulfill-order-defs.js';
import { summaryOf, type BusinessKeys } from '../../workflows/tags-defs.js';
import type { Sql } from '../../db/sql.js';

/** The commerce task queue of this deployment (TEMPORAL_TASK_QUEUE_PREFIX, as src/config.ts `taskQueue` builds it). */
const commerceQueue = () => `${process.env.TEMPORAL_TASK_QUEUE_PREFIX ?? ''}commerce`;

/** The fulfillOrder input of an order its caller starts (the checkout workflow, as its child); null for an order without a tracked line. */
export function fulfillmentOf(orgId: string, o: PlacedOrder & { fulfillmentManaged: boolean }): FulfillOrderInput | null {
  return o.fulfillmentManaged ? fulfillmentInput(orgId, o) : null;
}

type PlacedOrder = { id: string; orderNumber: string; customerNumber: string };
const fulfillmentInput = (orgId: string, o: PlacedOrder): FulfillOrderInput => ({ organizationId: orgId, orderId: o.id, orderNumber: o.orderNumber, customerNumber: o.customerNumber });

export async function keepFulfillmentStart(sql: Sql, orgId: string, o: PlacedOrder): Promise<void> {
  const input = fulfillmentInput(orgId, o);
  const keys: BusinessKeys = { organizationId: orgId, customerNumber: o.customerNumber, orderNumber: o.orderNumber, businessKeys: [] };
  await sql(
    `insert into workflow_start_outbox (organization_id, workflow_id, workflow_type, task_queue, args, keys, summary)
     values ($1, $2, 'fulfillOrder', $3, $4::jsonb, $5::jsonb, $6) on conflict do nothing`,
    [orgId, fulfillmentWorkflowId(o.id), commerceQueue(), JSON.stringify([input]), JSON.stringify(keys), summaryOf(keys, { what: `Fulfillment of order ${o.orderNumber}` })],
  );
}
