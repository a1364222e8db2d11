/**
 * Traces (issue 20): one trace from the HTTP request through the workflow and its activities down
 * to the SQL. The test runs a small OTLP/HTTP receiver (JSON encoding) and starts its own API and
 * worker pointed at it (OTEL_EXPORTER_OTLP_ENDPOINT), on their own task queues, so the stack's
 * untraced processes never pick up its workflows. The stack's own processes run with tracing off.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, createWriteStream, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { call, createOrg, stack, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { freePorts } from '../scripts/lib/procs';
import { startOwnApi, type OwnApi } from './support/own-api';

jest.setTimeout(180_000);
const st = stack as typeof stack & { distDir?: string; extraPidsFile?: string };

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
}

/** OTLP/JSON ids are hex; accept base64 too (other exporters' JSON). */
const hex = (id: string | undefined): string => (!id ? '' : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex'));

const spans: ReceivedSpan[] = [];
let receiver: http.Server;
let endpoint: string;
let api: OwnApi;
let worker: ChildProcess;
let workerOut = '';
let org: OrgFixture;

function startReceiver(): Promise<void> {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += String(d)));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const doc = JSON.parse(body) as { resourceSpans?: any[] };
        for (const rs of doc.resourceSpans ?? []) {
          const service = (rs.resource?.attributes ?? []).find((a: any) => a.key === 'service.name')?.value?.stringValue ?? '';
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({ service, traceId: hex(s.traceId), spanId: hex(s.spanId), parentSpanId: hex(s.parentSpanId), name: s.name });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else res.writeHead(404).end();
    });
  });
  return new Promise((r) => receiver.listen(0, '127.0.0.1', () => r()));
}

const QUEUE_PREFIX = 'traced-';

