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
 * `npm run chaos -- --cluster` runs the same on `npm run cluster`'s topology (scripts/lib/cluster.ts) and
 * kills one node of each kind in turn: an API process behind HAProxy, a worker of each environment,
 * a Temporal history process, the matching process, a MinIO node and the PostgreSQL replica.
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
 *
 * The run's parts: config.ts (knobs), load.ts (client, tenants,
 * loops, receiver, mailbox), faults.ts (fault injector, watchdog), reconciliation.ts (settle,
 * reconcile), report.ts.
 */
import '../../src/compat/node20.js';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { WEBHOOK_DISPATCHER_ID } from '../../src/domain/webhooks/rules.js';
import { freePorts } from '../lib/procs.js';
import { PORTS as CLUSTER_PORTS, startCluster } from '../lib/cluster.js';
import { onStopSignals, startStack } from '../lib/stack.js';
import { FAULT_EVERY, ON_CLUSTER, PORT_KEYS, RECOVERY, ROTATION, say, SECONDS, seed, sleep, TENANTS } from './config.js';
import { crashes, faultLoop, faults, faultsIdle, watchdog } from './faults.js';
import { importJob, checkoutLoop, invoiceLoop, ops, pollMailbox, setupTenant, startReceiver, stopLoad, writesLoop, type Tenant } from './load.js';
import { reconcile, settle } from './reconciliation.js';
import { printReport, writeReport } from './report.js';

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
    // Mode 'dev' (data kept on disk across each component's restart) on free ports.
    const portKeys = ON_CLUSTER ? Object.keys(CLUSTER_PORTS) : PORT_KEYS;
    const free = await freePorts(portKeys.length);
    portKeys.forEach((k, i) => (process.env[`PORT_${k.toUpperCase()}`] = String(free[i])));
    say(`data folder ${root}; ${ON_CLUSTER ? 'the cluster; ' : ''}${SECONDS} s, ${TENANTS} tenants, a fault every ~${FAULT_EVERY} s over ${ROTATION.join(', ')}; seed ${seed}`);
    const launch = { mode: 'dev' as const, dataDir: root, say: (s: string) => say(`  ${s}`), onStop: (s: () => Promise<void>) => stops.push(s) };
    const stack = ON_CLUSTER ? await startCluster(launch) : await startStack(launch);
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
    stopLoad();
    say('load stopped; waiting for the clients and the last restart');
    await Promise.all([...loops, injecting]);
    await faultsIdle();
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
    say(`wrote ${writeReport(report)}`);
    const lost = Object.values(report.loss).reduce((a, b) => a + b, 0) + report.faultFailures;
    console.log(`\n${lost === 0 ? 'CHAOS OK: nothing lost' : `CHAOS FAILED: ${lost} in the loss rows`}`);
    exitCode = lost === 0 ? 0 : 1;
  } catch (e) {
    console.error(`[chaos] ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  } finally {
    stopLoad();
    await stopAll();
    if (process.env.KEEP_CHAOS) say(`kept ${root}`);
    else rmSync(root, { recursive: true, force: true });
  }
  process.exit(exitCode);
}

void main();
