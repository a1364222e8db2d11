/**
 * Fault injection for the test stack's workers (test-only; never part of the production worker).
 *
 * `FAULT_INJECTION=hang-after:<activityType>:<ms>[:<text>][,...]` makes the first attempt of that
 * activity (only where its first argument, as JSON, contains <text>, when given) wait <ms> after its
 * body succeeded and before it completes, so a test can kill the worker inside the activity (e.g.
 * after the provider accepted a charge; test/crash.test.ts).
 *
 * worker.ts imports this module (compiled: dist/test/support/fault-injection.js) from the path in
 * TEST_ACTIVITY_INTERCEPTORS only when ENABLE_TEST_HOOKS=true; the test stack (scripts/lib/stack.ts,
 * mode 'test') sets both. Compiled by the root tsconfig (its `include`) for that reason, so it
 * imports with .js extensions like src.
 */
import type { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { log } from '../../src/logger.js';

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

/** The worker's entry point of this module: the interceptors FAULT_INJECTION asks for (none when unset). */
export function activityInterceptors(env: NodeJS.ProcessEnv = process.env): ActivityInterceptorsFactory[] {
  const faults = env.FAULT_INJECTION ? parseFaultRules(env.FAULT_INJECTION) : [];
  if (!faults.length) return [];
  log.warn('fault injection enabled (test hook)', { rules: faults });
  return [faultInjection(faults)];
}
