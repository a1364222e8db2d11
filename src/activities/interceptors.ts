/**
 * Activity interceptors of the worker.
 *
 * - retryVisibility (always on): a step that keeps failing is logged as an error from its fifth
 *   attempt on, so a "must eventually succeed" step that retries without limit never does so silently.
 * - traceLogAttributes (always on): the trace, workflow and organization on the activity's log
 *   lines, and one info line per failed attempt (`activity attempt failed`).
 * - businessMetrics (always on): below.
 *
 * Fault injection is test-only and lives outside src (test/support/fault-injection.ts): worker.ts
 * loads it only when ENABLE_TEST_HOOKS=true, which only the test stack sets.
 */
import { trace } from '@opentelemetry/api';
import type { Context } from '@temporalio/activity';
import { defaultPayloadConverter } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { log } from '../logger.js';
import { emails, webhookDeliveries } from '../metrics.js';
import { TRACEPARENT_HEADER, traceIdOfTraceparent } from '../workflows/tracing-defs.js';

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

/** The trace id of the `traceparent` header a workflow passed on (src/workflows/tracing-interceptors.ts). */
function headerTraceId(headers: Record<string, unknown> | undefined): string | undefined {
  try {
    const p = headers?.[TRACEPARENT_HEADER];
    return p ? traceIdOfTraceparent(defaultPayloadConverter.fromPayload(p as never)) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The trace (issue 43 item 3), whatever the exporter: the trace id of the RunActivity span when
 * tracing is on (active here inside the OpenTelemetry interceptor; the SDK logs after the span has
 * ended), else of the `traceparent` header the workflow passed on; with the organization (the
 * input's organizationId) on the SDK's own activity log lines. A failed attempt is one info line
 * with the trace, workflow and organization (Temporal retries it; retryVisibility escalates).
 */
export const traceLogAttributes: ActivityInterceptorsFactory = (ctx: Context) => {
  let traceId: string | undefined;
  let organizationId: string | undefined;
  return {
    inbound: {
      async execute(input, next) {
        traceId = trace.getActiveSpan()?.spanContext().traceId ?? headerTraceId(input.headers);
        const org = (input.args[0] as { organizationId?: unknown } | undefined)?.organizationId;
        organizationId = typeof org === 'string' ? org : undefined;
        try {
          return await next(input);
        } catch (e) {
          log.info('activity attempt failed', {
            traceId,
            workflowId: ctx.info.workflowExecution?.workflowId,
            organizationId: organizationId ?? null,
            activityType: ctx.info.activityType,
            attempt: ctx.info.attempt,
            error: e instanceof Error ? e.message : String(e),
          });
          throw e;
        }
      },
    },
    outbound: {
      getLogAttributes: (input, next) => next({ ...input, ...(traceId ? { traceId } : {}), ...(organizationId ? { organizationId } : {}) }),
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
