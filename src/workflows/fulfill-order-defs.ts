/**
 * Contract of the fulfillOrder workflow (id `fulfillment-<orderId>`, commerce queue; docs/fulfillment.md),
 * shared by the workflow and the API (kept apart so the API does not load activity proxies).
 */
import { defineSignal, defineUpdate } from '@temporalio/workflow';

export interface FulfillOrderInput {
  organizationId: string;
  orderId: string;
  orderNumber: string;
  customerNumber: string | null;
  /** Milliseconds a Shipped order waits for its deliveries before it completes on its own (absent: the deployment's, answered by syncFulfillment). */
  autoCompleteMs?: number;
}

export interface FulfillmentState {
  orderStatus: string;
}

export const fulfillmentWorkflowId = (orderId: string) => `fulfillment-${orderId}`;

/** A shipment was written (the workflow reads the order's shipments again). */
export const shipmentsChangedSignal = defineSignal('shipmentsChanged');
/** Waiting lines of the order were allocated (allocateBackorders): the workflow reads the order again and mails the buyer. */
export const allocatedSignal = defineSignal('allocated');
/** A delivery was confirmed; answers the order's status once the workflow has acted on it (Complete after the last shipment's). */
export const deliveryConfirmedUpdate = defineUpdate<FulfillmentState, [{ shipmentId: string }]>('deliveryConfirmed');
