/**
 * Every workflow findable by tenant, and the payload codec, on a local Temporal dev server (the
 * pinned CLI binary) with the real workflow code and mocked activities: a checkout's confirmation
 * e-mail child carries OrganizationId and the order's keys plus a summary memo, and with the codec
 * on, the history Temporal stores holds no customer e-mail address in clear.
 */
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter, defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { ensureBinaries } from '../../../scripts/lib/binaries';
import { dataConverterFor, ENCRYPTED_ENCODING, payloadCodecFor } from '../../../src/adapters/payload-codec';

jest.setTimeout(180_000);

const TASK_QUEUE = 'unit-tagging';
const ORG = randomUUID();
const EMAIL = `buyer-${randomBytes(3).toString('hex')}@customer.example`;
const codecConfig = { payloadCodecKeys: `k1:${randomBytes(32).toString('base64')}` };

const mailed: { emailId: string; to: string }[] = [];
const activities = {
  reserveOrderNumber: async () => ({ orderNumber: 'SO-7001', amount: '0', currency: 'USD', existingOrderId: null }),
  createOrderFromCart: async () => ({
    orderId: 'order-1',
    orderNumber: 'SO-7001',
    customerEmail: EMAIL,
    total: '125.50',
    currency: 'USD',
    invoice: { invoiceId: 'invoice-1', invoiceNumber: 'INV-7001', customerNumber: 'C-77' },
  }),
  storeInvoicePdf: async () => ({ invoiceNumber: 'INV-7001', customerNumber: 'C-77', balanceFormatted: '$125.50', organizationName: 'Org', companyName: 'Co', dueDate: '2030-01-01', totalFormatted: '$125.50', pdfUrl: 'http://x', to: null, open: true }),
  deliverEmail: async (i: { emailId: string; to: string }) => {
    mailed.push(i);
    return { delivered: true };
  },
};

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let client: Client;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  } catch {
    /* installed by another file in this jest worker */
  }
  const { temporal } = await ensureBinaries((s) => console.log(s));
  env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporal },
      searchAttributes: ['OrganizationId', 'CustomerNumber', 'OrderNumber', 'InvoiceNumber'].map((k) => defineSearchAttributeKey(k, SearchAttributeType.KEYWORD)),
    },
  });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowsPath: path.join(__dirname, '../../../src/workflows/commerce.ts'),
    activities,
    dataConverter: dataConverterFor(codecConfig),
  });
  running = worker.run();
  client = new Client({ connection: env.connection, dataConverter: dataConverterFor(codecConfig) });
});

afterAll(async () => {
  if (worker) {
    worker.shutdown();
    await running;
  }
  await env?.teardown();
});

async function listByOrg(): Promise<{ type: string; workflowId: string; memo?: Record<string, unknown>; keys: Record<string, unknown> }[]> {
  const out = [];
  for await (const wf of client.workflow.list({ query: `OrganizationId = '${ORG}'` }))
    out.push({ type: wf.type, workflowId: wf.workflowId, memo: wf.memo, keys: Object.fromEntries(wf.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])) });
  return out;
}

test('when a checkout completes, then its confirmation e-mail child is found by OrganizationId with the order keys and a summary memo, and its stored input is encrypted', async () => {
  const cartId = randomUUID();
  const result = await client.workflow.execute('checkoutCart', {
    taskQueue: TASK_QUEUE,
    workflowId: `checkout-${cartId}`,
    args: [{ organizationId: ORG, cartId, customerNumber: 'C-77', channel: 'web', paymentProfileId: null, userId: null }],
    typedSearchAttributes: [{ key: defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD), value: ORG }],
  });
  expect(result).toMatchObject({ orderId: 'order-1', orderNumber: 'SO-7001' });

  let email: Awaited<ReturnType<typeof listByOrg>>[number] | undefined;
  for (let i = 0; i < 40 && !email; i++) {
    email = (await listByOrg()).find((w) => w.type === 'sendEmail');
    if (!email) await new Promise((r) => setTimeout(r, 250));
  }
  expect(email).toMatchObject({
    workflowId: 'email-order-confirmation-order-1',
    keys: { OrganizationId: ORG, CustomerNumber: 'C-77', OrderNumber: 'SO-7001' },
  });
  expect(String(email!.memo?.Summary)).toMatch(/^E-mail order-confirmation about order SO-7001 for customer C-77 of organization .+: 125\.50 USD$/);
  expect(String(email!.memo?.Summary)).not.toContain(EMAIL);
  const invoice = (await listByOrg()).find((w) => w.type === 'issueInvoice');
  expect(invoice?.keys).toMatchObject({ OrderNumber: 'SO-7001', InvoiceNumber: 'INV-7001' });
  // Temporal's own summary (the UI's "Summary"), the same line as the memo.
  expect(await (await client.workflow.getHandle(email!.workflowId).describe()).staticSummary()).toBe(email!.memo?.Summary);
  // The invoice's dunning child (issue 43): the customer's keys, a memo and the summary with what is open.
  let dunning: Awaited<ReturnType<typeof listByOrg>>[number] | undefined;
  for (let i = 0; i < 40 && !dunning; i++) {
    dunning = (await listByOrg()).find((w) => w.type === 'collectInvoice');
    if (!dunning) await new Promise((r) => setTimeout(r, 250));
  }
  expect(dunning).toMatchObject({ workflowId: 'dunning-invoice-1', keys: { OrganizationId: ORG, CustomerNumber: 'C-77', InvoiceNumber: 'INV-7001' } });
  const dunningSummary = await (await client.workflow.getHandle('dunning-invoice-1').describe()).staticSummary();
  expect(dunningSummary).toBe(`Dunning of invoice INV-7001 for customer C-77 of organization ${ORG}: $125.50 open`);
  expect(dunning!.memo?.Summary).toBe(dunningSummary);

  await client.workflow.getHandle(email!.workflowId).result();
  expect(mailed.map((m) => m.to)).toContain(EMAIL);
  // What the server stores, read without the codec: encrypted payloads, no address in clear.
  const raw = await env.client.workflow.getHandle(email!.workflowId).fetchHistory();
  const started = raw.events![0].workflowExecutionStartedEventAttributes!;
  const input = started.input!.payloads![0];
  expect(Buffer.from(input.metadata!.encoding).toString()).toBe(ENCRYPTED_ENCODING);
  const everything = JSON.stringify(raw.events!.map((e) => e), (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
  expect(everything).not.toContain(EMAIL);
  // ...which the deployment's key decodes (what the codec endpoint does for the Temporal UI).
  const [plain] = await payloadCodecFor(codecConfig)!.decode([input]);
  expect(defaultPayloadConverter.fromPayload(plain)).toMatchObject({ to: EMAIL, template: 'order-confirmation' });
});
