/**
 * Retry policies by what a step means (DESIGN: activities are idempotent, so retrying is safe).
 *
 * - MUST_SUCCEED: the step records something that already happened in the world (a charge the
 *   provider accepted, a hosted callback, an order for a charged cart). It retries without limit
 *   (maximumAttempts unset), backing off to one attempt a minute; the worker logs every failure
 *   from the fifth attempt on (src/activities/interceptors.ts), so it never gives up silently.
 *   Permanent failures are non-retryable ApplicationFailures and surface at once.
 * - PROVIDER_CALL: a call to the payment provider with an idempotency key. Retried without limit
 *   while the provider is unreachable or answers 5xx (the key makes a repeat harmless, and giving
 *   up could leave an accepted charge unknown); declines, validation and 401/403 are non-retryable.
 * - BOUNDED: work whose failure is itself a valid outcome (one remote image, one e-mail), recorded
 *   by the workflow when the attempts run out.
 */
import type { ActivityOptions, RetryPolicy } from '@temporalio/workflow';

export const MUST_SUCCEED: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' };
export const PROVIDER_CALL: RetryPolicy = { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' };
export const bounded = (maximumAttempts: number, maximumIntervalMs = 60_000): RetryPolicy => ({
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: maximumIntervalMs,
  maximumAttempts,
});

/** Options of provider calls: the HTTP client gives up after 15 s, so 30 s bounds one attempt. */
export const providerCall: ActivityOptions = { startToCloseTimeout: '30 seconds', retry: PROVIDER_CALL };
/** Options of database steps that must eventually succeed. */
export const mustSucceed: ActivityOptions = { startToCloseTimeout: '30 seconds', retry: MUST_SUCCEED };
