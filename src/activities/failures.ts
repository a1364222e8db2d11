/**
 * How an activity's error becomes a Temporal failure. Permanent problems surface at once as
 * non-retryable ApplicationFailures whose `type` is the AppError kind (the API maps it back to
 * the same problem-details status); everything else (database hiccups, provider timeouts and
 * 5xx) is thrown as it is and retried by the activity's retry policy.
 */
import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '../errors.js';
import { ProviderRejectedError } from '../adapters/payment-gateway.js';

/** Failure type of a provider that refuses the service itself (401/403): an operator must fix the settings. */
export const PROVIDER_REJECTED = 'provider_rejected';

export function toActivityFailure(e: unknown): unknown {
  if (e instanceof AppError && e.kind !== 'unavailable' && e.kind !== 'internal') {
    return ApplicationFailure.create({ message: e.message, type: e.kind, nonRetryable: true, details: e.errors ? [e.errors] : [] });
  }
  if (e instanceof ProviderRejectedError) return ApplicationFailure.nonRetryable(e.message, PROVIDER_REJECTED);
  return e;
}

/** Runs an activity body, mapping permanent failures to non-retryable ones. */
export async function mapped<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toActivityFailure(e);
  }
}
