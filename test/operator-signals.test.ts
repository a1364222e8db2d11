/**
 * Signals an alert reads must not lie (issue 43 item 1): each metric that an alert in
 * docs/operations.md reads is driven into its condition here and the series asserted.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { call, createOrg, dbQuery, SANDBOX_API, stack, uniq, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';
import { SandboxWorkers } from './support/sandbox-workers';

jest.setTimeout(120_000);

/** The value of one series (name and exact label values) in a Prometheus exposition, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}
const scrape = async (base: string) => {
  const res = await fetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
};
const card = (cardNumber: string) => ({
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber, cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
});

/** A cart ready for checkout (one line, shipping set); its id and customer. */
async function readyCart(org: OrgFixture) {
  const A = { token: org.adminToken };
  const { customerNumber, sku } = await customerWithProduct(org, { price: 12.5 });
  const cart = await call('POST', `/api/carts/${customerNumber}`, { ...A, body: { customerNumber, sku, quantity: 2, orderType: 'Standard' } });
  expect(cart.status).toBe(201);
  const id = cart.body.shoppingCartId as string;
  const shippingAddress = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
  expect((await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...A, body: { customerNumber, shippingAddress } })).status).toBe(200);
  return { customerNumber, id };
}
const checkout = (org: OrgFixture, c: { customerNumber: string; id: string }, cardNumber: string) =>
  call('POST', `/api/carts/${c.customerNumber}/${c.id}/complete-checkout`, { token: org.adminToken, body: { customerNumber: c.customerNumber, channel: 'Web', payment: card(cardNumber) } });

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

let org: OrgFixture;
const fileStart = new Date();
beforeAll(async () => {
  org = await createOrg();
});

/** Polls `probe` until it answers a truthy value (at most `ms`). */
async function eventually<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 45_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

