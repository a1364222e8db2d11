/**
 * Checkout with tracked stock beside checkout without (issue 41 item 6; not a test):
 * `npm run build && node dist/scripts/bench/checkout-stock.js` (env BENCH_CHECKOUTS=64 per kind,
 * BENCH_CONCURRENCY=4, BENCH_ROUNDS=4, BENCH_COUNTED=6, BENCH_SQL_WIDTH=160). Against API_URL /
 * DATABASE_URL (as `npm run bench` passes them) or a stack of its own. One organization with a
 * default stock location, three untracked products and three tracked ones (1,000,000 units each
 * at the location), one customer per client. Each iteration makes a cart of three lines (the
 * untracked SKUs, or the tracked ones), sets shipping and checks out with a card. The two kinds
 * alternate in BENCH_ROUNDS rounds, so a slow spell of a shared machine falls on both; the
 * untracked checkout's rate is the floor. Statements: BENCH_COUNTED checkouts of each kind,
 * alternating, one at a time, counted at the server with pg_stat_statements from the
 * complete-checkout call until the database is quiet (the workflow and its children done), as
 * bench:checkout counts them. Goal (docs/benchmarks.md): at most 2 statements more, within 10% of the rate.
 * Writes bench/results/checkout-stock.json.
 */
import '../../src/compat/node20.js';
import { randomUUID } from 'node:crypto';
import { rateRatio, round, statementCounter, writeResults, type StatementCounter } from '../lib/bench-results.js';
import { benchTarget } from '../lib/bench-target.js';
import { requestOk, setupOrganization } from '../lib/api-client.js';

const N = Number(process.env.BENCH_CHECKOUTS ?? 64);
const C = Number(process.env.BENCH_CONCURRENCY ?? 4);
const COUNTED = Number(process.env.BENCH_COUNTED ?? 6);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 4));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const api = (base: string, method: string, p: string, body?: unknown, token?: string) => requestOk(base, method, p, body, { token });

/** Statements since the last reset once the database has been quiet for `quietMs` (at most 30 s). */
async function settled(counter: StatementCounter, t0: number, quietMs = 1500): Promise<number> {
  let last = await counter.count();
  let lastAt = performance.now();
  let quietSince = lastAt;
  for (;;) {
    await sleep(250);
    const n = await counter.count();
    const now = performance.now();
    if (n - last > 2) quietSince = now;
    last = n;
    lastAt = now;
    if (now - quietSince >= quietMs || now - t0 > 30_000) return n;
  }
}

type Kind = 'untracked' | 'tracked';

