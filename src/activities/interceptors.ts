/**
 * Activity interceptors of the worker.
 *
 * - retryVisibility (always on): a step that keeps failing is logged as an error from its fifth
 *   attempt on, so a "must eventually succeed" step that retries without limit never does so silently.
 * - faultInjection (tests only): `FAULT_INJECTION=hang-after:<activityType>:<ms>[:<text>][,...]` makes the
 *   first attempt of that activity (only where its first argument, as JSON, contains <text>, when given)
 *   wait <ms> after its body succeeded and before it completes, so a test can kill the worker inside
 *   the activity (e.g. after the provider accepted a charge). The
 *   worker honours it only when ENABLE_TEST_HOOKS=true, which only the test stack sets.
 */
import { trace } from '@opentelemetry/api';
import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { log } from '../logger.js';
import { emails, payments, webhookDeliveries } from '../metrics.js';

const PROVIDER_OPERATIONS: Record<string, string> = { chargeProfile: 'charge', voidCharge: 'void', refundCharge: 'refund' };

/** The result label of a failed provider call: a decline, the provider refusing our credentials, or an error Temporal retries. */
function providerFailure(e: unknown): string {
  const type = e instanceof ApplicationFailure ? e.type : null;
  return type === 'payment_required' ? 'declined' : type === 'provider_rejected' ? 'rejected' : 'error';
}

/**
 * Business counters of the worker (src/metrics.ts) from its activities' outcomes, so the
 * activities themselves stay free of metrics code: provider calls by operation and result,
 * e-mails sent or failed, webhook delivery attempts by the delivery's status afterwards.
 */
export const businessMetrics: ActivityInterceptorsFactory = (ctx: Context) => ({
  inbound: {
    async execute(input, next) {
      const type = ctx.info.activityType;
      const first = input.args[0] as { template?: string } | undefined;
      try {
        const result = await next(input);
        if (PROVIDER_OPERATIONS[type]) payments.inc({ operation: PROVIDER_OPERATIONS[type], result: 'succeeded' });
        else if (type === 'deliverEmail') emails.inc({ template: first?.template ?? 'unknown', result: (result as { delivered?: boolean })?.delivered ? 'sent' : 'already_sent' });
        else if (type === 'attemptWebhookDelivery') webhookDeliveries.inc({ result: String((result as { status?: string })?.status ?? 'unknown') });
        return result;
      } catch (e) {
        if (PROVIDER_OPERATIONS[type]) payments.inc({ operation: PROVIDER_OPERATIONS[type], result: providerFailure(e) });
        else if (type === 'deliverEmail') emails.inc({ template: first?.template ?? 'unknown', result: 'failed' });
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

export interface FaultRule {
  activityType: string;
  hangAfterMs: number;
  /** Only activities whose first argument, as JSON, contains this (e.g. an e-mail id prefix); every one when absent. */
  argContains?: string;
}

/** Parses `hang-after:<activityType>:<ms>[:<text>]` rules; anything else is an error (a typo must not pass silently). */
export function parseFaultRules(spec: string): FaultRule[] {
  return spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((rule) => {
      const m = /^hang-after:([A-Za-z0-9_]+):(\d+)(?::([A-Za-z0-9_.-]+))?$/.exec(rule);
      if (!m) throw new Error(`FAULT_INJECTION: cannot parse "${rule}" (expected hang-after:<activityType>:<ms>[:<text>])`);
      return { activityType: m[1], hangAfterMs: Number(m[2]), ...(m[3] ? { argContains: m[3] } : {}) };
    });
}

export function faultInjection(rules: FaultRule[]): ActivityInterceptorsFactory {
  return (ctx: Context) => ({
    inbound: {
      async execute(input, next) {
        const result = await next(input);
        const arg = () => JSON.stringify(input.args[0] ?? null);
        const rule = rules.find((r) => r.activityType === ctx.info.activityType && (!r.argContains || arg().includes(r.argContains)));
        if (rule && ctx.info.attempt === 1) {
          log.warn('fault injection: holding a finished activity open', { activityType: rule.activityType, ms: rule.hangAfterMs });
          await new Promise((r) => setTimeout(r, rule.hangAfterMs));
        }
        return result;
      },
    },
  });
}
