/**
 * Activity interceptors of the worker.
 *
 * - retryVisibility (always on): a step that keeps failing is logged as an error from its fifth
 *   attempt on, so a "must eventually succeed" step that retries without limit never does so silently.
 * - faultInjection (tests only): `FAULT_INJECTION=hang-after:<activityType>:<ms>[,...]` makes the
 *   first attempt of that activity wait <ms> after its body succeeded and before it completes, so a
 *   test can kill the worker inside the activity (e.g. after the provider accepted a charge). The
 *   worker honours it only when ENABLE_TEST_HOOKS=true, which only the test stack sets.
 */
import type { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { log } from '../logger.js';

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
}

/** Parses `hang-after:<activityType>:<ms>` rules; anything else is an error (a typo must not pass silently). */
export function parseFaultRules(spec: string): FaultRule[] {
  return spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((rule) => {
      const m = /^hang-after:([A-Za-z0-9_]+):(\d+)$/.exec(rule);
      if (!m) throw new Error(`FAULT_INJECTION: cannot parse "${rule}" (expected hang-after:<activityType>:<ms>)`);
      return { activityType: m[1], hangAfterMs: Number(m[2]) };
    });
}

export function faultInjection(rules: FaultRule[]): ActivityInterceptorsFactory {
  return (ctx: Context) => ({
    inbound: {
      async execute(input, next) {
        const result = await next(input);
        const rule = rules.find((r) => r.activityType === ctx.info.activityType);
        if (rule && ctx.info.attempt === 1) {
          log.warn('fault injection: holding a finished activity open', { activityType: rule.activityType, ms: rule.hangAfterMs });
          await new Promise((r) => setTimeout(r, rule.hangAfterMs));
        }
        return result;
      },
    },
  });
}
