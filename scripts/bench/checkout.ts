/**
 * Checkout benchmark (not a test): `npm run bench:checkout` (env BENCH_CHECKOUTS=200, BENCH_CONCURRENCY=8,
 * BENCH_ROUNDS=4, BENCH_COUNTED=10, BENCH_SQL_WIDTH=160: characters of each statement's text printed). Runs against API_URL/DATABASE_URL/TEMPORAL_ADDRESS (as `npm run bench` passes
 * them) or starts the whole stack on free ports; creates an organization, a product and one
 * customer per client, then each client loops: create cart -> set shipping -> complete-checkout
 * with a card (workflow checkout-<cartId>: charge at the provider sandbox, order, cart closed,
 * invoice, e-mail). Measures checkouts per second and p50/p99 of the complete-checkout call,
 * beside the rate of an empty workflow with one no-op activity (benchNoop) on the same Temporal
 * server, the two alternating in BENCH_ROUNDS rounds of BENCH_CHECKOUTS / BENCH_ROUNDS each, served by a worker inside this script on the `bench` queue (no production queue
 * registers the baseline).
 *
 * Statements: BENCH_COUNTED more checkouts run one at a time; for each, pg_stat_statements is
 * reset before the complete-checkout call and read once the database has been quiet for a while
 * (the workflow and the child workflows it starts have finished), less the webhook poller's statements
 * (told apart by text), so the count covers the API request and every worker step. The stack runs
 * with the deployment's timings (productionTimings: the outbox polled once a second, reminders at the due date).
 * CPU: each process kind's CPU time per iteration (the checkout rounds and the pause after each, in
 * which the workflows of a round's last checkouts finish, less the idle stack's CPU over a pause of
 * the same length read before the first round) and per empty workflow (its rounds), read from /proc
 * (scripts/lib/process-cpu.ts); printed and in the row's notes.
 * Writes bench/results/checkout.json (scripts/lib/bench-results.ts).
 */
import '../../src/compat/node20.js';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { rateRatio, round, statementCounter, writeResults, type StatementCounter } from '../lib/bench-results.js';
import { benchTarget } from '../lib/bench-target.js';
import { addCpu, cpuPerOp, readCpu } from '../lib/process-cpu.js';
import { startBenchWorker } from '../lib/bench-worker.js';
import { requestOk, setupOrganization } from '../lib/api-client.js';

const N = Number(process.env.BENCH_CHECKOUTS ?? 200);
const C = Number(process.env.BENCH_CONCURRENCY ?? 8);
const COUNTED = Number(process.env.BENCH_COUNTED ?? 10);
// Checkout and the empty workflow alternate in this many rounds of N / ROUNDS each, so a slow spell of a shared machine falls on both.
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 4));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The pause after each round (and the idle stack's CPU is read over one of the same length). */
const PAUSE_MS = 3000;

/**
 * Statements since the last reset once the database has run nothing beyond the idle stack's own
 * pollers for `quietMs` (at most 30 s), less the idle rate over the whole time.
 */
async function settled(counter: StatementCounter, t0: number, idlePerMs: number, quietMs = 1500): Promise<number> {
  let last = await counter.count();
  let lastAt = performance.now();
  let quietSince = lastAt;
  for (;;) {
    await sleep(250);
    const n = await counter.count();
    const now = performance.now();
    if (n - last > idlePerMs * (now - lastAt) * 2 + 2) quietSince = now;
    last = n;
    lastAt = now;
    if (now - quietSince >= quietMs || now - t0 > 30_000) return Math.max(0, n - idlePerMs * (now - t0));
  }
}

const api = (base: string, method: string, p: string, body?: unknown, token?: string) => requestOk(base, method, p, body, { token });

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

interface Round {
  latencies: number[];
  seconds: number;
  startedAt: number;
  endedAt: number;
}

async function pool(total: number, concurrency: number, work: (worker: number, i: number) => Promise<number>): Promise<Round> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const startedAt = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (next < total) latencies.push(await work(w, next++));
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000, startedAt, endedAt: Date.now() };
}

/** Rounds of one kind taken together: operations over their summed time, percentiles over every latency. */
function summary(rounds: Round[]) {
  const latencies = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = rounds.reduce((t, r) => t + r.seconds, 0);
  const perRound = rounds.map((r) => (r.latencies.length / r.seconds).toFixed(1)).join(', ');
  return { rate: latencies.length / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99), perRound, windows: rounds.map((r) => `${r.startedAt}-${r.endedAt}`).join(', ') };
}

