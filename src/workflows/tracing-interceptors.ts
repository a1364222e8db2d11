/**
 * Workflow interceptors of every bundle (src/worker/bundles.ts): OpenTelemetry's RunWorkflow,
 * StartActivity, StartChildWorkflow, SignalWorkflow... spans (@temporalio/interceptors-opentelemetry),
 * but only for a workflow whose start carried a trace (the `_tracer-data` header the traced client
 * adds, src/tracing.ts). Whether a workflow is traced is read from its history, so a replay
 * decides the same way whatever the replaying worker's settings, and with tracing off (no header)
 * the workflow runs with plain pass-through interceptors: no spans, no sink calls.
 * Spans leave the isolate through the `exporter` sink the worker registers (worker.ts); a traced
 * workflow's log lines carry `traceId`.
 */
import type { OpenTelemetryInboundInterceptor, OpenTelemetryOutboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import {
  defaultPayloadConverter,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { otelWorkflow } from './otel-workflow.cjs';

const TRACE_HEADER = '_tracer-data';
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The trace id in the start's trace header (a W3C carrier `{ traceparent }`), for the workflow's log lines. */
function traceIdOf(headers: Record<string, unknown>): string | undefined {
  try {
    const carrier = defaultPayloadConverter.fromPayload<{ traceparent?: string }>(headers[TRACE_HEADER] as never);
    return TRACEPARENT.exec(carrier?.traceparent ?? '')?.[1];
  } catch {
    return undefined;
  }
}

export const interceptors = (): WorkflowInterceptors => {
  let traced = false;
  let traceId: string | undefined;
  let inbound: OpenTelemetryInboundInterceptor | undefined;
  let outbound: OpenTelemetryOutboundInterceptor | undefined;
  // OpenTelemetry's module is loaded by the first traced call only (otel-workflow.cts).
  const otelIn = () => (inbound ??= new (otelWorkflow().OpenTelemetryInboundInterceptor)());
  const otelOut = () => (outbound ??= new (otelWorkflow().OpenTelemetryOutboundInterceptor)());
  const tracedIn: WorkflowInboundCallsInterceptor = {
    execute(input, next) {
      traced = TRACE_HEADER in (input.headers ?? {});
      if (traced) traceId = traceIdOf(input.headers);
      return traced ? otelIn().execute(input, next) : next(input);
    },
    handleSignal(input, next) {
      return TRACE_HEADER in (input.headers ?? {}) ? otelIn().handleSignal(input, next) : next(input);
    },
    handleUpdate(input, next) {
      return TRACE_HEADER in (input.headers ?? {}) ? otelIn().handleUpdate(input, next) : next(input);
    },
  };
  const tracedOut: WorkflowOutboundCallsInterceptor = {
    scheduleActivity: (input, next) => (traced ? otelOut().scheduleActivity(input, next) : next(input)),
    scheduleLocalActivity: (input, next) => (traced ? otelOut().scheduleLocalActivity(input, next) : next(input)),
    startChildWorkflowExecution: (input, next) => (traced ? otelOut().startChildWorkflowExecution(input, next) : next(input)),
    continueAsNew: (input, next) => (traced ? otelOut().continueAsNew(input, next) : next(input)),
    signalWorkflow: (input, next) => (traced ? otelOut().signalWorkflow(input, next) : next(input)),
    // The SDK's workflow log lines (`Workflow completed`, …) name the trace, also outside any span.
    getLogAttributes: (input, next) => next(traceId ? { ...input, traceId } : input),
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
