/**
 * Allocation of one product's waiting backorders (id `allocate-<organizationId>-<sku>`, commerce
 * queue; search attributes OrganizationId and BusinessKeys = the SKU; docs/fulfillment.md
 * "Backorders"). Started or signalled (`stockArrived`, signalWithStart) by the API's relay for
 * every allocation request a receipt wrote. Each wake-up runs one activity, allocateStock: one
 * transaction that gives the available stock to the waiting lines of all orders, oldest first
 * (src/services/stock/backorders.ts; idempotent, so a retry after a crash allocates nothing
 * twice), then tells each served order's fulfillOrder workflow (signal `allocated`), which sends
 * the buyer's e-mail. Ends when no signal is left unanswered.
 */
import { allHandlersFinished, condition, continueAsNew, getExternalWorkflowHandle, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createFulfillmentActivities } from '../activities/fulfillment.js';
import { MUST_SUCCEED } from './retry-policies.js';
import { stockArrivedSignal, type AllocateBackordersInput, type AllocateBackordersResult } from './allocate-backorders-defs.js';
import { allocatedSignal, fulfillmentWorkflowId } from './fulfill-order-defs.js';

// One transaction, under 10 s for 10,000 waiting lines (docs/benchmarks.md); a worker that dies in it is noticed after 30 s.
const { allocateStock } = proxyActivities<ReturnType<typeof createFulfillmentActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: MUST_SUCCEED,
});

/** Past this many history events the workflow continues as new (a busy SKU signals many orders). */
const HISTORY_LIMIT = 5_000;

export async function allocateBackorders(input: AllocateBackordersInput): Promise<AllocateBackordersResult> {
  let asked = 0;
  let answered = 0;
  setHandler(stockArrivedSignal, () => {
    asked++;
  });
  let allocated = 0;
  do {
    const ticket = asked;
    const r = await allocateStock(input);
    allocated += r.allocated;
    // A fulfillOrder that is not running (closed, or not started yet) reads its allocations when it next wakes.
    await Promise.all(r.orderIds.map((id) => getExternalWorkflowHandle(fulfillmentWorkflowId(id)).signal(allocatedSignal).catch(() => undefined)));
    answered = ticket;
    if (asked > answered && workflowInfo().historyLength > HISTORY_LIMIT) await continueAsNew<typeof allocateBackorders>(input);
  } while (asked > answered);
  await condition(allHandlersFinished);
  return { allocated };
}
