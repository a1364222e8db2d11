/**
 * The operators' view (issue 20): metrics on each process's ops port, readiness probes, access
 * log lines with route template / organization / caller kind, every workflow of an order findable
 * by tenant with a summary memo, and process timelines read from Temporal history.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { call, createOrg, customerToken, repToken, stack, uniq, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';
import { runJson } from './support/import-helpers';

jest.setTimeout(120_000);

const card = () => ({
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
});

/** The value of one series (name and exact label set) in a Prometheus exposition, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const line = text.split('\n').find((l) => {
    if (!l.startsWith(`${name}{`)) return false;
    return Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`));
  });
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}
const metrics = async (base: string) => {
  const res = await fetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
};

async function checkout(org: OrgFixture) {
  const { customerNumber, sku } = await customerWithProduct(org, { price: 12.5 });
  const cart = await call('POST', `/api/carts/${customerNumber}`, { token: org.adminToken, body: { customerNumber, sku, quantity: 2, orderType: 'Standard' } });
  expect(cart.status).toBe(201);
  const cartId = cart.body.shoppingCartId as string;
  const shippingAddress = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
  expect((await call('PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { token: org.adminToken, body: { customerNumber, shippingAddress } })).status).toBe(200);
  const done = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { token: org.adminToken, body: { customerNumber, channel: 'Web', payment: card() } });
  if (done.status !== 200) throw new Error(`checkout failed: ${done.status} ${done.text}`);
  const f = encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: done.body.orderNumber }]));
  const orderId = (await call('GET', `/api/orders?filters=${f}`, { token: org.adminToken })).body.data[0].id as string;
  return { customerNumber, cartId, orderId, orderNumber: done.body.orderNumber as string };
}

describe('operators', () => {
  let org: OrgFixture;
  let connection: Connection;
  let client: Client;
  beforeAll(async () => {
    org = await createOrg();
    connection = await Connection.connect({ address: stack.urls.temporal });
    client = new Client({ connection, namespace: 'default' });
  });
  afterAll(async () => {
    await connection?.close();
  });

  test('when the API and worker ops ports are scraped, then they expose the named series, and a checkout moves the checkout counter', async () => {
    const before = await metrics(stack.urls.apiOps);
    for (const name of ['http_requests_total', 'http_request_duration_seconds_bucket', 'db_pool_connections', 'checkouts_total', 'commission_statements', 'process_cpu_user_seconds_total'])
      expect(before).toContain(`# TYPE ${name.replace(/_bucket$/, '')}`);
    const completed = sample(before, 'checkouts_total', { outcome: 'completed' });
    const { cartId } = await checkout(org);
    const after = await metrics(stack.urls.apiOps);
    // Other files check out on the same API at the same time: this checkout adds one, theirs may add more.
    expect(sample(after, 'checkouts_total', { outcome: 'completed' })).toBeGreaterThanOrEqual(completed + 1);
    // Route templates, not concrete paths.
    expect(after).toMatch(/http_requests_total\{[^}]*route="\/api\/carts\/:customerNumber\/:shoppingCartId\/complete-checkout"[^}]*method="POST"[^}]*status="200"/);
    expect(after).not.toContain(cartId);
    expect(sample(after, 'db_pool_connections', { state: 'max' })).toBe(10);
    // The commission gauge is the backlog: the states that wait for someone, not every statement ever paid.
    expect([...after.matchAll(/^commission_statements\{[^}]*\bstate="(\w+)"/gm)].map((m) => m[1]).sort()).toEqual(['Approved', 'Draft', 'Generating']);

    const worker = await metrics(stack.urls.workerOps);
    expect(sample(worker, 'payment_provider_calls_total', { operation: 'charge', result: 'succeeded' })).toBeGreaterThanOrEqual(1);
    expect(worker).toContain('# TYPE emails_total');
    expect(worker).toContain('# TYPE import_records_total');
    expect(worker).toContain('# TYPE webhook_delivery_attempts_total');
    // The Temporal SDK's own worker metrics, appended from its runtime exporter.
    expect(worker).toMatch(/^temporal_worker_task_slots_available\{/m);
    expect(worker).toMatch(/^temporal_activity_execution_latency_bucket\{/m);
  });

  test('when the probes are called, then /health answers alive and /ready names each dependency, on the API and the worker', async () => {
    const api = await call('GET', '/ready');
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({ Ready: true, Checks: { Database: { Ok: true }, Migrations: { Ok: true }, Temporal: { Ok: true }, ObjectStorage: { Ok: true } } });
    for (const base of [stack.urls.apiOps, stack.urls.workerOps]) {
      expect((await fetch(`${base}/health`)).status).toBe(200);
      const ready = await fetch(`${base}/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ Ready: true, Checks: { Database: { Ok: true }, Temporal: { Ok: true }, ObjectStorage: { Ok: true }, Migrations: { Ok: true } } });
    }
    expect((await fetch(`${stack.urls.apiOps}/codec/decode`, { method: 'POST', body: '{"payloads":[]}' })).status).toBe(404);
  });

  test('when an admin reads an order, then the access log line names the route template, the organization and the caller kind', async () => {
    const { orderId } = await checkout(org);
    const res = await call('GET', `/api/orders/${orderId}`, { token: org.adminToken });
    expect(res.status).toBe(200);
    const traceId = res.headers.get('x-trace-id');
    let line: Record<string, unknown> | undefined;
    for (let i = 0; i < 20 && !line; i++) {
      const lines = readFileSync(path.join(stack.logDir, 'api.log'), 'utf8').split('\n').filter((l) => l.includes(`"traceId":"${traceId}"`) && l.includes('"msg":"request"'));
      if (lines.length) line = JSON.parse(lines[0]);
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(line).toMatchObject({ route: '/api/orders/:orderId', method: 'GET', status: 200, organizationId: org.organizationId, callerKind: 'user', role: 'Admin' });
    const anonymous = await call('GET', '/api/orders');
    expect(anonymous.status).toBe(401);
  });

  test("when an order is checked out, then its confirmation e-mail workflow is found by OrganizationId with the order's keys and a summary memo", async () => {
    const { orderId, orderNumber, customerNumber } = await checkout(org);
    const query = `OrganizationId = '${org.organizationId}' AND OrderNumber = '${orderNumber}'`;
    let found: { type: string; workflowId: string; memo?: Record<string, unknown>; customer?: unknown }[] = [];
    for (let i = 0; i < 60; i++) {
      found = [];
      for await (const wf of client.workflow.list({ query }))
        found.push({ type: wf.type, workflowId: wf.workflowId, memo: wf.memo, customer: wf.typedSearchAttributes.getAll().find((p) => p.key.name === 'CustomerNumber')?.value });
      if (found.some((w) => w.type === 'sendEmail') && found.some((w) => w.type === 'issueInvoice')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const email = found.find((w) => w.type === 'sendEmail');
    expect(email).toMatchObject({ workflowId: `email-order-confirmation-${orderId}`, customer: customerNumber });
    expect(String(email!.memo?.Summary)).toContain(`order ${orderNumber}`);
    expect(String(email!.memo?.Summary)).toMatch(/: 25(\.0+)? USD/);
    expect(found.map((w) => w.type).sort()).toEqual(expect.arrayContaining(['checkoutCart', 'issueInvoice', 'sendEmail']));
    for (const w of found) expect(typeof w.memo?.Summary).toBe('string');
  });

  describe('timelines', () => {
    type Step = { At: string; WorkflowType: string; WorkflowId: string; RunId: string; Step: string; Outcome: string; Attempt?: number; Detail?: string };
    let placed: Awaited<ReturnType<typeof checkout>>;
    let steps: Step[];
    beforeAll(async () => {
      placed = await checkout(org);
      // The checkout answered; its children (issuance, e-mail) finish on their own.
      for (let i = 0; i < 80; i++) {
        const res = await call('GET', `/api/orders/${placed.orderId}/timeline`, { token: org.adminToken });
        expect(res.status).toBe(200);
        steps = res.body.Steps;
        // Wait for the order confirmation itself: other sendEmail workflows of the order may finish first.
        const confirmed = steps.some((s) => s.WorkflowId === `email-order-confirmation-${placed.orderId}` && s.Step === 'sendEmail' && s.Outcome === 'completed');
        if (confirmed && steps.some((s) => s.Step === 'storeInvoicePdf' && s.Outcome === 'completed')) break;
        await new Promise((r) => setTimeout(r, 250));
      }
    });

    test("when an order's timeline is read, then it lists the checkout steps in order with the real workflow and run ids, then the invoice and e-mail workflows", async () => {
      const runId = (await client.workflow.getHandle(`checkout-${placed.cartId}`).describe()).runId;
      const checkoutSteps = steps.filter((s) => s.WorkflowId === `checkout-${placed.cartId}`);
      expect(checkoutSteps.map((s) => `${s.Step}:${s.Outcome}`)).toEqual([
        'checkoutCart:started',
        'reserveOrderNumber:completed',
        'chargeProfile:completed',
        'createOrderFromCart:completed',
        'start issueInvoice:started',
        'start sendEmail:started',
        'checkoutCart:completed',
      ]);
      for (const s of checkoutSteps) expect(s).toMatchObject({ WorkflowType: 'checkoutCart', RunId: runId });
      expect(checkoutSteps.find((s) => s.Step === 'start sendEmail')?.Detail).toBe(`email-order-confirmation-${placed.orderId}`);
      const times = steps.map((s) => Date.parse(s.At));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      const email = steps.filter((s) => s.WorkflowId === `email-order-confirmation-${placed.orderId}`);
      expect(email.map((s) => `${s.Step}:${s.Outcome}`)).toEqual(['sendEmail:started', 'deliverEmail:completed', 'sendEmail:completed']);
      expect(email[0].RunId).toBe((await client.workflow.getHandle(`email-order-confirmation-${placed.orderId}`).describe()).runId);
      expect(steps.filter((s) => s.WorkflowType === 'issueInvoice').map((s) => s.Step)).toEqual(expect.arrayContaining(['issueInvoice', 'storeInvoicePdf']));
      // No payloads: the customer's e-mail address and the card never appear.
      const text = JSON.stringify(steps);
      expect(text).not.toContain('@example.com');
      expect(text).not.toContain('4111');
    });

    test("when the order's invoice timeline is read, then it shows the issuance workflow", async () => {
      const invoiceId = steps.find((s) => s.WorkflowType === 'issueInvoice')!.WorkflowId.replace(/^invoice-/, '');
      const res = await call('GET', `/api/invoices/${invoiceId}/timeline`, { token: org.adminToken });
      expect(res.status).toBe(200);
      expect(res.body.InvoiceId).toBe(invoiceId);
      expect(res.body.Steps.map((s: Step) => s.Step)).toEqual(expect.arrayContaining(['issueInvoice', 'storeInvoicePdf']));
      expect(new Set(res.body.Steps.map((s: Step) => s.WorkflowId))).toEqual(new Set([`invoice-${invoiceId}`]));
    });

    test("when someone who may not read the order asks for its timeline, then the answer is 404 as for the order itself; its own customer reads it", async () => {
      const other = await createOrg();
      const invoiceId = steps.find((s) => s.WorkflowType === 'issueInvoice')!.WorkflowId.replace(/^invoice-/, '');
      const own = await customerToken(org, { CustomerNumber: placed.customerNumber });
      const anotherCustomer = await customerToken(org, { CustomerNumber: uniq('C') });
      const rep = await repToken(org, uniq('R'));
      for (const token of [other.adminToken, anotherCustomer, rep]) {
        expect((await call('GET', `/api/orders/${placed.orderId}/timeline`, { token })).status).toBe(404);
        expect((await call('GET', `/api/invoices/${invoiceId}/timeline`, { token })).status).toBe(404);
      }
      expect((await call('GET', `/api/orders/${placed.orderId}/timeline`)).status).toBe(401);
      const mine = await call('GET', `/api/orders/${placed.orderId}/timeline`, { token: own });
      expect(mine.status).toBe(200);
      expect(mine.body.Steps.length).toBeGreaterThan(0);
      expect((await call('GET', `/api/imports/${placed.orderId}/timeline`, { token: org.adminToken })).status).toBe(404);
      expect((await call('GET', `/api/commissions/statements/${placed.orderId}/timeline`, { token: org.adminToken })).status).toBe(404);
      expect((await call('GET', `/api/imports/${placed.orderId}/timeline`, { token: own })).status).toBe(403);
    });
  });

  test("when an import runs, then its timeline shows the job's workflow steps and the worker counts its records", async () => {
    const before = sample(await metrics(stack.urls.workerOps), 'import_records_total', { phase: 'apply', outcome: 'created' });
    const p = uniq('P');
    const job = await runJson(org, { kind: 'products', records: [{ sku: `${p}-1`, name: 'One' }, { sku: `${p}-2`, name: 'Two' }] });
    expect(job.status).toBe('Succeeded');
    // The job reads Succeeded before its workflow has returned (it still starts the completion e-mail): wait for the workflow's own completion.
    const timeline = () => call('GET', `/api/imports/${job.jobId}/timeline`, { token: org.adminToken });
    let res = await timeline();
    for (let i = 0; i < 60 && res.status === 200 && !res.body.Steps.some((s: { Step: string; Outcome: string }) => s.Step === 'importJob' && s.Outcome === 'completed'); i++) {
      await new Promise((r) => setTimeout(r, 500));
      res = await timeline();
    }
    expect(res.status).toBe(200);
    const own = res.body.Steps.filter((s: { WorkflowType: string }) => s.WorkflowType === 'importJob');
    expect(own[0]).toMatchObject({ Step: 'importJob', Outcome: 'started', WorkflowId: `import-${job.jobId}` });
    expect(own.map((s: { Step: string; Outcome: string }) => `${s.Step}:${s.Outcome}`)).toEqual(expect.arrayContaining(['runImportChunk:completed', 'finishImport:completed', 'importJob:completed']));
    expect(sample(await metrics(stack.urls.workerOps), 'import_records_total', { phase: 'apply', outcome: 'created' })).toBe(before + 2);
    const other = await createOrg();
    expect((await call('GET', `/api/imports/${job.jobId}/timeline`, { token: other.adminToken })).status).toBe(404);
  });
});
