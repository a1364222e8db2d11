/**
 * Activity interceptors of the worker.
 *
 * - retryVisibility (always on): a step that keeps failing is logged as an error from its fifth
 *   attempt on, so a "must eventually succeed" step that retries without limit never does so silently.
 * - businessMetrics (always on) and traceLogAttributes (with tracing on): below.
 *
 * Fault injection is test-only and lives outside src (test/support/fault-injection.ts): worker.ts
 * loads it only when ENABLE_TEST_HOOKS=true, which only the test stack sets.
 */
import { trace } from '@opentelemetry/api';
import type { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { log } from '../logger.js';
import { emails, webhookDeliveries } from '../metrics.js';

/**
 * Business counters of the worker (src/metrics.ts) from its activities' outcomes, so the
 * activities themselves stay free of metrics code: e-mails sent or failed, webhook delivery
 * attempts by the delivery's status afterwards. Provider calls are counted by the gateway itself
 * (src/adapters/payment-gateway.ts), in the API as in the worker.
 */
export const businessMetrics: ActivityInterceptorsFactory = (ctx: Context) => ({
  inbound: {
    async execute(input, next) {
      const type = ctx.info.activityType;
      const first = input.args[0] as { template?: string } | undefined;
      try {
        const result = await next(input);
        if (type === 'deliverEmail') emails.inc({ template: first?.template ?? 'unknown', result: (result as { delivered?: boolean })?.delivered ? 'sent' : 'already_sent' });
        else if (type === 'attemptWebhookDelivery') webhookDeliveries.inc({ result: String((result as { status?: string })?.status ?? 'unknown') });
        return result;
      } catch (e) {
        if (type === 'deliverEmail') emails.inc({ template: first?.template ?? 'unknown', result: 'failed' });
        else if (type === 'attemptWebhookDelivery') webhookDeliveries.inc({ result: 'error' });
        throw e;
      }
    },
  },
});

/**
 * The trace id on the SDK's own activity log lines (`Activity completed`, failures), kept from the
 * RunActivity span (src/tracing.ts) that is active when this runs inside the OpenTelemetry
 * interceptor: the SDK logs after the span has ended. Lines the activity logs itself get it from
 * the logger (src/logger.ts). Registered only with tracing on.
 */
export const traceLogAttributes: ActivityInterceptorsFactory = () => {
  let traceId: string | undefined;
  return {
    inbound: {
      execute(input, next) {
        traceId = trace.getActiveSpan()?.spanContext().traceId;
        return next(input);
      },
    },
    outbound: {
      getLogAttributes: (input, next) => next(traceId ? { ...input, traceId } : input),
    },
  };
};

export const retryVisibility: ActivityInterceptorsFactory = (ctx: Context) => ({
  inbound: {
    async execute(input, next) {
      try {
        return await next(input);
      } catch (e) {
        if (ctx.info.attempt >= 5) {
          log.error('activity still failing; Temporal keeps retrying it', {
            activityType: ctx.info.activityType,
            workflowId: ctx.info.workflowExecution?.workflowId,
            attempt: ctx.info.attempt,
            error: e instanceof Error ? e.message : String(e),
          });
        }
        throw e;
      }
    },
  },
});
