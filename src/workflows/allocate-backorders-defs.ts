/**
 * Contract of the allocateBackorders workflow (id `allocate-<organizationId>-<sku>`, commerce queue;
 * docs/fulfillment.md "Backorders"), shared by the workflow, its activity and the API's relay.
 */
import { defineSignal } from '@temporalio/workflow';

export interface AllocateBackordersInput {
  organizationId: string;
  productId: string;
  sku: string;
}

export interface AllocateBackordersResult {
  /** Units allocated over the run. */
  allocated: number;
}

export const allocateBackordersWorkflowId = (organizationId: string, sku: string) => `allocate-${organizationId}-${sku}`;

/** Stock of the product arrived (a receipt's allocation request): allocate again. */
export const stockArrivedSignal = defineSignal('stockArrived');
