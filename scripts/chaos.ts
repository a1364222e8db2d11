/**
 * Chaos run (issue 21 item 1; a script that prints a report, not a test): `npm run chaos`.
 *
 * Starts the whole stack the way `npm run dev` does (mode 'dev': PostgreSQL's data folder, MinIO's
 * folder and Temporal's sqlite file on disk, so each survives its own restart) in a temporary folder
 * on free ports, then for CHAOS_SECONDS runs a steady mixed load from CHAOS_TENANTS organizations:
 * product and customer writes (PUT, a new SKU / customer number each), card checkouts (cart,
 * shipping, complete-checkout with the sandbox card 4111111111111111), invoices paid by a card on
 * file and partly refunded, one product import job per tenant, and a webhook subscription per tenant
 * pointed at a receiver inside this script. Every write that the API supports it for carries an
 * Idempotency-Key, and a client retries a 5xx, 429, a 409 "still being processed", a timeout or a
 * refused connection with the SAME key until CHAOS_OP_DEADLINE seconds have passed; a write counts
 * as acknowledged once it got a 2xx.
 *
 * Meanwhile the fault injector SIGKILLs, every CHAOS_FAULT_EVERY seconds (+-50% jitter), the next
 * component in turn (the production API, each worker, PostgreSQL, the Temporal dev server, MinIO, the
 * SMTP catcher), waits CHAOS_DOWN seconds, starts it again (Stack.revive) and waits until it is ready.
 *
 * A watchdog restarts (and counts as a loss) any component found dead that no fault killed.
 *
 * After the load it waits up to CHAOS_RECOVERY_SECONDS for the system to settle (no workflow of a
 * kind that finishes on its own still running, the webhook dispatcher running, every webhook event
 * of the tenants received), then reconciles and prints:
 * operations attempted/acknowledged per kind, faults per component, and the loss rows (goal 0):
 * acknowledged writes missing, provider charges without exactly one recorded payment or a void,
 * orders without their invoice, workflows not completed, webhook events delivered zero times or
 * under two different ids. Duplicate e-mails (same Message-ID caught twice) are reported beside them
 * (informational: SMTP delivery is at-least-once, and messages the catcher held when it was killed
 * are gone). Exit 0 when every loss row is 0, else 1. Also writes bench/results/chaos.json.
 *
 * Knobs (environment):
 *   CHAOS_SECONDS=300           load duration
 *   CHAOS_TENANTS=3             organizations driving load
 *   CHAOS_FAULT_EVERY=20        seconds between faults (randomised +-50%); 0 = no faults
 *   CHAOS_DOWN=3                seconds a killed component stays down
 *   CHAOS_COMPONENTS=...        comma list overriding the kill rotation
 *   CHAOS_RECOVERY_SECONDS=120  bounded wait for the system to settle after the load
 *   CHAOS_OP_DEADLINE=120       seconds a client keeps retrying one operation
 *   CHAOS_PAUSE_MS=300          pause between two operations of one client loop
 *   CHAOS_SEED                  seed of the jitter (default: time)
 *   KEEP_CHAOS=1                keep the temporary data folder (logs) for inspection
 * The stack runs with WEBHOOK_RETRY_SCALE=0.01 unless set (a delivery that failed while the API or
 * a worker was down is retried within seconds, not the production schedule's minutes to hours).
 */
import '../src/compat/node20.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { RESULTS_DIR } from './lib/bench-results.js';
import { freePorts } from './lib/procs.js';
import { onStopSignals, startStack, type Stack } from './lib/stack.js';
import { WEBHOOK_DISPATCHER_ID } from '../src/domain/webhooks/rules.js';

const num = (k: string, d: number) => (process.env[k] === undefined || process.env[k] === '' ? d : Number(process.env[k]));
const SECONDS = num('CHAOS_SECONDS', 300);
const TENANTS = num('CHAOS_TENANTS', 3);
const FAULT_EVERY = num('CHAOS_FAULT_EVERY', 20);
const DOWN = num('CHAOS_DOWN', 3);
const RECOVERY = num('CHAOS_RECOVERY_SECONDS', 120);
const OP_DEADLINE = num('CHAOS_OP_DEADLINE', 120);
const PAUSE = num('CHAOS_PAUSE_MS', 300);
const ROTATION = (process.env.CHAOS_COMPONENTS ?? 'api,worker,worker-sandbox,postgres,temporal,minio,smtp-catcher').split(',').filter(Boolean);
process.env.WEBHOOK_RETRY_SCALE ??= '0.01';

