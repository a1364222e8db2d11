/**
 * Workflow interceptors of every bundle (src/worker/bundles.ts).
 *
 * - The trace, whatever the exporter (issue 43 item 3): the W3C `traceparent` a start carries (the
 *   API client's `traceparent` header, or OpenTelemetry's `_tracer-data` carrier) names the trace
 *   on the workflow's log lines (`traceId`) and is passed on in the `traceparent` header of every
 *   activity, child workflow, signal and continued run it schedules. Each workflow logs one info
 *   line when it closes (`workflow completed`, with `outcome`, `workflowId`, `organizationId`,
 *   `traceId`); the workflow logger is silent during replay, so a line is logged once.
 * - OpenTelemetry's RunWorkflow, StartActivity, StartChildWorkflow, SignalWorkflow... spans
 *   (@temporalio/interceptors-opentelemetry), but only for a workflow whose start carried a trace
 *   of the traced client (`_tracer-data`, src/tracing.ts). Whether a workflow is traced is read
 *   from its history, so a replay decides the same way whatever the replaying worker's settings,
 *   and with tracing off the workflow runs with no spans and no sink calls. Spans leave the
 *   isolate through the `exporter` sink the worker registers (worker.ts).
 */
import type { OpenTelemetryInboundInterceptor, OpenTelemetryOutboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import {
  ContinueAsNew,
  defaultPayloadConverter,
  isCancellation,
  log,
  TemporalFailure,
  workflowInfo,
  type Headers,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { otelWorkflow } from './otel-workflow.cjs';
import { SA } from './tags-defs.js';
import { TRACEPARENT_HEADER, traceIdOfTraceparent } from './tracing-defs.js';

const OTEL_HEADER = '_tracer-data';

function payloadValue<T>(headers: Headers | undefined, key: string): T | undefined {
  try {
    const p = headers?.[key];
    return p ? defaultPayloadConverter.fromPayload<T>(p) : undefined;
  } catch {
    return undefined;
  }
}

/** The W3C traceparent a start (or signal, update) carried: ours, else OpenTelemetry's carrier. */
function traceparentOf(headers: Headers | undefined): string | undefined {
  const own = payloadValue<string>(headers, TRACEPARENT_HEADER);
  if (traceIdOfTraceparent(own)) return own;
  const carrier = payloadValue<{ traceparent?: string }>(headers, OTEL_HEADER);
  return traceIdOfTraceparent(carrier?.traceparent) ? carrier!.traceparent : undefined;
}

/** The workflow's organization: its OrganizationId search attribute, else its input's organizationId. */
function organizationOf(args: unknown[]): string | undefined {
  try {
    const sa = workflowInfo().typedSearchAttributes.get(SA.OrganizationId);
    if (sa) return sa;
  } catch {
    /* no typed search attributes */
  }
  const first = args[0] as { organizationId?: unknown } | undefined;
  return typeof first?.organizationId === 'string' ? first.organizationId : undefined;
}

/** How a run ended, from what its execution threw; null for an error that fails the workflow task only (it is retried). */
function outcomeOf(e: unknown): string | null {
  if (e instanceof ContinueAsNew) return 'continued-as-new';
  if (isCancellation(e)) return 'cancelled';
  if (e instanceof TemporalFailure) return 'failed';
  return null;
}

export const interceptors = (): WorkflowInterceptors => {
  let traced = false;
  let traceparent: string | undefined;
  let organizationId: string | undefined;
  let inbound: OpenTelemetryInboundInterceptor | undefined;
  let outbound: OpenTelemetryOutboundInterceptor | undefined;
  // OpenTelemetry's module is loaded by the first traced call only (otel-workflow.cts).
  const otelIn = () => (inbound ??= new (otelWorkflow().OpenTelemetryInboundInterceptor)());
  const otelOut = () => (outbound ??= new (otelWorkflow().OpenTelemetryOutboundInterceptor)());
  /** `headers` with the workflow's traceparent when they have none (what it passes on). */
  const pass = <T extends { headers: Headers }>(input: T): T =>
    traceparent && !(TRACEPARENT_HEADER in input.headers) ? { ...input, headers: { ...input.headers, [TRACEPARENT_HEADER]: defaultPayloadConverter.toPayload(traceparent) } } : input;
  const tracedIn: WorkflowInboundCallsInterceptor = {
    async execute(input, next) {
      traced = OTEL_HEADER in (input.headers ?? {});
      traceparent = traceparentOf(input.headers);
      organizationId = organizationOf(input.args);
      try {
        const result = await (traced ? otelIn().execute(input, next) : next(input));
        log.info('workflow completed', { outcome: 'completed' });
        return result;
      } catch (e) {
        const outcome = outcomeOf(e);
        if (outcome) log.info('workflow completed', { outcome, ...(outcome === 'failed' ? { error: (e as Error).message } : {}) });
        throw e;
      }
    },
    handleSignal(input, next) {
      return OTEL_HEADER in (input.headers ?? {}) ? otelIn().handleSignal(input, next) : next(input);
    },
    handleUpdate(input, next) {
      return OTEL_HEADER in (input.headers ?? {}) ? otelIn().handleUpdate(input, next) : next(input);
    },
  };
  const tracedOut: WorkflowOutboundCallsInterceptor = {
    scheduleActivity: (input, next) => (traced ? otelOut().scheduleActivity(pass(input), next) : next(pass(input))),
    scheduleLocalActivity: (input, next) => (traced ? otelOut().scheduleLocalActivity(pass(input), next) : next(pass(input))),
    startChildWorkflowExecution: (input, next) => (traced ? otelOut().startChildWorkflowExecution(pass(input), next) : next(pass(input))),
    continueAsNew: (input, next) => (traced ? otelOut().continueAsNew(pass(input), next) : next(pass(input))),
    signalWorkflow: (input, next) => (traced ? otelOut().signalWorkflow(pass(input), next) : next(pass(input))),
    // The workflow's log lines (the SDK's and `workflow completed`) name the trace and the organization.
    getLogAttributes: (input, next) => {
      const traceId = traceIdOfTraceparent(traceparent);
      return next({ ...input, ...(traceId ? { traceId } : {}), ...(organizationId ? { organizationId } : {}) });
    },
  };
  return {
    inbound: [tracedIn],
    outbound: [tracedOut],
    internals: [
      {
        dispose(input, next) {
          // OpenTelemetry's dispose (async in name only) disables the isolate's context manager, then calls next.
          if (inbound || outbound) void new (otelWorkflow().OpenTelemetryInternalsInterceptor)().dispose(input, next);
          else next(input);
        },
      },
    ],
  };
};
