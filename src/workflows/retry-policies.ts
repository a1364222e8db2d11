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
 * - UNBOUNDED (a shorter cap): bookkeeping that must finish but is polled often (import steps,
 *   the webhook dispatcher): like MUST_SUCCEED with a 30-second ceiling.
 * - BOUNDED: work whose failure is itself a valid outcome (one remote image, one e-mail), recorded
 *   by the workflow when the attempts run out.
 */
import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/workflow';

/** Retries without limit, backing off from one second to one attempt per `maximumIntervalMs`. */
export const unbounded = (maximumIntervalMs = 60_000): RetryPolicy => ({ initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: maximumIntervalMs });
export const MUST_SUCCEED: RetryPolicy = unbounded(60_000);
export const PROVIDER_CALL: RetryPolicy = { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' };
/** At most `maximumAttempts` attempts, backing off from `initialIntervalMs` to `maximumIntervalMs`. */
export const bounded = (maximumAttempts: number, maximumIntervalMs = 60_000, initialIntervalMs = 1_000): RetryPolicy => ({
  initialInterval: initialIntervalMs,
  backoffCoefficient: 2,
  maximumInterval: maximumIntervalMs,
  maximumAttempts,
});

/** Options of provider calls: the HTTP client gives up after 15 s, so 30 s bounds one attempt. */
export const providerCall: ActivityOptions = { startToCloseTimeout: '30 seconds', retry: PROVIDER_CALL };
/** Options of database steps that must eventually succeed. */
export const mustSucceed: ActivityOptions = { startToCloseTimeout: '30 seconds', retry: MUST_SUCCEED };
/** An e-mail is bounded work: after about an hour of failures the workflow fails, visibly, in the Temporal UI. */
export const emailDelivery: ActivityOptions = { startToCloseTimeout: '30 seconds', retry: bounded(30, 120_000) };
/** The same attempt timeout and retries for a local activity (run by the worker of the workflow task). */
export const asLocal = (o: ActivityOptions): LocalActivityOptions => ({ startToCloseTimeout: o.startToCloseTimeout, retry: o.retry });
export const localMustSucceed = asLocal(mustSucceed);
