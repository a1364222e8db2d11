/**
 * priceListSchedule (id `price-list-<priceListId>-v<version>`, search attributes OrganizationId and
 * BusinessKeys [the list id]): the durable timer of one price list's schedule version. It syncs the
 * schedule (an activity that emits `price_list.activated` or `price_list.expired` when due, once per
 * period in force, and answers the next boundary), sleeps until that boundary and syncs again; it
 * ends when no boundary is left, when the list changed (a newer version's run took over: the
 * `superseded` signal, or the sync finding a newer version), or when the list is gone. Timing is
 * the activity's: a run woken late (a worker down at the boundary) announces the same instants.
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { createPriceListActivities } from '../activities/price-lists.js';
import { priceListSupersededSignal, type PriceListScheduleInput } from './price-list-schedule-defs.js';
import { mustSucceed } from './retry-policies.js';

const acts = proxyActivities<ReturnType<typeof createPriceListActivities>>(mustSucceed);

export async function priceListSchedule(input: PriceListScheduleInput): Promise<void> {
  let superseded = false;
  setHandler(priceListSupersededSignal, () => {
    superseded = true;
  });
  while (!superseded) {
    const step = await acts.syncPriceListSchedule(input);
    if (step.next === null || superseded) return;
    // A boundary the worker's clock has not reached yet is waited for again (never a busy loop).
    const wait = Math.max(Date.parse(step.next) - Date.now(), 50);
    await condition(() => superseded, wait);
  }
}
