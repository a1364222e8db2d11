/**
 * Workflow library (issue 39 item 3): surfacing an activity's refusal as the workflow's (or the
 * update's) own failure. An activity throws AppError; the activity layer turns it into a
 * non-retryable ApplicationFailure whose type is the AppError kind and whose details carry the
 * field errors (src/activities/failures.ts). Workflow code re-throws it with the same type, message
 * and details, so the API maps it to the same problem details (src/adapters/temporal.ts
 * `appErrorOf`, `updateAppError`) as if the work had run inline. Deterministic.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';

/** A typed activity refusal re-thrown as this workflow's non-retryable failure (same type and details); anything else as it is. */
export function surface(e: unknown): never {
  if (e instanceof ActivityFailure && e.cause instanceof ApplicationFailure && e.cause.type) {
    throw ApplicationFailure.create({ message: e.cause.message, type: e.cause.type, nonRetryable: true, details: e.cause.details ? [...e.cause.details] : [] });
  }
  throw e;
}

/** Awaits `p`, surfacing a typed activity refusal (as `surface`). */
export async function surfaced<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    surface(e);
  }
}