test('when an idle API is scraped, then no request is waiting for a connection (DbPoolSaturated stays quiet), its own statement included', async () => {
  for (let i = 0; i < 5; i++) {
    const text = await scrape(stack.urls.apiOps);
    // The scrape runs a statement (commission_statements) while it reads the pool.
    expect(text).toMatch(/^commission_statements\{/m);
    expect(sample(text, 'db_pool_connections', { state: 'waiting' })).toBe(0);
  }
});

test('when a card is declined at tokenization, then the checkout counts as failed and the API counts the declined provider call', async () => {
  const before = await scrape(stack.urls.apiOps);
  const res = await checkout(org, await readyCart(org), '4000000000000002');
  expect(res.status).toBe(402);
  const after = await scrape(stack.urls.apiOps);
  expect(sample(after, 'http_requests_total', { route: '/api/carts/:customerNumber/:shoppingCartId/complete-checkout', status: '402' })).toBeGreaterThanOrEqual(
    sample(before, 'http_requests_total', { route: '/api/carts/:customerNumber/:shoppingCartId/complete-checkout', status: '402' }) + 1,
  );
  expect(sample(after, 'checkouts_total', { outcome: 'failed' })).toBeGreaterThanOrEqual(sample(before, 'checkouts_total', { outcome: 'failed' }) + 1);
  expect(sample(after, 'payment_provider_calls_total', { operation: 'tokenize', result: 'declined' })).toBeGreaterThanOrEqual(
    sample(before, 'payment_provider_calls_total', { operation: 'tokenize', result: 'declined' }) + 1,
  );
});

test('when the provider cannot be reached from the API, then ProviderDown sees it: the API counts a provider error', async () => {
  const own = await createOrg();
  const pay = await call('POST', `/api/organizations/${own.organizationId}/integrations`, {
    token: own.adminToken,
    body: { integrationType: 1, provider: 'ProviderDirect', displayName: 'Down processor', configuration: { Endpoint: `http://127.0.0.1:${await closedPort()}`, IsSandbox: true }, secrets: { ApiKey: 'sk_down_0123456789' } },
  });
  expect(pay.status).toBe(201);
  const before = await scrape(stack.urls.apiOps);
  const res = await checkout(own, await readyCart(own), '4111111111111111');
  expect(res.status).toBeGreaterThanOrEqual(500);
  const after = await scrape(stack.urls.apiOps);
  expect(sample(after, 'payment_provider_calls_total', { operation: 'tokenize', result: 'error' })).toBeGreaterThanOrEqual(
    sample(before, 'payment_provider_calls_total', { operation: 'tokenize', result: 'error' }) + 1,
  );
  expect(sample(after, 'checkouts_total', { outcome: 'error' })).toBeGreaterThanOrEqual(sample(before, 'checkouts_total', { outcome: 'error' }) + 1);
});

test('when the worker charges a card, then the worker counts the charge (and the API the tokenization) once each', async () => {
  const apiBefore = await scrape(stack.urls.apiOps);
  const workerBefore = await scrape(stack.urls.workerOps);
  const res = await checkout(org, await readyCart(org), '4111111111111111');
  expect(res.status).toBe(200);
  const apiAfter = await scrape(stack.urls.apiOps);
  const workerAfter = await scrape(stack.urls.workerOps);
  expect(sample(workerAfter, 'payment_provider_calls_total', { operation: 'charge', result: 'succeeded' })).toBeGreaterThanOrEqual(
    sample(workerBefore, 'payment_provider_calls_total', { operation: 'charge', result: 'succeeded' }) + 1,
  );
  expect(sample(apiAfter, 'payment_provider_calls_total', { operation: 'tokenize', result: 'succeeded' })).toBeGreaterThanOrEqual(
    sample(apiBefore, 'payment_provider_calls_total', { operation: 'tokenize', result: 'succeeded' }) + 1,
  );
  expect(sample(apiAfter, 'checkouts_total', { outcome: 'completed' })).toBeGreaterThanOrEqual(sample(apiBefore, 'checkouts_total', { outcome: 'completed' }) + 1);
});

test('when /health is called on the API and on each ops port, then all answer the same camelCase body', async () => {
  for (const base of [stack.urls.api, stack.urls.apiOps, stack.urls.workerOps]) {
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', service: expect.any(String) });
  }
});

describe('backlogs (the sandbox environment, its worker stopped)', () => {
  const workers = new SandboxWorkers();
  beforeAll(async () => {
    await workers.acquire();
    workers.killOthers();
    // Waits its turn behind the other files that hold the sandbox workers (crash tests run minutes).
  }, 600_000);
  afterAll(async () => {
    await workers.leaveOneRunning();
  });

  test('when no worker serves the queue and work arrives, then task_queue_backlog and the outboxes\' depth and oldest age show it', async () => {
    const ops = stack.urls.sandboxApiOps;
    // Work arrives: an organization (its welcome e-mail is a workflow on the commerce queue) and a webhook test event.
    const sb = await createOrg({ base: SANDBOX_API });
    const hook = await call('POST', '/api/webhooks', { base: SANDBOX_API, token: sb.adminToken, body: { url: 'http://127.0.0.1:9/hook', events: ['*'] } });
    expect(hook.status).toBe(201);
    expect((await call('POST', `/api/webhooks/${hook.body.webhookId}/test`, { base: SANDBOX_API, token: sb.adminToken })).status).toBeLessThan(300);
    // An event not yet fanned out (the dispatcher runs in the stopped worker) and a start kept while Temporal was away, a minute old.
    await dbQuery(`insert into webhook_event (id, organization_id, type, data, occurred_at, dispatched_at) values ($1, $2, 'webhook.test', '{}', now() - interval '60 seconds', null)`, [randomUUID(), sb.organizationId], 'sandbox');
    const keptId = `backlog-probe-${uniq()}`;
    await dbQuery(
      `insert into workflow_start_outbox (organization_id, workflow_id, workflow_type, task_queue, args, keys, summary, next_attempt_at, created_at)
       values ($1, $2, 'sendEmail', 'nowhere', '[]', '{}', 'probe', now() + interval '1 hour', now() - interval '90 seconds')`,
      [sb.organizationId, keptId],
      'sandbox',
    );
    try {
      const text = await eventually('a commerce workflow backlog', async () => {
        const t = await scrape(ops);
        const line = t.split('\n').find((l) => l.startsWith('task_queue_backlog{') && /task_queue="[^"]*commerce"/.test(l) && l.includes('type="workflow"'));
        return line && Number(line.slice(line.lastIndexOf(' ') + 1)) >= 1 ? t : undefined;
      });
      expect(sample(text, 'outbox_depth', { outbox: 'workflow_start' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'outbox_oldest_age_seconds', { outbox: 'workflow_start' })).toBeGreaterThanOrEqual(90);
      expect(sample(text, 'outbox_depth', { outbox: 'webhook_event' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'outbox_oldest_age_seconds', { outbox: 'webhook_event' })).toBeGreaterThanOrEqual(60);
      expect(sample(text, 'outbox_depth', { outbox: 'webhook_delivery' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'outbox_oldest_age_seconds', { outbox: 'webhook_delivery' })).toBeGreaterThan(0);
    } finally {
      await dbQuery('delete from workflow_start_outbox where organization_id = $1 and workflow_id = $2', [sb.organizationId, keptId], 'sandbox');
    }
  });
});

test('the dev Temporal server exposes its own metrics on the port the stack gave it', async () => {
  const res = await fetch(stack.urls.temporalMetrics);
  expect(res.status).toBe(200);
  expect(await res.text()).toMatch(/^# (HELP|TYPE) /m);
});

test('every workflow run of this file (and every system workflow running) has a static summary and says whose it is: OrganizationId, or scope:system', async () => {
  // A password reset: an e-mail of no organization (a system workflow).
  expect((await call('POST', '/api/auth/password-reset', { body: { Email: org.adminEmail } })).status).toBe(202);
  const connection = await Connection.connect({ address: stack.env.production.TEMPORAL_ADDRESS });
  try {
    const client = new Client({ connection, namespace: stack.env.production.TEMPORAL_NAMESPACE });
    const query = `StartTime > '${fileStart.toISOString()}' OR ExecutionStatus = 'Running'`;
    const seen = new Set<string>();
    const problems: string[] = [];
    await eventually('the password-reset e-mail workflow', async () => {
      for await (const wf of client.workflow.list({ query: `WorkflowType = 'sendEmail' AND BusinessKeys = 'scope:system'` })) if (wf.startTime > fileStart) return true;
      return false;
    });
    let n = 0;
    for await (const wf of client.workflow.list({ query })) {
      if (++n > 400) break;
      seen.add(wf.type);
      const keys = Object.fromEntries(wf.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value]));
      const system = Array.isArray(keys.BusinessKeys) && (keys.BusinessKeys).includes('scope:system');
      const summary = await (await client.workflow.getHandle(wf.workflowId, wf.runId).describe()).staticSummary();
      if (!summary || !/ for (customer|sales rep|organization|the system)/.test(summary)) problems.push(`${wf.type} ${wf.workflowId}: summary ${JSON.stringify(summary)}`);
      if (!keys.OrganizationId && !system) problems.push(`${wf.type} ${wf.workflowId}: neither OrganizationId nor scope:system`);
      if (system && !/for the system/.test(summary ?? '')) problems.push(`${wf.type} ${wf.workflowId}: a system workflow whose summary does not say so`);
    }
    expect(problems).toEqual([]);
    // The flows above: checkouts, their invoices and e-mails, the dispatcher, the password reset.
    expect([...seen]).toEqual(expect.arrayContaining(['checkoutCart', 'issueInvoice', 'sendEmail', 'dispatchWebhookEvents']));
  } finally {
    await connection.close();
  }
});
