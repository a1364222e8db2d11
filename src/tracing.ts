/**
 * OpenTelemetry traces (issue 20). On only when OTEL_EXPORTER_OTLP_ENDPOINT is set: then each
 * process (API, worker) registers a tracer provider that exports its spans over OTLP/HTTP
 * (OTEL_EXPORTER_OTLP_PROTOCOL http/json or http/protobuf is the exporter's own setting; the
 * endpoint gets `/v1/traces` appended), the W3C trace-context propagator, AsyncLocalStorage
 * context, and the `pg` instrumentation (one span per SQL statement inside a traced operation).
 * Off, nothing is registered: the OpenTelemetry API answers with its no-op tracer.
 *
 * One trace: the API's `HTTP <method> <route>` span (child of an incoming `traceparent`) →
 * the Temporal client's StartWorkflow/SignalWorkflow/UpdateWithStart spans (the trace travels in
 * the workflow's headers) → RunWorkflow and StartActivity spans inside the workflow (exported
 * through the worker's `exporter` sink) → RunActivity in the worker → `pg.query` spans.
 *
 * Whatever the exporter (issue 43 item 3): every workflow start, signal and update carries the
 * request's W3C `traceparent` in a `traceparent` header (src/adapters/temporal.ts), the workflow
 * passes it on to its activities and children (src/workflows/tracing-interceptors.ts), and the
 * worker's log lines name that trace: with tracing off the trace id a client quotes still leads to
 * the workflow's history and to the worker's lines.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface Tracing {
  provider: NodeTracerProvider;
  spanProcessor: SpanProcessor;
  resource: Resource;
}

let active: Tracing | null = null;

/** Whether this process exports traces (OTEL_EXPORTER_OTLP_ENDPOINT set). */
export const tracingEnabled = (env: NodeJS.ProcessEnv = process.env): boolean => Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());

/** The process's tracing, once initTracing turned it on; null when off. */
export function currentTracing(): Tracing | null {
  return active;
}

/** Turns tracing on for this process when OTEL_EXPORTER_OTLP_ENDPOINT is set (idempotent); else does nothing. */
export function initTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): Tracing | null {
  if (active || !tracingEnabled(env)) return active;
  const resource = new Resource({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || `b2b-commerce-${serviceName}` });
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource });
  provider.addSpanProcessor(spanProcessor);
  provider.register();
  registerInstrumentations({ tracerProvider: provider, instrumentations: [new PgInstrumentation({ requireParentSpan: true })] });
  // The instrumentation patches `pg` when it is require()d; this ESM program imported it already,
  // so require it once here: the patch lands on the same Client and Pool prototypes.
  const require = createRequire(import.meta.url);
  for (const name of ['pg', 'pg-pool']) {
    try {
      require(name);
    } catch {
      /* not installed at that name */
    }
  }
  active = { provider, spanProcessor, resource };
  return active;
}

/** Flushes and stops the exporter (a stopping process keeps its last spans). */
export async function shutdownTracing(): Promise<void> {
  if (!active) return;
  const t = active;
  active = null;
  await t.provider.shutdown().catch(() => undefined);
}

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The trace id of a valid W3C `traceparent` header, else null. */
export function traceIdOf(traceparent: string | undefined): string | null {
  const m = TRACEPARENT.exec((traceparent ?? '').trim().toLowerCase());
  return m && !/^0+$/.test(m[1]) ? m[1] : null;
}

const tracer = (): Tracer => trace.getTracer('b2b-commerce');

/**
 * Runs `fn` inside a server span named `name`, child of the W3C context in `headers`, and gives
 * it the trace id: the span's when tracing is on; off, the incoming `traceparent`'s trace id or a
 * fresh one of the same form (32 hex), so the id a client quotes looks the same either way.
 */
export async function withServerSpan<T>(
  name: string,
  headers: Record<string, string | string[] | undefined>,
  fn: (traceId: string, span: Span | null) => Promise<T>,
): Promise<T> {
  if (!active) {
    const incoming = headers.traceparent;
    const traceId = traceIdOf(Array.isArray(incoming) ? incoming[0] : incoming) ?? randomUUID().replaceAll('-', '');
    // This request's own span id in the trace (nothing exports it): what its workflow starts carry.
    return requestTrace.run(`00-${traceId}-${randomBytes(8).toString('hex')}-01`, () => fn(traceId, null));
  }
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer().startSpan(name, { kind: SpanKind.SERVER }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span.spanContext().traceId, span));
  } catch (e) {
    span.recordException(e as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw e;
  } finally {
    span.end();
  }
}

/** The W3C traceparent of the request being served with tracing off (withServerSpan). */
const requestTrace = new AsyncLocalStorage<string>();

/**
 * The W3C `traceparent` of the work in progress: the active span's (tracing on), else the request's
 * (withServerSpan with tracing off); undefined outside both.
 */
export function currentTraceparent(): string | undefined {
  const ctx = trace.getActiveSpan()?.spanContext();
  if (ctx && traceIdOf(`00-${ctx.traceId}-${ctx.spanId}-01`)) return `00-${ctx.traceId}-${ctx.spanId}-0${ctx.traceFlags & 1}`;
  return requestTrace.getStore();
}

/** The active span's trace id (for log lines), or undefined when there is none. */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  return span?.spanContext().traceId;
}
