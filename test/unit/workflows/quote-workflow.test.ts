/**
 * negotiateQuote's logic against a local Temporal dev server with mocked activities: updates in
 * order, the validator's 409 reasons, the accept race, reminder then expiry by timers.
 */
import path from 'node:path';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { ensureBinaries } from '../../../scripts/lib/binaries';
import { acceptQuoteUpdate, offerQuoteUpdate, quoteStateQuery, type QuoteState, type QuoteStepInput } from '../../../src/workflows/negotiate-quote-defs';

jest.setTimeout(180_000);
const TASK_QUEUE = 'unit-quotes';
const ORG = '00000000-0000-4000-8000-000000000001';
const calls: { name: string; input: any }[] = [];
let state: QuoteState;
let acceptDelayMs = 0;

const activities = {
  async applyQuoteStep(i: QuoteStepInput): Promise<QuoteState> {
    calls.push({ name: 'applyQuoteStep', input: i });
    const to = { offer: 'Quoted', counter: 'Countered', reject: 'Rejected', expire: 'Expired' }[i.action] as QuoteState['status'];
    state = { ...state, status: to, expiresAt: i.action === 'offer' ? (i.version?.expiresAt ?? null) : i.action === 'counter' ? null : state.expiresAt };
    return state;
  },
  async acceptQuoteOrder(i: unknown) {
    calls.push({ name: 'acceptQuoteOrder', input: i });
    await new Promise((r) => setTimeout(r, acceptDelayMs));
    return { orderId: 'o1', orderNumber: 'SO-000001', customerEmail: null, total: '10', currency: 'USD', customerNumber: 'C1' };
  },
  async invoiceQuoteOrder(i: unknown) {
    calls.push({ name: 'invoiceQuoteOrder', input: i });
    return { invoiceId: `inv-${Date.now()}`, invoiceNumber: 'INV-000001', customerNumber: 'C1' };
  },
  async quoteReminderMail(i: unknown) {
    calls.push({ name: 'quoteReminderMail', input: i });
    return null;
  },
};

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    /* installed */
  }
  const { temporal } = await ensureBinaries((s) => console.log(s));
  env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporal },
      searchAttributes: ['OrganizationId', 'CustomerNumber', 'OrderNumber', 'InvoiceNumber', 'QuoteNumber'].map((k) => defineSearchAttributeKey(k, SearchAttributeType.KEYWORD)),
    },
  });
  worker = await Worker.create({ connection: env.nativeConnection, taskQueue: TASK_QUEUE, workflowsPath: path.join(__dirname, '../../../src/workflows/commerce.ts'), activities });
  running = worker.run();
});
afterAll(async () => {
  if (worker) {
    worker.shutdown();
    await running;
  }
  await env?.teardown();
});
beforeEach(() => {
  calls.length = 0;
  state = { status: 'Requested', expiresAt: null, orderId: null, orderNumber: null };
  acceptDelayMs = 0;
});

const start = (id: string, reminderBeforeMs = 1000) =>
  env.client.workflow.start('negotiateQuote', { taskQueue: TASK_QUEUE, workflowId: `quote-${id}`, args: [{ organizationId: ORG, quoteId: id, quoteNumber: 'Q-000001', customerNumber: 'C1', reminderBeforeMs }] });
const version = (expiresAt: string) => ({ kind: 'Offer' as const, by: { userId: 'u', role: 'SalesRep', repNumber: 'R1' }, at: expiresAt, message: null, lines: [], discountPercent: null, subtotal: '10', discountAmount: '0', total: '10', expiresAt });

test('when an offer is accepted, then one order; a second accept is refused by the validator', async () => {
  const h = await start(`a-${Date.now()}`);
  await h.executeUpdate(offerQuoteUpdate, { args: [{ requestId: 'r1', version: version(new Date(Date.now() + 60_000).toISOString()) }] });
  expect((await h.query(quoteStateQuery)).status).toBe('Quoted');
  await expect(h.executeUpdate(offerQuoteUpdate, { args: [{ requestId: 'r2', version: version(new Date(Date.now() + 60_000).toISOString()) }] })).rejects.toBeInstanceOf(WorkflowUpdateFailedError);
  acceptDelayMs = 500;
  const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => h.executeUpdate(acceptQuoteUpdate, { args: [{ requestId: `acc${i}`, by: { userId: 'b', role: 'Customer', repNumber: null }, poNumber: null }] })));
  expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  expect(calls.filter((c) => c.name === 'acceptQuoteOrder')).toHaveLength(1);
  expect(await h.result()).toMatchObject({ status: 'Accepted', orderNumber: 'SO-000001' });
  expect(calls.filter((c) => c.name === 'invoiceQuoteOrder')).toHaveLength(1);
});

test('when an offer is left open, then a reminder before expiresAt and the expiry at expiresAt', async () => {
  const h = await start(`e-${Date.now()}`, 1500);
  const expiresAt = new Date(Date.now() + 3000).toISOString();
  await h.executeUpdate(offerQuoteUpdate, { args: [{ requestId: 'r1', version: version(expiresAt) }] });
  expect(await h.result()).toMatchObject({ status: 'Expired' });
  expect(calls.map((c) => c.name).filter((n) => n !== 'invoiceQuoteOrder')).toEqual(['applyQuoteStep', 'quoteReminderMail', 'applyQuoteStep']);
  expect(calls.filter((c) => c.name === 'applyQuoteStep')[1].input.action).toBe('expire');
  expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expiresAt));
});
