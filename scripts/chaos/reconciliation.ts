/**
 * The chaos run's reconciliation: after the load, wait for the tenants' workflows to settle, then
 * check every acknowledged write, charge, order, workflow, webhook event and e-mail against the
 * database, the API and the receivers, into the report's loss rows (goal 0).
 */
import { cpus, loadavg } from 'node:os';
import type { Client } from '@temporalio/client';
import pg from 'pg';
import type { Stack } from '../lib/stack.js';
import { SECONDS, sleep, TENANTS } from './config.js';
import { crashes, faults } from './faults.js';
import { mails, ops, send, type Delivery, type Tenant } from './load.js';

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

export interface Report {
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

export async function reconcile(
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
export async function settle(
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
