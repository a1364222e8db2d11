/**
 * The Temporal SDK runtime of a worker process. Must run before the first connection.
 * - Logs: the SDK's own logs (worker state, workflow and activity context loggers, the native
 *   core's warnings) go through the service's JSON logger (`source: "temporal"`) instead of the
 *   SDK's plain-text console output: one format, the same redaction.
 * - Metrics: its Prometheus exporter (worker task slots, poll latencies, workflow and activity
 *   execution counters: `temporal_*`) listens on 127.0.0.1 at TEMPORAL_METRICS_PORT, and the
 *   worker's ops /metrics appends that exposition, so one scrape target per worker holds both its
 *   own and the SDK's series.
 */
import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import type { Config } from '../config.js';
import { log } from '../logger.js';

const LEVEL: Record<LogEntry['level'], keyof typeof log> = { TRACE: 'debug', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };

/** The SDK's workflow and activity log attributes name the trace `trace_id` (OpenTelemetry interceptors); the service's lines say `traceId`. */
function withTraceId(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!meta || typeof meta.trace_id !== 'string') return meta ?? {};
  const { trace_id: traceId, ...rest } = meta;
  return { ...rest, traceId };
}

export function installWorkerRuntime(config: Config): void {
  const logger = new DefaultLogger(config.logLevel === 'debug' ? 'DEBUG' : 'INFO', (entry) => log[LEVEL[entry.level]](entry.message, { source: 'temporal', ...withTraceId(entry.meta) }));
  Runtime.install({
    logger,
    telemetryOptions: {
      logging: { filter: { core: 'WARN', other: 'WARN' }, forward: {} },
      ...(config.temporalMetricsPort === null
        ? {}
        : {
            metrics: {
              metricPrefix: 'temporal_',
              globalTags: { service: config.serviceName },
              prometheus: { bindAddress: `127.0.0.1:${config.temporalMetricsPort}`, useSecondsForDurations: true, countersTotalSuffix: true },
            },
          }),
    },
  });
}

/** The SDK exporter's text (empty when it is off or not answering). */
export async function sdkMetricsText(config: Config): Promise<string> {
  if (config.temporalMetricsPort === null) return '';
  const res = await fetch(`http://127.0.0.1:${config.temporalMetricsPort}/metrics`, { signal: AbortSignal.timeout(2000) });
  return res.ok ? res.text() : '';
}
