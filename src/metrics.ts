/**
 * Prometheus metrics of this process (prom-client, the default registry): HTTP requests by route
 * template, database pool, business counters, and Node's default process metrics. The API and
 * each worker expose their own registry on their operations port (src/ops-server.ts, OPS_PORT);
 * a worker appends the Temporal SDK's own metrics (TEMPORAL_METRICS_PORT). Labels carry no ids
 * (no organization, order or customer): their number of values stays small. docs/operations.md
 * lists what each series shows and the alert rules worth having.
 */
import client from 'prom-client';

export const registry = client.register;

let started = false;
/** Process metrics (CPU, memory, event loop lag, GC) with the service label; once per process. */
export function startProcessMetrics(service: string): void {
  if (started) return;
  started = true;
  registry.setDefaultLabels({ service });
  client.collectDefaultMetrics({ register: registry });
}

export const httpRequests = new client.Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by route template (not the concrete path), method and status.',
  labelNames: ['route', 'method', 'status'] as const,
});

export const httpDuration = new client.Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by route template, method and status.',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

/** Read at scrape time from the pool (set by composition for processes with a database). */
export const readTargets = new client.Counter({
  name: 'db_read_target_total',
  help: "Requests of routes that may read the replica, by where they read (replica, primary) and why (fresh, lagging, unavailable)",
  labelNames: ['target', 'reason'],
});

export const dbPool = new client.Gauge({
  name: 'db_pool_connections',
  help: 'PostgreSQL pool connections by state: in_use (checked out), idle, waiting (requests queued for a connection), max.',
  labelNames: ['state'] as const,
});

export const tenantLimitCounts = new client.Counter({
  name: 'tenant_limit_counts_total',
  help: 'Authenticated requests counted against their tenant limits, by how: statement (an upsert in PostgreSQL, which may lease a block of slots) or lease (a slot of a block this process leased, no statement).',
  labelNames: ['how'] as const,
});

export const checkouts = new client.Counter({
  name: 'checkouts_total',
  help: 'Checkout requests answered by the API, by outcome: completed, held (for approval), failed (a 4xx refusal: card declined at tokenization or charge, empty cart...), error (5xx), in_progress (the wait ran out).',
  labelNames: ['outcome'] as const,
});

export const payments = new client.Counter({
  name: 'payment_provider_calls_total',
  help: 'Payment provider calls made by this process (API or worker), by operation (tokenize, charge, void, refund, charge_report, profile_lookup, hosted_setup) and result (succeeded, declined, refused, rejected, error).',
  labelNames: ['operation', 'result'] as const,
});

export const importRecords = new client.Counter({
  name: 'import_records_total',
  help: 'Import records processed by the worker, by phase (check, apply) and outcome (created, updated, unchanged, failed).',
  labelNames: ['phase', 'outcome'] as const,
});

export const webhookDeliveries = new client.Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts, by the delivery status after the attempt (Succeeded, Retrying, Failed, ...) or error.',
  labelNames: ['result'] as const,
});

export const emails = new client.Counter({
  name: 'emails_total',
  help: 'E-mail delivery attempts by result: sent, already_sent (an idempotent repeat), failed (an attempt that threw; Temporal retries it).',
  labelNames: ['template', 'result'] as const,
});

/** Set at scrape time from the database by the API (counts over every organization). */
export const statementsByState = new client.Gauge({
  name: 'commission_statements',
  help: 'Commission statements waiting for someone, by state (Generating, Draft, Approved), all organizations.',
  labelNames: ['state'] as const,
});

/** Set at scrape time by the API from the Temporal server (DescribeTaskQueue, approximate backlog). */
export const taskQueueBacklog = new client.Gauge({
  name: 'task_queue_backlog',
  help: "Tasks waiting in the Temporal server's task queue for a worker to poll them (approximate backlog count), by task_queue and type (workflow, activity). Grows while no worker serves the queue or workers cannot keep up.",
  labelNames: ['task_queue', 'type'] as const,
});

/** Set at scrape time by the API from the database (every organization). */
export const outboxDepth = new client.Gauge({
  name: 'outbox_depth',
  help: 'Rows waiting in an outbox, all organizations: workflow_start (starts kept while Temporal was unreachable), webhook_event (events not yet fanned out to deliveries), webhook_delivery (deliveries whose workflow has not started).',
  labelNames: ['outbox'] as const,
});

export const outboxOldestAge = new client.Gauge({
  name: 'outbox_oldest_age_seconds',
  help: 'Age of the oldest row waiting in an outbox (seconds; 0 when it is empty), by outbox (workflow_start, webhook_event, webhook_delivery).',
  labelNames: ['outbox'] as const,
});

/** Runs `collect` before each scrape (gauges read from the pool or the database); a failing collector leaves the old value. */
const collectors: (() => Promise<void>)[] = [];
export function onScrape(collect: () => Promise<void>): void {
  collectors.push(collect);
}

/** The Prometheus text of this process (plus `extra`, e.g. the Temporal SDK's exposition). */
export async function metricsText(extra?: () => Promise<string>): Promise<string> {
  await Promise.all(collectors.map((c) => c().catch(() => undefined)));
  const own = await registry.metrics();
  const more = extra ? await extra().catch(() => '') : '';
  return more ? `${own}\n${more}` : own;
}

export const METRICS_CONTENT_TYPE = registry.contentType;
