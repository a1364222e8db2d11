/**
 * OpenTelemetry's workflow interceptors, loaded on first use (tracing-interceptors.ts).
 *
 * This file is CommonJS on purpose. The worker's reusable V8 context evaluates a workflow's module
 * graph again for every workflow it creates, so a top-level import of
 * @temporalio/interceptors-opentelemetry (and with it @opentelemetry/sdk-trace-base, api and
 * semantic-conventions) cost every workflow about 10 ms of CPU on this machine, traced or not:
 * a third of the worker's workflow thread under bench:checkout. Webpack evaluates a `require` inside a
 * function only when the function is called, and synchronously, so an untraced workflow never
 * loads OpenTelemetry, and a traced one loads it at the same point of its code as before.
 */
type OtelWorkflowModule = typeof import('@temporalio/interceptors-opentelemetry/lib/workflow/index.js');

/** The module, evaluated by the first call (webpack's module cache answers the later ones). */
export function otelWorkflow(): OtelWorkflowModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@temporalio/interceptors-opentelemetry/lib/workflow/index.js') as OtelWorkflowModule;
}