const PORT_KEYS = [
  'postgres',
  'temporal',
  'temporalUi',
  'minio',
  'minioConsole',
  'smtp',
  'smtpHttp',
  'provider',
  'api',
  'sandboxApi',
  'apiOps',
  'workerOps',
  'workerSdkMetrics',
  'sandboxApiOps',
  'sandboxWorkerOps',
  'sandboxWorkerSdkMetrics',
];
const say = (s: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${s}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A small seeded generator, so a run's fault moments can be repeated (CHAOS_SEED).
let seed = num('CHAOS_SEED', Date.now() % 2 ** 31);
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;

// ---- operations ---------------------------------------------------------------------------------

interface Res {
  status: number;
  body: any;
}
interface Op {
  kind: string;
  key: string;
  acked: boolean;
  attempts: number;
  lastError?: string;
  /** What the reconciliation checks (sku, customer number, cart id, invoice id, ...). */
  ref: Record<string, any>;
}
const ops: Op[] = [];
let stopping = false;

async function once(base: string, method: string, p: string, body: unknown, headers: Record<string, string>, timeoutMs: number): Promise<Res> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

const retryable = (r: Res) =>
  r.status >= 500 || r.status === 429 || r.status === 408 || (r.status === 409 && /still being processed/i.test(JSON.stringify(r.body ?? '')));

/**
 * One call retried until it gets an answer that is not retryable or OP_DEADLINE passes, always with
 * the same Idempotency-Key when `key` is given. Returns the last answer (status 0: no answer).
 */
async function send(
  base: string,
  token: string,
  method: string,
  p: string,
  body?: unknown,
  key?: string,
  deadlineS = OP_DEADLINE,
): Promise<Res & { attempts: number; error?: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (key) headers['Idempotency-Key'] = key;
  const deadline = Date.now() + deadlineS * 1000;
  let attempts = 0;
  let last: Res & { error?: string } = { status: 0, body: undefined, error: 'not sent' };
  while (attempts === 0 || Date.now() < deadline) {
    attempts++;
    try {
      last = await once(base, method, p, body, headers, 30_000);
      if (!retryable(last)) return { ...last, attempts };
      last.error = `${last.status} ${JSON.stringify(last.body).slice(0, 200)}`;
    } catch (e) {
      last = { status: 0, body: undefined, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
    }
    await sleep(Math.min(2000, 200 * attempts));
  }
  return { ...last, attempts };
}

/** Records an operation: attempted now, acknowledged when `fn` answers 2xx. */
async function op(kind: string, ref: Record<string, any>, fn: (key: string) => Promise<Res & { attempts: number; error?: string }>): Promise<Res | undefined> {
  const key = `chaos-${kind}-${randomUUID()}`;
  const o: Op = { kind, key, acked: false, attempts: 0, ref };
  ops.push(o);
  const r = await fn(key);
  o.attempts = r.attempts;
  o.acked = r.status >= 200 && r.status < 300;
  if (!o.acked) o.lastError = r.error ?? `${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
  return o.acked ? r : undefined;
}

// ---- tenants and load ---------------------------------------------------------------------------

interface Tenant {
  n: number;
  organizationId: string;
  token: string;
  customers: string[];
  sku: string;
  cards: Map<string, string>;
  subscribedAt: number;
}

async function must(what: string, r: Promise<Res>, ...ok: number[]): Promise<Res> {
  const res = await r;
  if (!ok.includes(res.status)) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res;
}

const card = {
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber: '4111111111111111', cardholderName: 'Cara Chaos', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
};
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };

async function setupTenant(base: string, n: number, receiverUrl: string): Promise<Tenant> {
  const tag = `${n}-${randomBytes(3).toString('hex')}`;
  const email = `chaos-${tag}@example.com`;
  const password = 'chaos password 1';
  const org = await must(
    'create organization',
    once(
      base,
      'POST',
      '/api/organizations',
      { Organization: { Name: `Chaos ${tag}`, BillingCountry: 'US' }, User: { FirstName: 'Cara', LastName: 'Chaos', Email: email, Password: password } },
      { 'x-forwarded-for': `10.77.0.${n + 1}` },
      30_000,
    ),
    201,
  );
  const token = (
    await must('login', once(base, 'POST', '/api/auth/token', { Email: email, Password: password }, { 'x-forwarded-for': `10.77.0.${n + 1}` }, 30_000), 200)
  ).body.AccessToken as string;
  await must('price tier', send(base, token, 'POST', '/api/organizations/price-tiers', { Name: 'Retail', CurrencyCode: 'USD' }), 200, 409);
  const sku = `CHAOS-${tag}`.toUpperCase();
  await must(
    'product',
    send(base, token, 'PUT', '/api/products', { sku, name: `Chaos product ${tag}`, prices: [{ tier: 'Retail', price: 12.5, atQuantity: 1 }] }),
    200,
    201,
  );
  const customers: string[] = [];
  const cards = new Map<string, string>();
  for (let i = 0; i < 3; i++) {
    const customerNumber = `CC-${tag}-${i}`.toUpperCase();
    await must(
      'customer',
      send(base, token, 'PUT', '/api/customers', {
        customerNumber,
        companyName: `Chaos buyer ${tag} ${i}`,
        companyEmail: `buyer-${tag}-${i}@example.com`,
        pricing: 'Retail',
      }),
      200,
      201,
    );
    const saved = await must(
      'save card',
      send(base, token, 'POST', '/api/payments/payment-methods', {
        customerNumber,
        emailAddress: `buyer-${tag}-${i}@example.com`,
        cardNumber: '4111111111111111',
        expirationMonth: '12',
        expirationYear: String(new Date().getFullYear() + 2),
        cardCode: '123',
        paymentProvider: 'ProviderDirect',
        billingAddress: { firstName: 'Ada', lastName: 'Buyer', address1: '1 Main St', city: 'Springfield', zipCode: '62701', country: 'US' },
      }),
      201,
    );
    customers.push(customerNumber);
    cards.set(customerNumber, saved.body.paymentMethod.paymentProfileId);
  }
  const subscribedAt = Date.now();
  await op('webhook-subscription', { tenant: n }, (key) => send(base, token, 'POST', '/api/webhooks', { url: `${receiverUrl}/t${n}`, events: ['*'] }, key));
  return { n, organizationId: org.body.OrganizationId, token, customers, sku, cards, subscribedAt };
}

async function writesLoop(base: string, t: Tenant): Promise<void> {
  for (let i = 0; !stopping; i++) {
    const id = `${t.n}-${i}-${randomBytes(2).toString('hex')}`.toUpperCase();
    if (i % 2 === 0) {
      const sku = `CHP-${id}`;
      const name = `Chaos item ${id}`;
      await op('product write', { tenant: t.n, sku, name }, () =>
        send(base, t.token, 'PUT', '/api/products', { sku, name, prices: [{ tier: 'Retail', price: 5 + (i % 20), atQuantity: 1 }] }),
      );
    } else {
      const customerNumber = `CHC-${id}`;
      const companyName = `Chaos company ${id}`;
      await op('customer write', { tenant: t.n, customerNumber, companyName }, () =>
        send(base, t.token, 'PUT', '/api/customers', { customerNumber, companyName, companyEmail: `c-${id.toLowerCase()}@example.com`, pricing: 'Retail' }),
      );
    }
    await sleep(PAUSE);
  }
}

async function checkoutLoop(base: string, t: Tenant): Promise<void> {
  for (let i = 0; !stopping; i++) {
    if (i > 0) await sleep(PAUSE);
    const customerNumber = t.customers[i % t.customers.length];
    // Cart and shipping have no Idempotency-Key: a retried cart creation may leave a spare cart, which is harmless.
    const cart = await op('cart', { tenant: t.n }, () =>
      send(base, t.token, 'POST', `/api/carts/${customerNumber}`, { customerNumber, sku: t.sku, quantity: 1 + (i % 3), orderType: 'Standard' }),
    );
    if (!cart) continue;
    const cartId = cart.body.shoppingCartId as string;
    const ship = await op('cart shipping', { tenant: t.n, cartId }, () =>
      send(base, t.token, 'PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { customerNumber, shippingAddress: address }),
    );
    if (!ship) continue;
    await op('card checkout', { tenant: t.n, cartId }, (key) =>
      send(base, t.token, 'POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { customerNumber, channel: 'Web', payment: card }, key),
    );
  }
}

async function invoiceLoop(base: string, t: Tenant): Promise<void> {
  for (let i = 0; !stopping; i++) {
    if (i > 0) await sleep(PAUSE);
    const customerNumber = t.customers[i % t.customers.length];
    const invoiceNumber = `CHI-${t.n}-${i}-${randomBytes(2).toString('hex')}`.toUpperCase();
    const inv = await op('invoice', { tenant: t.n, invoiceNumber }, (key) =>
      send(
        base,
        t.token,
        'POST',
        '/api/invoices',
        {
          orderId: randomUUID(),
          orderNumber: `SO-${invoiceNumber}`,
          invoiceNumber,
          customer: {
            customerNumber,
            companyName: `Chaos buyer ${customerNumber}`,
            companyEmail: `${customerNumber.toLowerCase()}@example.com`,
            companyPhone: '555-0100',
            billingAddress: { address1: '1 Main St', city: 'Springfield', stateProvince: 'IL', zipPostalCode: '62701', country: 'US' },
          },
          primarySalesRep: { repNumber: 'R1', firstName: 'Sam', lastName: 'Seller', email: 'sam@example.com', phoneNumber: '555-0101' },
          invoiceDate: new Date().toISOString(),
          dueDate: new Date(Date.now() + 30 * 86_400_000).toISOString(),
          terms: 'Net30',
          currencyCode: 'USD',
          items: [{ sku: t.sku, productName: 'Chaos product', quantity: 2, price: 30 }],
        },
        key,
      ),
    );
    if (!inv) continue;
    const invoiceId = inv.body.id as string;
    const issued = await op('invoice issue', { tenant: t.n, invoiceId }, () => send(base, t.token, 'POST', `/api/invoices/${invoiceId}/issue`));
    if (!issued) continue;
    const paid = await op('invoice card payment', { tenant: t.n, invoiceId }, (key) =>
      send(
        base,
        t.token,
        'POST',
        `/api/invoices/${invoiceId}/payments`,
        { amount: 60, currencyCode: 'USD', method: 'Card', paymentDate: new Date().toISOString(), paymentProfileId: t.cards.get(customerNumber) },
        key,
      ),
    );
    if (paid && i % 2 === 0)
      await op('invoice refund', { tenant: t.n, invoiceId, amount: 15 }, (key) =>
        send(base, t.token, 'POST', `/api/invoices/${invoiceId}/refunds`, { amount: 15, reason: 'chaos partial refund' }, key),
      );
  }
}

async function importJob(base: string, t: Tenant): Promise<void> {
  const prefix = `CHM-${t.n}-${randomBytes(2).toString('hex')}`.toUpperCase();
  const records = Array.from({ length: 300 }, (_, i) => ({
    sku: `${prefix}-${i}`,
    name: `Imported ${i}`,
    prices: [{ tier: 'Retail', price: 3 + (i % 7), atQuantity: 1 }],
  }));
  await op('import job', { tenant: t.n, prefix, count: records.length }, (key) =>
    send(base, t.token, 'POST', '/api/imports', { kind: 'products', records }, key),
  );
}

// ---- webhook receiver and mailbox ---------------------------------------------------------------

interface Delivery {
  webhookId: string;
  type: string;
  data: string;
}
function startReceiver(): Promise<{ url: string; deliveries: Delivery[]; close: () => void }> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let json: any = {};
      try {
        json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        /* not JSON */
      }
      deliveries.push({ webhookId: String(req.headers['webhook-id'] ?? ''), type: String(json?.type ?? ''), data: JSON.stringify(json?.data ?? null) });
      res.writeHead(200);
      res.end('ok');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, deliveries, close: () => server.close() }),
    ),
  );
}

/** Every message the catcher ever held, by (catcher generation, id): a restarted catcher starts empty and numbers from 1 again. */
const mails = new Map<string, string>();
let mailGeneration = 0;
async function pollMailbox(url: string): Promise<void> {
  try {
    const list = (await (await fetch(`${url}/messages`, { signal: AbortSignal.timeout(5000) })).json()) as { id: number; messageId: string }[];
    for (const m of list) mails.set(`${mailGeneration}:${m.id}`, m.messageId);
  } catch {
    /* down: the next poll catches up */
  }
}

// ---- faults ---------------------------------------------------------------------------------------

const faults: { component: string; at: string; downMs: number; reviveMs: number; error?: string }[] = [];
/** Components found dead that no fault had killed (a crash the run provoked), each restarted by the watchdog. */
const crashes: { component: string; at: string; error?: string }[] = [];
let busy: Promise<void> = Promise.resolve();
/** The component a fault has killed on purpose (the watchdog leaves it alone). */
let faulting: string | null = null;

/** Every 2 s: a component of the rotation not running and not killed on purpose has crashed; it is recorded and started again. */
function watchdog(stack: Stack, components: string[]): () => Promise<void> {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await sleep(2000);
      await busy;
      for (const c of components) {
        if (stopped || c === faulting || stack.running(c)) continue;
        const crash: (typeof crashes)[number] = { component: c, at: new Date().toISOString() };
        crashes.push(crash);
        say(`CRASH: ${c} is not running (no fault killed it); starting it again`);
        await stack.revive(c).catch((e) => (crash.error = e instanceof Error ? e.message : String(e)));
      }
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

async function faultLoop(stack: Stack, mailbox: string, until: number): Promise<void> {
  if (FAULT_EVERY <= 0) return;
  const available = stack.components();
  const rotation = ROTATION.filter((c) => available.includes(c));
  for (let i = 0; ; i++) {
    const wait = FAULT_EVERY * 1000 * (0.5 + rand());
    if (Date.now() + wait >= until) return;
    await sleep(wait);
    const component = rotation[i % rotation.length];
    const f: (typeof faults)[number] = { component, at: new Date().toISOString(), downMs: 0, reviveMs: 0 };
    faults.push(f);
    let release!: () => void;
    busy = new Promise((r) => (release = r));
    try {
      if (component === 'smtp-catcher') await pollMailbox(mailbox);
      faulting = component;
      const t0 = Date.now();
      await stack.kill(component);
      say(`fault ${faults.length}: SIGKILL ${component}`);
      await sleep(DOWN * 1000);
      f.downMs = Date.now() - t0;
      const t1 = Date.now();
      if (component === 'smtp-catcher') mailGeneration++;
      await stack.revive(component);
      f.reviveMs = Date.now() - t1;
      say(`  ${component} ready again after ${((f.downMs + f.reviveMs) / 1000).toFixed(1)} s`);
    } catch (e) {
      f.error = e instanceof Error ? e.message : String(e);
      say(`  ${component}: ${f.error}`);
    } finally {
      faulting = null;
      release();
    }
  }
}

// ---- reconciliation -----------------------------------------------------------------------------

/** Workflow types that wait on business timers (due dates, reminders, schedules) and are expected to be running still. */
const LONG_LIVED = new Set([
  'collectInvoice',
  'issueInvoice',
  'dispatchWebhookEvents',
  'paymentJanitor',
  'negotiateQuote',
  'approvePurchase',
  'commissionStatement',
]);

interface Report {
  date: string;
  machine: string;
  loadAverage: string;
  seconds: number;
  tenants: number;
  operations: Record<string, { attempted: number; acknowledged: number; retried: number }>;
  faults: Record<string, number>;
  faultFailures: number;
  crashes: { component: string; at: string; error?: string }[];
  loss: Record<string, number>;
  info: Record<string, number | string>;
  details: Record<string, unknown[]>;
}

async function reconcile(
  stack: Stack,
  tenants: Tenant[],
  deliveries: Delivery[],
  workflowsTotal: number,
  workflowsStillRunning: Map<string, number>,
  workflowBad: { id: string; type: string; status: string }[],
): Promise<Report> {
  const base = stack.urls.api;
  const byTenant = new Map(tenants.map((t) => [t.n, t]));
  const details: Record<string, unknown[]> = {};
  const note = (k: string, v: unknown) => (details[k] ??= []).push(v);
  const db = new pg.Client({ connectionString: stack.env.production.DATABASE_URL });
  await db.connect();
  const orgs = tenants.map((t) => t.organizationId);
  let missing = 0;
  const acked = ops.filter((o) => o.acked);

  for (const o of acked) {
    const t = byTenant.get(o.ref.tenant)!;
    let ok = true;
    if (o.kind === 'product write') {
      const r = await send(base, t.token, 'GET', `/api/products/${encodeURIComponent(o.ref.sku)}`, undefined, undefined, 30);
      ok = r.status === 200 && r.body?.name === o.ref.name;
    } else if (o.kind === 'customer write') {
      const r = await send(base, t.token, 'GET', `/api/customers/${encodeURIComponent(o.ref.customerNumber)}`, undefined, undefined, 30);
      ok = r.status === 200 && r.body?.companyName === o.ref.companyName;
    } else if (o.kind === 'card checkout') {
      const rows = await db.query('select count(*)::int n from sales_order where organization_id = $1 and origination_cart_id = $2', [
        t.organizationId,
        o.ref.cartId,
      ]);
      ok = rows.rows[0].n === 1;
    } else if (o.kind === 'invoice') {
      const rows = await db.query('select count(*)::int n from invoice where organization_id = $1 and invoice_number = $2', [
        t.organizationId,
        o.ref.invoiceNumber,
      ]);
      ok = rows.rows[0].n === 1;
    } else if (o.kind === 'invoice card payment') {
      const rows = await db.query("select count(*)::int n from invoice_payment where organization_id = $1 and invoice_id = $2 and method = 'Card'", [
        t.organizationId,
        o.ref.invoiceId,
      ]);
      ok = rows.rows[0].n === 1;
    } else if (o.kind === 'invoice refund') {
      const rows = await db.query('select coalesce(sum(refunded_amount), 0)::float8 r from invoice_payment where organization_id = $1 and invoice_id = $2', [
        t.organizationId,
        o.ref.invoiceId,
      ]);
      ok = rows.rows[0].r === o.ref.amount;
    } else if (o.kind === 'import job') {
      const rows = await db.query('select count(*)::int n from product where organization_id = $1 and sku like $2', [t.organizationId, `${o.ref.prefix}-%`]);
      ok = rows.rows[0].n === o.ref.count;
    } else if (o.kind === 'webhook-subscription') {
      const r = await send(base, t.token, 'GET', '/api/webhooks', undefined, undefined, 30);
      ok = r.status === 200 && JSON.stringify(r.body).includes(`/t${t.n}`);
    }
    if (!ok) {
      missing++;
      note('acknowledged writes missing', { kind: o.kind, key: o.key, ref: o.ref });
    }
  }

  // Provider charges: each approved charge has exactly one recorded payment (an order's or an invoice's), or a void.
  const ledger = (
    (await (await fetch(`${stack.urls.provider}/ledger`)).json()) as {
      entries: { kind: string; chargeId: string; amount: string; idempotencyKey: string; reference: string | null }[];
    }
  ).entries;
  const charges = ledger.filter((e) => e.kind === 'charge');
  const voided = new Set(ledger.filter((e) => e.kind === 'void').map((e) => e.chargeId));
  let chargeLoss = 0;
  for (const c of charges) {
    // A checkout's charge is named by its order and by the payment on the order's invoice: one payment.
    const r = await db.query(
      `select (select count(*) from invoice_payment where provider_charge_id = $1)::int
            + (select count(*) from sales_order o where o.payment_charge_id = $1 and not exists (
                 select 1 from invoice i join invoice_payment p on p.organization_id = i.organization_id and p.invoice_id = i.id
                  where i.organization_id = o.organization_id and i.order_id = o.id and p.provider_charge_id = $1))::int n`,
      [c.chargeId],
    );
    const recorded = r.rows[0].n as number;
    const fine = (recorded === 1 && !voided.has(c.chargeId)) || (recorded === 0 && voided.has(c.chargeId));
    if (!fine) {
      chargeLoss++;
      note('provider charges without exactly one payment or a void', {
        chargeId: c.chargeId,
        idempotencyKey: c.idempotencyKey,
        amount: c.amount,
        recorded,
        voided: voided.has(c.chargeId),
      });
    }
  }

  const noInvoice = await db.query(
    `select o.order_number from sales_order o where o.organization_id = any($1::uuid[])
       and not exists (select 1 from invoice i where i.organization_id = o.organization_id and i.order_id = o.id)`,
    [orgs],
  );
  for (const r of noInvoice.rows) note('orders without their invoice', r.order_number);
  const dupOrders = await db.query(
    `select origination_cart_id, count(*)::int n from sales_order where organization_id = any($1::uuid[]) and origination_cart_id is not null group by 1 having count(*) > 1`,
    [orgs],
  );
  for (const r of dupOrders.rows) note('carts with more than one order', r);

  // Webhooks: every event of the tenants since their subscription reached the receiver, and under one id only.
  const received = new Set(deliveries.map((d) => d.webhookId));
  let undelivered = 0;
  let events = 0;
  for (const t of tenants) {
    const rows = await db.query('select id, type from webhook_event where organization_id = $1 and occurred_at >= $2', [
      t.organizationId,
      new Date(t.subscribedAt + 1000),
    ]);
    events += rows.rowCount ?? 0;
    for (const e of rows.rows) {
      if (!received.has(e.id)) {
        undelivered++;
        const d = await db.query('select status, attempts, last_status_code, last_error, next_attempt_at from webhook_delivery where organization_id = $1 and event_id = $2', [t.organizationId, e.id]);
        const ev = await db.query('select dispatched_at, occurred_at from webhook_event where id = $1', [e.id]);
        note('webhook events delivered zero times', { id: e.id, type: e.type, event: ev.rows[0], deliveries: d.rows });
      }
    }
  }
  const idsByContent = new Map<string, Set<string>>();
  for (const d of deliveries) {
    const k = `${d.type} ${d.data}`;
    if (!idsByContent.has(k)) idsByContent.set(k, new Set());
    idsByContent.get(k)!.add(d.webhookId);
  }
  let twoIds = 0;
  for (const [k, ids] of idsByContent) {
    if (ids.size > 1) {
      twoIds++;
      note('webhook events delivered under two different ids', { content: k.slice(0, 200), ids: [...ids] });
    }
  }
  await db.end();

  const seenMessageIds = new Map<string, number>();
  for (const id of mails.values()) seenMessageIds.set(id, (seenMessageIds.get(id) ?? 0) + 1);
  const dupMails = [...seenMessageIds.values()].filter((n) => n > 1).length;

  const operations: Report['operations'] = {};
  for (const o of ops) {
    const s = (operations[o.kind] ??= { attempted: 0, acknowledged: 0, retried: 0 });
    s.attempted++;
    if (o.acked) s.acknowledged++;
    if (o.attempts > 1) s.retried++;
  }
  const unacked = new Map<string, number>();
  for (const o of ops.filter((x) => !x.acked)) {
    const k = `${o.kind}: ${(o.lastError ?? '').slice(0, 160)}`;
    unacked.set(k, (unacked.get(k) ?? 0) + 1);
  }
  for (const [k, n] of unacked) note('operations not acknowledged (kind: last answer)', { count: n, what: k });
  const faultCounts: Record<string, number> = {};
  for (const f of faults) faultCounts[f.component] = (faultCounts[f.component] ?? 0) + 1;
  for (const w of workflowBad) note('workflows not completed', w);
  for (const c of crashes) note('components that crashed on their own', c);
  const [l1, l5] = loadavg();
  return {
    date: new Date().toISOString(),
    machine: `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}`,
    loadAverage: `${l1.toFixed(2)} (1 min), ${l5.toFixed(2)} (5 min)`,
    seconds: SECONDS,
    tenants: TENANTS,
    operations,
    faults: faultCounts,
    faultFailures: faults.filter((f) => f.error).length,
    crashes,
    loss: {
      'components that crashed on their own': crashes.length,
      'acknowledged writes missing': missing,
      'provider charges without exactly one payment or a void': chargeLoss,
      'orders without their invoice': noInvoice.rowCount ?? 0,
      'carts with more than one order': dupOrders.rowCount ?? 0,
      'workflows not completed after recovery': workflowBad.length,
      'webhook events delivered zero times': undelivered,
      'webhook events delivered under two different ids': twoIds,
    },
    info: {
      'workflows of the tenants': workflowsTotal,
      'provider charges': charges.length,
      'provider voids': voided.size,
      'webhook events (since subscription)': events,
      'webhook deliveries received': deliveries.length,
      'e-mails caught': mails.size,
      'duplicate e-mails (same Message-ID caught twice)': dupMails,
      'long-lived workflows waiting on timers': [...workflowsStillRunning].map(([k, v]) => `${k} ${v}`).join(', ') || 'none',
    },
    details,
  };
}

/** Waits until no workflow of the tenants that finishes on its own is running; returns what is still open or failed. */
async function settle(
  temporal: Client,
  tenants: Tenant[],
  deadline: number,
): Promise<{ total: number; longLived: Map<string, number>; bad: { id: string; type: string; status: string }[] }> {
  for (;;) {
    let total = 0;
    const longLived = new Map<string, number>();
    const bad: { id: string; type: string; status: string }[] = [];
    try {
      for (const t of tenants) {
        for await (const w of temporal.workflow.list({ query: `OrganizationId = '${t.organizationId}'` })) {
          const status = w.status.name;
          total++;
          if (status === 'COMPLETED' || status === 'CONTINUED_AS_NEW') continue;
          if (status === 'RUNNING' && LONG_LIVED.has(w.type)) longLived.set(w.type, (longLived.get(w.type) ?? 0) + 1);
          else bad.push({ id: w.workflowId, type: w.type, status });
        }
      }
    } catch (e) {
      bad.push({ id: 'list', type: 'error', status: e instanceof Error ? e.message : String(e) });
    }
    if (bad.every((b) => b.status !== 'RUNNING' && b.type !== 'error') || Date.now() > deadline) return { total, longLived, bad };
    await sleep(3000);
  }
}

function printReport(r: Report): void {
  const line = (k: string, v: string | number) => console.log(`| ${k.padEnd(58)} | ${String(v).padStart(10)} |`);
  console.log(`\nChaos report: ${r.seconds} s of load from ${r.tenants} tenants; ${r.date}; ${r.machine}; load average ${r.loadAverage}\n`);
  console.log(`| ${'operation'.padEnd(40)} | attempted | acknowledged | retried |`);
  console.log(`|${'-'.repeat(42)}|-----------|--------------|---------|`);
  for (const [k, v] of Object.entries(r.operations))
    console.log(`| ${k.padEnd(40)} | ${String(v.attempted).padStart(9)} | ${String(v.acknowledged).padStart(12)} | ${String(v.retried).padStart(7)} |`);
  console.log('');
  console.log(`| ${'faults injected (SIGKILL, then restart)'.padEnd(58)} | ${'count'.padStart(10)} |`);
  console.log(`|${'-'.repeat(60)}|${'-'.repeat(12)}|`);
  for (const [k, v] of Object.entries(r.faults)) line(k, v);
  if (r.faultFailures) line('restarts that failed', r.faultFailures);
  console.log('');
  console.log(`| ${'loss (goal 0)'.padEnd(58)} | ${'count'.padStart(10)} |`);
  console.log(`|${'-'.repeat(60)}|${'-'.repeat(12)}|`);
  for (const [k, v] of Object.entries(r.loss)) line(k, v);
  console.log('');
  for (const [k, v] of Object.entries(r.info)) console.log(`  ${k}: ${v}`);
  for (const [k, v] of Object.entries(r.details)) {
    console.log(`\n  ${k} (${v.length}):`);
    for (const d of v.slice(0, 10)) console.log(`    ${JSON.stringify(d).slice(0, 400)}`);
  }
}

// ---- main -----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'b2b-chaos-'));
  chmodSync(root, 0o755);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const s of stops.splice(0)) await s().catch(() => undefined);
  };
  onStopSignals(() => void stopAll().then(() => process.exit(130)));
  let exitCode = 1;
  try {
    const free = await freePorts(PORT_KEYS.length);
    PORT_KEYS.forEach((k, i) => (process.env[`PORT_${k.toUpperCase()}`] = String(free[i])));
    say(`data folder ${root}; ${SECONDS} s, ${TENANTS} tenants, a fault every ~${FAULT_EVERY} s over ${ROTATION.join(', ')}; seed ${seed}`);
    const stack = await startStack({ mode: 'dev', dataDir: root, say: (s) => say(`  ${s}`), onStop: (s) => stops.push(s) });
    const receiver = await startReceiver();
    const base = stack.urls.api;
    const tenants: Tenant[] = [];
    for (let n = 0; n < TENANTS; n++) tenants.push(await setupTenant(base, n, receiver.url));
    say(`tenants ready: ${tenants.map((t) => t.organizationId).join(', ')}`);

    const until = Date.now() + SECONDS * 1000;
    const mailTimer = setInterval(() => void pollMailbox(stack.urls.mailbox), 2000);
    const loops: Promise<void>[] = [];
    for (const t of tenants) {
      loops.push(writesLoop(base, t), checkoutLoop(base, t), invoiceLoop(base, t));
      // One import job per tenant, started a little into the run so it meets faults.
      loops.push(sleep(Math.min(20_000, SECONDS * 100) + t.n * 3000).then(() => importJob(base, t)));
    }
    const progress = setInterval(() => say(`${ops.length} operations, ${ops.filter((o) => o.acked).length} acknowledged, ${faults.length} faults`), 30_000);
    const stopWatchdog = watchdog(
      stack,
      ROTATION.filter((c) => stack.components().includes(c)),
    );
    const injecting = faultLoop(stack, stack.urls.mailbox, until);
    await sleep(Math.max(0, until - Date.now()));
    stopping = true;
    say('load stopped; waiting for the clients and the last restart');
    await Promise.all([...loops, injecting]);
    await busy;
    clearInterval(progress);

    say(`recovery: waiting up to ${RECOVERY} s for workflows to settle`);
    const deadline = Date.now() + RECOVERY * 1000;
    const connection = await Connection.connect({ address: stack.urls.temporal });
    const temporal = new Client({ connection, namespace: 'default' });
    const settled = await settle(temporal, tenants, deadline);
    // The webhook outbox dispatcher serves every organization (no OrganizationId): it must still be running.
    const dispatcher = await temporal.workflow
      .getHandle(WEBHOOK_DISPATCHER_ID)
      .describe()
      .then((d) => d.status.name as string)
      .catch((e) => `unknown: ${e instanceof Error ? e.message : String(e)}`);
    if (dispatcher !== 'RUNNING') settled.bad.push({ id: WEBHOOK_DISPATCHER_ID, type: 'dispatchWebhookEvents', status: dispatcher });
    // Webhook deliveries of the last events: until every event of the tenants reached the receiver, within the same bound.
    const events = new pg.Client({ connectionString: stack.env.production.DATABASE_URL });
    await events.connect();
    for (;;) {
      const got = new Set(receiver.deliveries.map((d) => d.webhookId));
      let pending = 0;
      for (const t of tenants) {
        const rows = await events.query('select id from webhook_event where organization_id = $1 and occurred_at >= $2', [t.organizationId, new Date(t.subscribedAt + 1000)]);
        pending += rows.rows.filter((r) => !got.has(r.id)).length;
      }
      if (pending === 0 || Date.now() > deadline) break;
      say(`  ${pending} webhook events not delivered yet`);
      await sleep(5000);
    }
    await events.end();
    await connection.close();
    clearInterval(mailTimer);
    await pollMailbox(stack.urls.mailbox);
    // Reconciliation reads through the API: everything must be up (the watchdog restarts what crashed).
    await stopWatchdog();
    for (const c of stack.components())
      if (!stack.running(c)) {
        crashes.push({ component: c, at: new Date().toISOString() });
        say(`CRASH: ${c} is not running; starting it again before the reconciliation`);
        await stack.revive(c);
      }

    const report = await reconcile(stack, tenants, receiver.deliveries, settled.total, settled.longLived, settled.bad);
    receiver.close();
    printReport(report);
    // No benchmark rows (`npm run bench` lists the rows of every file there): the report rides beside them.
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = path.join(RESULTS_DIR, 'chaos.json');
    writeFileSync(file, `${JSON.stringify({ benchmark: 'chaos', ranAt: report.date, rows: [], report }, null, 2)}\n`);
    say(`wrote ${file}`);
    const lost = Object.values(report.loss).reduce((a, b) => a + b, 0) + report.faultFailures;
    console.log(`\n${lost === 0 ? 'CHAOS OK: nothing lost' : `CHAOS FAILED: ${lost} in the loss rows`}`);
    exitCode = lost === 0 ? 0 : 1;
  } catch (e) {
    console.error(`[chaos] ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  } finally {
    stopping = true;
    await stopAll();
    if (process.env.KEEP_CHAOS) say(`kept ${root}`);
    else rmSync(root, { recursive: true, force: true });
  }
  process.exit(exitCode);
}

void main();