beforeAll(async () => {
  await startReceiver();
  endpoint = `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}`;
  const otel = {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200',
    TEMPORAL_TASK_QUEUE_PREFIX: QUEUE_PREFIX,
  };
  // The stack's worker first: it creates the deployment's janitor schedule on its own task queue before
  // it logs ready; this worker (another queue prefix) then finds the schedule and leaves it.
  const stackWorkerLog = path.join(stack.logDir, 'worker.log');
  const stackReady = Date.now() + 90_000;
  while (!readFileSync(stackWorkerLog, 'utf8').includes('"msg":"worker ready"')) {
    if (Date.now() > stackReady) throw new Error('the stack worker never logged ready');
    await new Promise((r) => setTimeout(r, 250));
  }
  const [opsPort, sdkPort] = await freePorts(2);
  worker = spawn(process.execPath, ['--enable-source-maps', path.join(st.distDir!, 'worker.js')], {
    env: { ...process.env, ...stack.env.production, ...otel, LOG_LEVEL: 'debug', OPS_PORT: String(opsPort), TEMPORAL_METRICS_PORT: String(sdkPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (worker.pid) appendFileSync(st.extraPidsFile!, `${worker.pid}\n`);
  const file = createWriteStream(path.join(stack.logDir, 'traced-worker.log'), { flags: 'a' });
  worker.stdout!.on('data', (d) => ((workerOut += String(d)), file.write(d)));
  worker.stderr!.on('data', (d) => ((workerOut += String(d)), file.write(d)));
  api = await startOwnApi(otel);
  org = await createOrg();
  const deadline = Date.now() + 90_000;
  while (!workerOut.includes('"msg":"worker ready"')) {
    if (worker.exitCode !== null) throw new Error(`traced worker exited: ${workerOut.slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`traced worker not ready: ${workerOut.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
});

afterAll(async () => {
  await api?.stop();
  if (worker && worker.exitCode === null && worker.signalCode === null) {
    const gone = new Promise((r) => worker.on('exit', r));
    worker.kill('SIGKILL');
    await gone;
  }
  await new Promise((r) => receiver?.close(r));
});

const A = () => ({ base: api.base, token: org.adminToken });
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
const card = {
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
};

async function waitFor<T>(what: string, probe: () => T | undefined | false, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; spans: ${JSON.stringify(spans.slice(-40).map((s) => `${s.service} ${s.name} ${s.traceId}`))}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('traces (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  test('a checkout sent with a traceparent: the response trace id is that trace, recorded by the API, the workflow, its activities and their SQL, and in the log lines', async () => {
    const { customerNumber, sku } = await customerWithProduct(org, { price: 10 });
    const c = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity: 1, orderType: 'Standard' } });
    expect(c.status).toBeLessThan(300);
    const cartId = c.body.shoppingCartId as string;
    expect(
      (await call('PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } })).status,
    ).toBeLessThan(300);

    const traceId = randomBytes(16).toString('hex');
    const parentSpanId = randomBytes(8).toString('hex');
    const res = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, {
      ...A(),
      headers: { traceparent: `00-${traceId}-${parentSpanId}-01` },
      body: { customerNumber, channel: 'Web', payment: card },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trace-id')).toBe(traceId);

    const inTrace = () => spans.filter((s) => s.traceId === traceId);
    const has = (service: RegExp, name: RegExp) => inTrace().some((s) => service.test(s.service) && name.test(s.name));
    // The API: the request's server span (child of the caller's span), the workflow start, its SQL.
    await waitFor(
      'API spans',
      () =>
        has(/-api$/, /^POST \/api\/carts\/:customerNumber\/:shoppingCartId\/complete-checkout$/) &&
        has(/-api$/, /^(StartWorkflow|UpdateWithStartWorkflow|SignalWithStartWorkflow|StartWorkflowUpdate|SignalWorkflow):/),
    );
    const server = inTrace().find((s) => /^POST /.test(s.name))!;
    expect(server.parentSpanId).toBe(parentSpanId);
    expect(has(/-api$/, /^pg\.query/)).toBe(true);
    // The worker: the workflow's run, the activities it scheduled and ran, their SQL.
    await waitFor(
      'workflow and activity spans',
      () =>
        has(/-worker$/, /^RunWorkflow:checkoutCart$/) &&
        has(/-worker$/, /^StartActivity:/) &&
        has(/-worker$/, /^RunActivity:/) &&
        has(/-worker$/, /^pg\.query/),
    );
    // The activity's SQL hangs below a RunActivity span of the same trace.
    const byId = new Map(inTrace().map((s) => [s.spanId, s]));
    const workerSql = inTrace().filter((s) => /-worker$/.test(s.service) && /^pg\.query/.test(s.name));
    const ancestors = (s: ReceivedSpan) => {
      const out: string[] = [];
      for (let p = byId.get(s.parentSpanId); p; p = byId.get(p.parentSpanId)) out.push(p.name);
      return out;
    };
    expect(workerSql.some((s) => ancestors(s).some((n) => n.startsWith('RunActivity:')))).toBe(true);

    // Log lines: the API's access line, and the worker's workflow and activity lines.
    await waitFor('API access line', () =>
      api
        .output()
        .split('\n')
        .some((l) => l.includes(`"traceId":"${traceId}"`) && l.includes('"msg":"request"')),
    );
    const workerLines = () => workerOut.split('\n').filter((l) => l.includes(`"traceId":"${traceId}"`));
    await waitFor('worker activity log line', () => workerLines().some((l) => l.includes('"activityType"')));
    await waitFor('worker workflow log line', () => workerLines().some((l) => l.includes('"workflowType":"checkoutCart"') && !l.includes('"activityType"')));
  });
});

describe('traces off (the stack: no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  test('the trace id is 32 hex, an incoming traceparent keeps its trace id, and no exporter writes errors', async () => {
    const traceId = randomBytes(16).toString('hex');
    const res = await call('GET', '/api/products', {
      base: org.base,
      token: org.adminToken,
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trace-id')).toBe(traceId);
    const fresh = await call('GET', '/api/nope', { base: org.base });
    expect(fresh.status).toBe(404);
    expect(fresh.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh.body.traceId).toBe(fresh.headers.get('x-trace-id'));
    for (const name of ['api.log', 'worker.log']) {
      const text = readFileSync(path.join(stack.logDir, name), 'utf8');
      expect(text).not.toMatch(/OTLP|opentelemetry|exporter/i);
    }
  });

  test("a checkout's trace id from the API's log line is in its workflow history's traceparent header and in the worker's completion line (no exporter)", async () => {
    const { customerNumber, sku } = await customerWithProduct(org, { price: 10 });
    const S = { token: org.adminToken };
    const c = await call('POST', `/api/carts/${customerNumber}`, { ...S, body: { customerNumber, sku, quantity: 1, orderType: 'Standard' } });
    expect(c.status).toBeLessThan(300);
    const cartId = c.body.shoppingCartId as string;
    expect((await call('PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { ...S, body: { customerNumber, shippingAddress: address } })).status).toBeLessThan(300);
    // No traceparent sent: the API makes the trace id, as for most callers.
    const res = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { ...S, body: { customerNumber, channel: 'Web', payment: card } });
    expect(res.status).toBe(200);
    const traceId = res.headers.get('x-trace-id')!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    // The on-call engineer's path: the API's log line names the trace...
    const apiLog = () => readFileSync(path.join(stack.logDir, 'api.log'), 'utf8').split('\n');
    await waitFor('API access line', () => apiLog().some((l) => l.includes(`"traceId":"${traceId}"`) && l.includes('complete-checkout')));
    // ...the workflow's history carries it in its start header...
    const connection = await Connection.connect({ address: stack.env.production.TEMPORAL_ADDRESS });
    try {
      const client = new Client({ connection, namespace: stack.env.production.TEMPORAL_NAMESPACE });
      const history = await client.workflow.getHandle(`checkout-${cartId}`).fetchHistory();
      const header = history.events![0].workflowExecutionStartedEventAttributes!.header!.fields!.traceparent;
      expect(header).toBeDefined();
      expect(defaultPayloadConverter.fromPayload<string>(header)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`));
      // ...and so do the activities it scheduled.
      const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
      expect(scheduled.length).toBeGreaterThan(0);
      for (const e of scheduled) expect(defaultPayloadConverter.fromPayload<string>(e.activityTaskScheduledEventAttributes!.header!.fields!.traceparent)).toContain(traceId);
    } finally {
      await connection.close();
    }
    // ...and the worker logs the workflow's completion at info with the trace, the workflow id and the organization.
    const workerLog = () => readFileSync(path.join(stack.logDir, 'worker.log'), 'utf8').split('\n');
    const line = await waitFor('worker completion line', () => workerLog().find((l) => l.includes('"msg":"workflow completed"') && l.includes(`"workflowId":"checkout-${cartId}"`)));
    expect(JSON.parse(line)).toMatchObject({ level: 'info', traceId, workflowId: `checkout-${cartId}`, organizationId: org.organizationId, outcome: 'completed' });
  });
});
