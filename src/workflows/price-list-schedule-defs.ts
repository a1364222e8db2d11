/**
 * Contract of the priceListSchedule workflow (id `price-list-<priceListId>-v<version>`; docs/pricing.md
 * "Scheduled prices"), shared by the workflow, its activity and the API.
 */
import { defineSignal } from '@temporalio/workflow';

export interface PriceListScheduleInput {
  organizationId: string;
  priceListId: string;
  /** The list's schedule version this run keeps; a run of an older version stands down. */
  version: number;
}

/** What one sync of the schedule answers: the next instant to wake at, or null when nothing is left (or the version is superseded). */
export interface PriceListScheduleStep {
  next: string | null;
}

/** One run per schedule version: a change of status or validity bumps the version and starts the next run. */
export const priceListScheduleWorkflowId = (priceListId: string, version: number) => `price-list-${priceListId}-v${version}`;

/** Sent to the run of an older version when a newer one starts: it ends without waiting for its timer. */
export const priceListSupersededSignal = defineSignal('superseded');