async function main(): Promise<void> {
  const target = await benchTarget((s) => console.log(`[bench] ${s}`));
  if (!target.temporal) throw new Error('TEMPORAL_ADDRESS is required with API_URL');
  try {
    const base = target.api;
    const { token } = await setupOrganization(base, { name: `Bench ${randomUUID()}`, tag: randomUUID(), billingCountry: null, user: { FirstName: 'B', LastName: 'Ench' } });
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
    const connection = await Connection.connect({ address: target.temporal });
    const client = new Client({ connection, namespace: 'default' });
    const bench = await startBenchWorker(target.temporal);
    const noopOne = async () => {
      const t0 = performance.now();
      await client.workflow.execute('benchNoop', { taskQueue: bench.taskQueue, workflowId: `bench-noop-${randomUUID()}` });
      return performance.now() - t0;
    };
    await pool(C, C, (w) => runOne(w));
    await pool(C, C, noopOne);
    const checkoutRounds: Round[] = [];
    const noopRounds: Round[] = [];
    // CPU of each process kind (scripts/lib/process-cpu.ts): which process spends a checkout's CPU.
    const checkoutCpu = new Map<string, number>();
    const noopCpu = new Map<string, number>();
    const withCpu = async <T>(cpu: Map<string, number>, run: () => Promise<T>): Promise<T> => {
      const before = readCpu();
      const result = await run();
      addCpu(cpu, before, readCpu());
      return result;
    };
    // The idle stack's own CPU (pollers, timers) over a pause, once the warm-up's workflows have finished.
    await sleep(PAUSE_MS);
    const idleCpu = new Map<string, number>();
    await withCpu(idleCpu, () => sleep(PAUSE_MS));
    for (let r = 0; r < ROUNDS; r++) {
      const n = Math.ceil(N / ROUNDS);
      // A pause after each round: a checkout's children (issuance, e-mail) finish after its call returns, and must not fall on
      // the next round. The checkouts' CPU includes the pause, so the workflows the round's last checkouts started are
      // counted, less the idle stack's CPU over it.
      checkoutRounds.push(
        await withCpu(checkoutCpu, async () => {
          const round = await pool(n, C, (w) => runOne(w));
          await sleep(PAUSE_MS);
          return round;
        }),
      );
      for (const [kind, ms] of idleCpu) checkoutCpu.set(kind, (checkoutCpu.get(kind) ?? 0) - ms);
      noopRounds.push(await withCpu(noopCpu, () => pool(n, C, noopOne)));
      await sleep(PAUSE_MS);
    }
    await bench.stop();
    await connection.close();
    const checkout = summary(checkoutRounds);
    const noop = summary(noopRounds);
    // The windows' wall-clock bounds, to match them with process CPU samples taken beside the run.
    console.log(`[bench] complete-checkout: ${checkout.rate.toFixed(2)} checkouts/s, p50 ${checkout.p50.toFixed(1)} ms, p99 ${checkout.p99.toFixed(1)} ms (windows ${checkout.windows} ms since the epoch)`);
    console.log(`[bench] empty workflow: ${noop.rate.toFixed(2)} workflows/s (windows ${noop.windows} ms since the epoch)`);
    const cpuCheckout = cpuPerOp(checkoutCpu, checkoutRounds.reduce((t, r) => t + r.latencies.length, 0));
    const cpuNoop = cpuPerOp(noopCpu, noopRounds.reduce((t, r) => t + r.latencies.length, 0));

    // Statements per checkout, one at a time (see the header).
    const counter = await statementCounter(target.databaseUrl);
    let perCheckout: number | null = null;
    let perCartAndShipping: number | null = null;
    let top: { calls: number; query: string }[] = [];
    if (counter.available) {
      // The webhook poller is left out by count(); nothing else runs idle, so no rate is subtracted
      // (a rate measured right after the timed loop would include its last workflows).
      const idlePerMs = 0;
      let sumCheckout = 0;
      let sumCart = 0;
      const calls = new Map<string, number>();
      const cartCalls = new Map<string, number>();
      for (let k = 0; k < COUNTED; k++) {
        const customerNumber = customers[k % C];
        await counter.reset();
        let t0 = performance.now();
        const cart = await api(base, 'POST', `/api/carts/${customerNumber}`, { customerNumber, sku: 'BENCH-1', quantity: 2, orderType: 'Standard' }, token);
        await api(base, 'PUT', `/api/carts/${customerNumber}/${cart.shoppingCartId}/shipping`, { customerNumber, shippingAddress: address }, token);
        sumCart += await settled(counter, t0, idlePerMs, 500);
        for (const t of await counter.top(60)) cartCalls.set(t.query, (cartCalls.get(t.query) ?? 0) + t.calls);
        await counter.reset();
        t0 = performance.now();
        await api(base, 'POST', `/api/carts/${customerNumber}/${cart.shoppingCartId}/complete-checkout`, { customerNumber, channel: 'Web', payment: card }, token);
        sumCheckout += await settled(counter, t0, idlePerMs);
        for (const t of await counter.top(60)) calls.set(t.query, (calls.get(t.query) ?? 0) + t.calls);
      }
      perCheckout = sumCheckout / COUNTED;
      perCartAndShipping = sumCart / COUNTED;
      top = [...calls].map(([query, n]) => ({ calls: n / COUNTED, query })).sort((a, b) => b.calls - a.calls);
      console.log(`\nstatements per checkout: ${perCheckout.toFixed(1)}; cart + shipping: ${perCartAndShipping.toFixed(1)}`);
      const width = Number(process.env.BENCH_SQL_WIDTH ?? 160);
      for (const t of top.slice(0, 60)) console.log(`  ${t.calls.toFixed(1).padStart(5)}  ${t.query.slice(0, width)}`);
      console.log('\ncart + shipping:');
      for (const [query, n] of [...cartCalls].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${(n / COUNTED).toFixed(1).padStart(5)}  ${query.slice(0, width)}`);
    }
    await counter.close();

    const f = (n: number) => n.toFixed(1);
    console.log(`\ncheckouts: ${N} with ${C} concurrent clients in ${ROUNDS} rounds alternating with the empty workflow (2-core machine, whole stack local)`);
    console.log(`  complete-checkout   ${f(checkout.rate)} checkouts/s   p50 ${f(checkout.p50)} ms   p99 ${f(checkout.p99)} ms   rounds ${checkout.perRound}/s`);
    console.log(`  empty workflow + 1 no-op activity   ${f(noop.rate)} workflows/s   p50 ${f(noop.p50)} ms   p99 ${f(noop.p99)} ms   rounds ${noop.perRound}/s`);
    console.log(`  CPU ms per checkout iteration: ${cpuCheckout}`);
    console.log(`  CPU ms per empty workflow: ${cpuNoop}`);
    console.log(`  CPU ms of the idle stack over a ${PAUSE_MS} ms pause (taken off each checkout round's): ${cpuPerOp(idleCpu, 1)}`);
    writeResults('checkout', [
      {
        name: `complete-checkout, ${C} clients (cart + shipping + checkout per iteration)`,
        figure: round(checkout.rate, 2),
        unit: 'checkouts/s',
        floor: round(noop.rate, 2),
        ratio: rateRatio(checkout.rate, noop.rate),
        statementsPerOp: perCheckout === null ? null : round(perCheckout, 1),
        notes:
          `p50 ${f(checkout.p50)} ms, p99 ${f(checkout.p99)} ms (complete-checkout call), rounds ${checkout.perRound}/s; floor: empty workflow + 1 no-op activity on the same Temporal server, p50 ${f(noop.p50)} ms, p99 ${f(noop.p99)} ms, rounds ${noop.perRound}/s, in ${ROUNDS} rounds alternating with the checkouts (a floor p99 of seconds is a stalled round, which lowers the floor and flatters the ratio); ` +
          `statements: the checkout call and every workflow it starts (charge, order, invoice, e-mail), API and workers, counted alone ${COUNTED}x` +
          (perCartAndShipping === null ? '' : `; creating the cart and setting shipping adds ${perCartAndShipping.toFixed(1)}`) +
          `; CPU ms per iteration (cart, shipping, checkout and its workflows) by process: ${cpuCheckout}; per empty workflow: ${cpuNoop}`,
      },
    ]);
  } finally {
    await target.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
