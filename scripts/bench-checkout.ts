/**
 * Checkout benchmark (not a test): `npm run bench:checkout` (env BENCH_CHECKOUTS=200, BENCH_CONCURRENCY=8).
 * Starts the whole stack on free ports, creates an organization, a product and one customer per
 * client, then each client loops: create cart -> set shipping -> complete-checkout with a card
 * (workflow checkout-<cartId>: charge at the provider sandbox, order, cart closed, e-mail).
 * Prints checkouts per second and p50/p99 of the complete-checkout call, beside the rate of an
 * empty workflow with one no-op activity (benchNoop) on the same Temporal server, served by a
 * worker inside this script on the `bench` queue (no production queue registers the baseline).
 */
import '../src/compat/node20.js';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startBenchWorker } from './lib/bench-worker.js';
import { startStack } from './lib/stack.js';

const N = Number(process.env.BENCH_CHECKOUTS ?? 200);
const C = Number(process.env.BENCH_CONCURRENCY ?? 8);

async function api(base: string, method: string, p: string, body?: unknown, token?: string) {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function pool(total: number, concurrency: number, work: (worker: number, i: number) => Promise<number>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (next < total) latencies.push(await work(w, next++));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { rate: total / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99), seconds };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'b2b-bench-'));
  const stack = await startStack({ mode: 'test', dataDir, say: (s) => console.log(`[bench] ${s}`) });
  try {
    const base = stack.urls.api;
    const email = `bench-${randomUUID()}@example.com`;
    await api(base, 'POST', '/api/organizations', { Organization: { Name: `Bench ${randomUUID()}` }, User: { FirstName: 'B', LastName: 'Ench', Email: email, Password: 'bench password 1' } });
    const { AccessToken: token } = await api(base, 'POST', '/api/auth/token', { Email: email, Password: 'bench password 1' });
    await api(base, 'POST', '/api/organizations/price-tiers', { Name: 'Retail', CurrencyCode: 'USD' }, token);
    await api(base, 'PUT', '/api/products', { sku: 'BENCH-1', name: 'Bench widget', prices: [{ tier: 'Retail', price: 12.5, atQuantity: 1 }] }, token);
    const customers: string[] = [];
    for (let w = 0; w < C; w++) {
      const customerNumber = `BC-${w}-${randomUUID().slice(0, 6)}`;
      await api(base, 'PUT', '/api/customers', { customerNumber, companyName: `Bench ${w}`, companyEmail: `bench${w}@example.com`, pricing: 'Retail' }, token);
      customers.push(customerNumber);
    }
    const card = { billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' }, creditCard: { cardNumber: '4111111111111111', cardholderName: 'Bench', expiryMonth: '12', expiryYear: '2031', cvv: '123' } };
    const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
    // Warm-up: one checkout per client (first workflow tasks, JIT, connection pools).
    const runOne = async (w: number): Promise<number> => {
      const customerNumber = customers[w];
      const cart = await api(base, 'POST', `/api/carts/${customerNumber}`, { customerNumber, sku: 'BENCH-1', quantity: 2, orderType: 'Standard' }, token);
      await api(base, 'PUT', `/api/carts/${customerNumber}/${cart.shoppingCartId}/shipping`, { customerNumber, shippingAddress: address }, token);
      const t0 = performance.now();
      await api(base, 'POST', `/api/carts/${customerNumber}/${cart.shoppingCartId}/complete-checkout`, { customerNumber, channel: 'Web', payment: card }, token);
      return performance.now() - t0;
    };
    await pool(C, C, (w) => runOne(w));
    const checkout = await pool(N, C, (w) => runOne(w));

    const connection = await Connection.connect({ address: stack.urls.temporal });
    const client = new Client({ connection, namespace: 'default' });
    const bench = await startBenchWorker(stack.urls.temporal);
    const noopOne = async () => {
      const t0 = performance.now();
      await client.workflow.execute('benchNoop', { taskQueue: bench.taskQueue, workflowId: `bench-noop-${randomUUID()}` });
      return performance.now() - t0;
    };
    await pool(C, C, noopOne);
    const noop = await pool(N, C, noopOne);
    await bench.stop();
    await connection.close();

    const f = (n: number) => n.toFixed(1);
    console.log(`\ncheckouts: ${N} with ${C} concurrent clients (2-core machine, whole stack local)`);
    console.log(`  complete-checkout   ${f(checkout.rate)} checkouts/s   p50 ${f(checkout.p50)} ms   p99 ${f(checkout.p99)} ms`);
    console.log(`  empty workflow + 1 no-op activity   ${f(noop.rate)} workflows/s   p50 ${f(noop.p50)} ms   p99 ${f(noop.p99)} ms`);
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