async function main(): Promise<void> {
  const target = await benchTarget((s) => console.log(`[bench] ${s}`));
  try {
    const base = target.api;
    const { token } = await setupOrganization(base, { name: `Bench stock ${randomUUID()}`, tag: randomUUID(), billingCountry: null, user: { FirstName: 'B', LastName: 'Ench' } });
    await api(base, 'POST', '/api/stock-locations', { name: 'Main', code: 'MAIN', priority: 10 }, token);
    const skus: Record<Kind, string[]> = { untracked: ['BU-1', 'BU-2', 'BU-3'], tracked: ['BT-1', 'BT-2', 'BT-3'] };
    for (const sku of skus.untracked) await api(base, 'PUT', '/api/products', { sku, name: sku, prices: [{ tier: 'Retail', price: 12.5, atQuantity: 1 }] }, token);
    for (const sku of skus.tracked) await api(base, 'PUT', '/api/products', { sku, name: sku, trackInventory: true, prices: [{ tier: 'Retail', price: 12.5, atQuantity: 1 }] }, token);
    await api(base, 'PUT', '/api/inventory', { items: skus.tracked.map((sku) => ({ sku, location: 'MAIN', receive: 1_000_000 })) }, token);
    const customers: string[] = [];
    for (let w = 0; w < C; w++) {
      const customerNumber = `BS-${w}-${randomUUID().slice(0, 6)}`;
      await api(base, 'PUT', '/api/customers', { customerNumber, companyName: `Bench ${w}`, companyEmail: `benchs${w}@example.com`, pricing: 'Retail' }, token);
      customers.push(customerNumber);
    }
    const card = { billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' }, creditCard: { cardNumber: '4111111111111111', cardholderName: 'Bench', expiryMonth: '12', expiryYear: '2031', cvv: '123' } };
    const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
    const cartOf = async (kind: Kind, customerNumber: string): Promise<string> => {
      const [first, ...rest] = skus[kind];
      const cart = await api(base, 'POST', `/api/carts/${customerNumber}`, { customerNumber, sku: first, quantity: 2, orderType: 'Standard' }, token);
      for (const sku of rest) await api(base, 'POST', `/api/carts/${customerNumber}/${cart.shoppingCartId}/items`, { customerNumber, sku, quantity: 1 }, token);
      await api(base, 'PUT', `/api/carts/${customerNumber}/${cart.shoppingCartId}/shipping`, { customerNumber, shippingAddress: address }, token);
      return cart.shoppingCartId as string;
    };
    const checkout = (customerNumber: string, id: string) => api(base, 'POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, { customerNumber, channel: 'Web', payment: card }, token);
    const rounds: Record<Kind, { n: number; seconds: number; latencies: number[] }> = { untracked: { n: 0, seconds: 0, latencies: [] }, tracked: { n: 0, seconds: 0, latencies: [] } };
    const runRound = async (kind: Kind, total: number) => {
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        customers.map(async (customerNumber) => {
          while (next++ < total) {
            const id = await cartOf(kind, customerNumber);
            const s = performance.now();
            await checkout(customerNumber, id);
            rounds[kind].latencies.push(performance.now() - s);
          }
        }),
      );
      rounds[kind].n += total;
      rounds[kind].seconds += (performance.now() - t0) / 1000;
      await sleep(2000);
    };
    await runRound('untracked', C);
    await runRound('tracked', C);
    rounds.untracked = { n: 0, seconds: 0, latencies: [] };
    rounds.tracked = { n: 0, seconds: 0, latencies: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const n = Math.ceil(N / ROUNDS);
      // Alternate which kind goes first.
      for (const kind of (r % 2 ? ['tracked', 'untracked'] : ['untracked', 'tracked']) as Kind[]) await runRound(kind, n);
    }
    const rate = (k: Kind) => rounds[k].n / rounds[k].seconds;
    const p50 = (k: Kind) => [...rounds[k].latencies].sort((a, b) => a - b)[Math.floor(rounds[k].latencies.length / 2)];

    const counter = await statementCounter(target.databaseUrl);
    const sums: Record<Kind, number> = { untracked: 0, tracked: 0 };
    const texts: Record<Kind, Map<string, number>> = { untracked: new Map(), tracked: new Map() };
    if (counter.available) {
      for (let k = 0; k < COUNTED; k++) {
        for (const kind of ['untracked', 'tracked'] as Kind[]) {
          const customerNumber = customers[k % C];
          const id = await cartOf(kind, customerNumber);
          await sleep(500);
          await counter.reset();
          const t0 = performance.now();
          await checkout(customerNumber, id);
          sums[kind] += await settled(counter, t0);
          for (const t of await counter.top(80)) texts[kind].set(t.query, (texts[kind].get(t.query) ?? 0) + t.calls);
        }
      }
    }
    await counter.close();
    const per = (k: Kind) => sums[k] / COUNTED;
    const width = Number(process.env.BENCH_SQL_WIDTH ?? 160);
    const f = (n: number) => n.toFixed(1);
    console.log(`\ncheckout, 3 lines: untracked ${f(rate('untracked'))}/s (p50 ${f(p50('untracked'))} ms), tracked ${f(rate('tracked'))}/s (p50 ${f(p50('tracked'))} ms)`);
    if (counter.available) {
      console.log(`statements per checkout: untracked ${f(per('untracked'))}, tracked ${f(per('tracked'))} (difference ${f(per('tracked') - per('untracked'))})`);
      console.log('statements only the tracked checkout runs (or runs more often):');
      for (const [q, n] of texts.tracked) {
        const d = (n - (texts.untracked.get(q) ?? 0)) / COUNTED;
        if (d > 0.05) console.log(`  +${d.toFixed(1).padStart(4)}  ${q.replace(/\s+/g, ' ').slice(0, width)}`);
      }
    }
    writeResults('checkout-stock', [
      {
        name: `complete-checkout of 3 tracked lines (reservations), ${C} clients`,
        figure: round(rate('tracked'), 2),
        unit: 'checkouts/s',
        floor: round(rate('untracked'), 2),
        ratio: rateRatio(rate('tracked'), rate('untracked')),
        statementsPerOp: counter.available ? round(per('tracked'), 1) : null,
        notes:
          `floor: the same checkout of 3 untracked lines in the same run (${ROUNDS} alternating rounds, ${N} each); p50 ${f(p50('tracked'))} ms vs ${f(p50('untracked'))} ms; ` +
          (counter.available
            ? `statements: tracked ${f(per('tracked'))}, untracked ${f(per('untracked'))} (+${f(per('tracked') - per('untracked'))}; goal at most +2), counted alone ${COUNTED}x each`
            : 'statements not counted (pg_stat_statements absent)'),
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
