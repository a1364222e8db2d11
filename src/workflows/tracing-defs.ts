/**
 * The trace header of workflows and activities (issue 43 item 3): a W3C `traceparent` string as a
 * plain JSON payload under this key, set by the API's Temporal client on every start, signal and
 * update and passed on by workflows to their activities, children and continued runs, whatever
 * the OpenTelemetry exporter. Deterministic: importable from workflow code.
 */
export const TRACEPARENT_HEADER = 'traceparent';

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The trace id of a W3C traceparent (32 hex), else undefined. */
export function traceIdOfTraceparent(traceparent: unknown): string | undefined {
  return typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent)?.[1] : undefined;
}
