/**
 * The service on the engines of a production deployment, as local processes on loopback (`npm run cluster`,
 * docs/cluster.md): PostgreSQL 15 primary and streaming replica (Debian's postgresql-15), the Temporal server
 * on PostgreSQL with frontend, two history, matching and worker services as separate processes and its Web UI,
 * MinIO erasure-coded over four nodes, HAProxy in front of the two production APIs and of MinIO, two workers
 * per environment, the SMTP catcher and the provider sandbox. What it shares with the dev stack (secrets, the
 * services' environment, migrations, the helpers, the API and worker processes, the supervisor) comes from
 * stack.ts and supervisor.ts.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { ensureAll, ensureBinaries, goModuleDir } from './binaries.js';
import { httpOk, tcpOpen, waitFor, type ProcOptions } from './procs.js';
import { createDatabases, databaseUrl, DIST, pickPorts, SEARCH_ATTRIBUTE_TYPES, SEARCH_ATTRIBUTES, secrets, serviceEnv, startApp, startHelpers, type EnvName, type StackInfo } from './stack.js';
import { Supervisor, type Components } from './supervisor.js';
import { runMigrations } from '../../src/migrate.js';

const run = promisify(execFile);

export interface ClusterOptions {
  /** 'dev': fixed ports (PORT_* overrides), data kept; 'test': free ports. */
  mode: 'dev' | 'test';
  dataDir: string;
  say: (s: string) => void;
  /** Receives stop() before anything starts, so a launcher can stop a start that is still under way. */
  onStop?: (stop: () => Promise<void>) => void;
}

export interface Cluster extends StackInfo, Components {
  stop(): Promise<void>;
}

/** The cluster's named ports (each overridden by PORT_<NAME> in mode 'dev'). */
export const PORTS = {
  api: 3100, // HAProxy: api-1, api-2
  sandboxApi: 3101, // the sandbox's one API process, no balancer
  api1: 3111,
  api2: 3112,
  api1Ops: 9511,
  api2Ops: 9512,
  sandboxApiOps: 9513,
  worker1Ops: 9521,
  worker2Ops: 9522,
  sandboxWorker1Ops: 9523,
  sandboxWorker2Ops: 9524,
  worker1Sdk: 9531,
  worker2Sdk: 9532,
  sandboxWorker1Sdk: 9533,
  sandboxWorker2Sdk: 9534,
  postgres: 5441,
  postgresReplica: 5442,
  temporal: 7333, // frontend gRPC
  frontendHttp: 7334,
  frontendMembership: 7335,
  frontendMetrics: 7336,
  history1: 7341,
  history1Membership: 7342,
  history1Metrics: 7343,
  history2: 7351,
  history2Membership: 7352,
  history2Metrics: 7353,
  matching: 7361,
  matchingMembership: 7362,
  matchingMetrics: 7363,
  temporalWorker: 7371,
  temporalWorkerMembership: 7372,
  temporalWorkerMetrics: 7373,
  temporalUi: 8333,
  minio: 9100, // HAProxy: minio-1..4
  minio1: 9101,
  minio2: 9102,
  minio3: 9103,
  minio4: 9104,
  minioConsole: 9111,
  minioConsole2: 9112,
  minioConsole3: 9113,
  minioConsole4: 9114,
  balancerStats: 8404,
  smtp: 1125,
  smtpHttp: 1180,
  provider: 4110,
};
type Port = Record<keyof typeof PORTS, number>;

const PG_BIN = '/usr/lib/postgresql/15/bin';

/** Installs a Debian package whose binary is missing (the project's scripts install what they need; nothing by hand). */
function ensurePackage(binary: string, pkg: string, say: (s: string) => void): void {
  if (existsSync(binary)) return;
  say(`${binary} is missing: installing Debian's ${pkg} (apt-get install -y ${pkg}) ...`);
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const apt = (args: string[]): void => {
    execFileSync(sudo[0] ?? 'apt-get', [...(sudo.length ? ['apt-get'] : []), ...args], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  try {
    apt(['install', '-y', pkg]);
  } catch {
    apt(['update']);
    apt(['install', '-y', pkg]);
  }
  if (!existsSync(binary)) throw new Error(`${pkg} installed but ${binary} is still missing`);
}

/** PostgreSQL refuses to run as root: as root, its processes run as Debian's 'postgres' user. */
function postgresUser(): ProcOptions {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function pgReady(url: string, wantRecovery: boolean): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    const r = await c.query<{ r: boolean }>('select pg_is_in_recovery() as r');
    return r.rows[0].r === wantRecovery;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** The primary (initdb on first start) and its streaming replica (pg_basebackup -R on first start), both as supervised processes. */
async function startPostgres(sup: Supervisor, dataDir: string, port: Port, say: (s: string) => void): Promise<{ primary: string; replica: string }> {
  ensurePackage(path.join(PG_BIN, 'pg_basebackup'), 'postgresql-15', say);
  const user = postgresUser();
  const asPostgres = (dir: string): void => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (user.uid !== undefined) chownSync(dir, user.uid, user.gid!);
  };
  const primaryDir = path.join(dataDir, 'postgres');
  const replicaDir = path.join(dataDir, 'postgres-replica');
  const env = { PGPASSWORD: 'postgres' };
  const flags = (p: number): string[] => ['-c', `port=${p}`, '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'wal_level=replica', '-c', 'max_wal_senders=4', '-c', 'wal_keep_size=512MB', '-c', 'hot_standby=on', '-c', 'max_connections=300'];
  const url = (p: number): string => `postgres://postgres:postgres@127.0.0.1:${p}/postgres`;

  if (!existsSync(path.join(primaryDir, 'PG_VERSION'))) {
    say(`PostgreSQL: initialising the primary in ${primaryDir}`);
    asPostgres(primaryDir);
    const pwFile = path.join(primaryDir, '..', 'postgres-password.tmp');
    writeFileSync(pwFile, 'postgres\n', { mode: 0o600 });
    if (user.uid !== undefined) chownSync(pwFile, user.uid, user.gid!);
    try {
      await run(path.join(PG_BIN, 'initdb'), ['-D', primaryDir, '-U', 'postgres', '--pwfile', pwFile, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--locale=C'], user);
    } finally {
      rmSync(pwFile, { force: true });
    }
  }
  say(`PostgreSQL: primary on 127.0.0.1:${port.postgres}`);
  await sup.start('postgres', path.join(PG_BIN, 'postgres'), ['-D', primaryDir, ...flags(port.postgres)], {}, () => pgReady(url(port.postgres), false), 60_000, { ...user, stopSignal: 'SIGINT' });
  sup.notStopped();

  if (!existsSync(path.join(replicaDir, 'PG_VERSION'))) {
    say(`PostgreSQL: copying the primary into the replica (pg_basebackup -R) in ${replicaDir}`);
    asPostgres(replicaDir);
    await run(path.join(PG_BIN, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(port.postgres), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream'], { ...user, env: { ...process.env, ...env } });
  }
  say(`PostgreSQL: streaming replica on 127.0.0.1:${port.postgresReplica}`);
  await sup.start('postgres-replica', path.join(PG_BIN, 'postgres'), ['-D', replicaDir, ...flags(port.postgresReplica)], {}, () => pgReady(url(port.postgresReplica), true), 60_000, { ...user, stopSignal: 'SIGINT' });
  return { primary: url(port.postgres), replica: url(port.postgresReplica) };
}

/** MinIO erasure-coded over four nodes (one drive folder each), all ready once the cluster has write quorum. */
async function startMinio(sup: Supervisor, dataDir: string, port: Port, minioBin: string, env: Record<string, string>, say: (s: string) => void): Promise<void> {
  const nodes = [port.minio1, port.minio2, port.minio3, port.minio4];
  const consoles = [port.minioConsole, port.minioConsole2, port.minioConsole3, port.minioConsole4];
  const drives = nodes.map((p, i) => `http://127.0.0.1:${p}${path.join(dataDir, 'minio', `drive${i + 1}`)}`);
  for (let i = 0; i < nodes.length; i++) mkdirSync(path.join(dataDir, 'minio', `drive${i + 1}`), { recursive: true });
  say(`MinIO: four nodes on 127.0.0.1:${nodes.join(', ')} (erasure-coded)`);
  const procs = nodes.map((p, i) =>
    sup.launch(
      `minio-${i + 1}`,
      minioBin,
      ['server', '--address', `127.0.0.1:${p}`, '--console-address', `127.0.0.1:${consoles[i]}`, '--quiet', ...drives],
      // The drives share the root disk: MINIO_CI_CD lets MinIO accept that (every MINIO_* must be the same on all nodes).
      // Where MinIO believes it runs in a container (/.dockerenv) it waits for loopback hosts to resolve elsewhere;
      // _MINIO_SERVER_LOCAL names its own node.
      { ...env, MINIO_CI_CD: '1', _MINIO_SERVER_LOCAL: `127.0.0.1:${p}` },
      () => httpOk(`http://127.0.0.1:${p}/minio/health/ready`),
      120_000,
    ),
  );
  await Promise.all(procs.map((proc, i) => waitFor(proc.name, () => httpOk(`http://127.0.0.1:${nodes[i]}/minio/health/cluster`), 120_000, proc)));
}

const TEMPORAL_SERVICES = [
  { name: 'temporal-frontend', service: 'frontend', grpc: 'temporal', membership: 'frontendMembership', metrics: 'frontendMetrics' },
  { name: 'temporal-history-1', service: 'history', grpc: 'history1', membership: 'history1Membership', metrics: 'history1Metrics' },
  { name: 'temporal-history-2', service: 'history', grpc: 'history2', membership: 'history2Membership', metrics: 'history2Metrics' },
  { name: 'temporal-matching', service: 'matching', grpc: 'matching', membership: 'matchingMembership', metrics: 'matchingMetrics' },
  { name: 'temporal-worker', service: 'worker', grpc: 'temporalWorker', membership: 'temporalWorkerMembership', metrics: 'temporalWorkerMetrics' },
] as const;

/**
 * One Temporal server config per process (`--env <process>` reads <config dir>/<process>.yaml; JSON is YAML):
 * the same persistence and cluster, the process's own gRPC, membership and metrics ports.
 */
function temporalConfigs(dir: string, port: Port): void {
  mkdirSync(dir, { recursive: true });
  const store = (db: string, maxConns: number) => ({ sql: { pluginName: 'postgres12', databaseName: db, connectAddr: `127.0.0.1:${port.postgres}`, connectProtocol: 'tcp', user: 'postgres', password: 'postgres', maxConns, maxIdleConns: maxConns, maxConnLifetime: '1h' } });
  const rpc = (grpc: number, membership: number) => ({ rpc: { grpcPort: grpc, membershipPort: membership, bindOnLocalHost: true } });
  // The dev server's setting (stack.ts): search-attribute definitions are cached, not re-read on every use.
  writeFileSync(path.join(dir, 'dynamic-config.yaml'), 'system.forceSearchAttributesCacheRefreshOnRead:\n  - value: false\n');
  for (const t of TEMPORAL_SERVICES) {
    const services = {
      frontend: { rpc: { ...rpc(port.temporal, port.frontendMembership).rpc, httpPort: port.frontendHttp } },
      history: t.service === 'history' ? rpc(port[t.grpc], port[t.membership]) : rpc(port.history1, port.history1Membership),
      matching: rpc(port.matching, port.matchingMembership),
      worker: rpc(port.temporalWorker, port.temporalWorkerMembership),
    };
    const config = {
      log: { stdout: true, level: 'warn' },
      persistence: { defaultStore: 'default', visibilityStore: 'visibility', numHistoryShards: 4, datastores: { default: store('temporal', 10), visibility: store('temporal_visibility', 5) } },
      global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' }, metrics: { prometheus: { framework: 'tally', timerType: 'histogram', listenAddress: `127.0.0.1:${port[t.metrics]}` } } },
      services,
      clusterMetadata: {
        enableGlobalNamespace: false,
        failoverVersionIncrement: 10,
        masterClusterName: 'active',
        currentClusterName: 'active',
        clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${port.temporal}`, httpAddress: `127.0.0.1:${port.frontendHttp}` } },
      },
      dcRedirectionPolicy: { policy: 'noop' },
      archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
      namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
      publicClient: { hostPort: `127.0.0.1:${port.temporal}` },
      dynamicConfigClient: { filepath: path.join(dir, 'dynamic-config.yaml'), pollInterval: '10s' },
    };
    writeFileSync(path.join(dir, `${t.name}.yaml`), JSON.stringify(config, null, 2));
  }
}

/** Temporal's two databases on the primary, created and brought to the schema of go.temporal.io/server's version with temporal-sql-tool. */
async function temporalSchema(sqlTool: string, baseUrl: string, port: Port, say: (s: string) => void): Promise<void> {
  const schemaRoot = path.join(goModuleDir('temporalServer', 'go.temporal.io/server'), 'schema/postgresql/v12');
  const c = new pg.Client({ connectionString: baseUrl });
  await c.connect();
  const existing = new Set((await c.query<{ datname: string }>("select datname from pg_database where datname like 'temporal%'")).rows.map((r) => r.datname));
  await c.end();
  for (const [db, dir] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    const tool = (...args: string[]) => run(sqlTool, ['--plugin', 'postgres12', '--endpoint', '127.0.0.1', '--port', String(port.postgres), '--user', 'postgres', '--password', 'postgres', '--database', db, ...args]);
    if (!existing.has(db)) {
      say(`Temporal: creating database ${db}`);
      await tool('create-database');
      await tool('setup-schema', '-v', '0.0');
    }
    await tool('update-schema', '-d', path.join(schemaRoot, dir, 'versioned'));
  }
}

/** Registers each namespace and its search attributes where missing (the CLI, against the frontend). */
async function temporalNamespaces(cli: string, address: string, say: (s: string) => void): Promise<void> {
  const t = (...args: string[]) => run(cli, [...args, '--address', address], { encoding: 'utf8' });
  for (const ns of ['default', 'sandbox']) {
    const exists = await t('operator', 'namespace', 'describe', '--namespace', ns).then(
      () => true,
      () => false,
    );
    if (!exists) {
      say(`Temporal: registering namespace ${ns}`);
      await t('operator', 'namespace', 'create', '--namespace', ns);
    }
    // A new namespace reaches the frontend's cache within seconds; until then its search attributes cannot be added.
    await waitFor(`namespace ${ns}`, async () => {
      const have = (await t('operator', 'search-attribute', 'list', '--namespace', ns)).stdout;
      const missing = SEARCH_ATTRIBUTES.filter((sa) => !new RegExp(`\\b${sa}\\b`).test(have));
      if (!missing.length) return true;
      const args = missing.flatMap((sa) => ['--name', sa, '--type', SEARCH_ATTRIBUTE_TYPES[sa] ?? 'Keyword']);
      await t('operator', 'search-attribute', 'create', '--namespace', ns, ...args);
      return false;
    }, 120_000);
  }
}

/** HAProxy: the production APIs (checked on their ops port's /ready) and the MinIO nodes, each behind one port. */
function balancerConfig(file: string, port: Port): void {
  const lines = [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 5m',
    '  timeout server 5m',
    // A request whose connection fails goes to the other server (not one already sent: it may have run).
    '  retries 3',
    '  option redispatch',
    '  default-server inter 1s fall 2 rise 2',
    // No API ready (e.g. the primary is gone: /ready fails everywhere): the service's own 503 shape, with Retry-After.
    `  http-error status 503 content-type application/problem+json string '{"type":"http://127.0.0.1:${port.api}/problems#unavailable","title":"Service Unavailable","status":503,"detail":"No API process is ready; retry after 5 seconds."}' hdr Retry-After 5`,
    `frontend api`,
    `  bind 127.0.0.1:${port.api}`,
    '  default_backend api',
    'backend api',
    '  balance roundrobin',
    '  option forwardfor',
    '  option httpchk GET /ready',
    '  http-check expect status 200',
    `  server api-1 127.0.0.1:${port.api1} check port ${port.api1Ops}`,
    `  server api-2 127.0.0.1:${port.api2} check port ${port.api2Ops}`,
    'frontend s3',
    `  bind 127.0.0.1:${port.minio}`,
    '  default_backend minio',
    'backend minio',
    '  balance leastconn',
    '  option httpchk GET /minio/health/live',
    ...[port.minio1, port.minio2, port.minio3, port.minio4].map((p, i) => `  server minio-${i + 1} 127.0.0.1:${p} check`),
    'listen stats',
    `  bind 127.0.0.1:${port.balancerStats}`,
    '  stats enable',
    '  stats uri /',
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
}

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const { mode, dataDir, say } = opts;
  mkdirSync(dataDir, { recursive: true });
  // PostgreSQL runs as the 'postgres' user when we are root: it must traverse dataDir.
  chmodSync(dataDir, 0o755);
  const logDir = path.join(dataDir, 'logs');
  const extraPidsFile = path.join(dataDir, 'extra-pids.txt');
  const sup = new Supervisor(logDir, say, extraPidsFile);
  opts.onStop?.(sup.stop);
  try {
    ensurePackage('/usr/sbin/haproxy', 'haproxy', say);
    const bins = { ...(await ensureBinaries(say)), ...(await ensureAll(['temporalServer', 'temporalSqlTool', 'temporalUi'] as const, say)) };
    const port = await pickPorts(PORTS, { free: mode !== 'dev', launcher: 'npm run cluster' });
    const sec = secrets(mode, dataDir);
    const dbNames: Record<EnvName, string> = { production: 'commerce', sandbox: 'commerce_sandbox' };

    const { primary: baseUrl, replica: replicaBaseUrl } = await startPostgres(sup, dataDir, port, say);
    sup.notStopped();
    await createDatabases(baseUrl, Object.values(dbNames));

    const minioUser = 'commerce-admin';
    await Promise.all([startMinio(sup, dataDir, port, bins.minio, { MINIO_ROOT_USER: minioUser, MINIO_ROOT_PASSWORD: sec.minioPassword }, say), startHelpers(sup, port, sec)]);
    sup.notStopped();

    await temporalSchema(bins.temporalSqlTool, baseUrl, port, say);
    const configDir = path.join(dataDir, 'temporal');
    temporalConfigs(configDir, port);
    say(`Temporal: frontend 127.0.0.1:${port.temporal}, history x2, matching, worker (numHistoryShards 4)`);
    const launchTemporal = (t: (typeof TEMPORAL_SERVICES)[number]) =>
      sup.launch(t.name, bins.temporalServer, ['--root', '/', '--config', configDir, '--env', t.name, '--allow-no-auth', 'start', '--service', t.service], {}, () => tcpOpen(port[t.membership]), 120_000);
    // The frontend first, alone: each process writes the cluster metadata when it finds none, and on a new
    // database processes started together race for that insert, the losers exiting (duplicate key).
    const [first, ...rest] = TEMPORAL_SERVICES;
    await waitFor(first.name, () => tcpOpen(port[first.membership]), 120_000, launchTemporal(first));
    for (const t of rest) launchTemporal(t);
    const frontend = `127.0.0.1:${port.temporal}`;
    await waitFor('Temporal cluster', async () => (await run(bins.temporal, ['operator', 'cluster', 'health', '--address', frontend], { encoding: 'utf8' })).stdout.includes('SERVING'), 180_000);
    await Promise.all(TEMPORAL_SERVICES.map((t) => waitFor(t.name, () => tcpOpen(port[t.membership]), 120_000, sup.procs.find((p) => p.name === t.name))));
    await temporalNamespaces(bins.temporal, frontend, say);
    const uiDir = path.join(configDir, 'ui');
    mkdirSync(uiDir, { recursive: true });
    writeFileSync(path.join(uiDir, 'cluster.yaml'), JSON.stringify({ temporalGrpcAddress: frontend, host: '127.0.0.1', port: port.temporalUi, enableUi: true, defaultNamespace: 'default', cors: { cookieInsecure: true } }, null, 2));
    await sup.start('temporal-ui', bins.temporalUi, ['--root', '/', '--config', uiDir, '--env', 'cluster', 'start'], {}, () => httpOk(`http://127.0.0.1:${port.temporalUi}/`), 60_000);
    sup.notStopped();

    const env = {} as Record<EnvName, Record<string, string>>;
    for (const name of ['production', 'sandbox'] as const) {
      env[name] = serviceEnv(
        mode,
        name,
        {
          publicUrls: { production: `http://127.0.0.1:${port.api}`, sandbox: `http://127.0.0.1:${port.sandboxApi}` },
          databaseUrl: databaseUrl(baseUrl, dbNames[name]),
          // The APIs read lists and reports there once it has caught up (docs/scaling.md "Reads on the replica").
          replicaUrl: databaseUrl(replicaBaseUrl, dbNames[name]),
          temporal: frontend,
          s3Endpoint: `http://127.0.0.1:${port.minio}`,
          minioUser,
          smtp: `smtp://127.0.0.1:${port.smtp}`,
          provider: `http://127.0.0.1:${port.provider}`,
          // Production's APIs sit behind HAProxy (option forwardfor), which appends the address it saw; the sandbox's API
          // is reached directly. Tests act as one trusted proxy more (they send X-Forwarded-For), in front of HAProxy.
          trustProxy: String((name === 'production' ? 1 : 0) + (mode === 'test' ? 1 : 0)),
        },
        sec,
      );
      say(`Migrations: applying to ${dbNames[name]}`);
      await runMigrations(env[name].DATABASE_URL);
      sup.notStopped();
    }

    // HAProxy before the apps: they reach MinIO through it; the APIs join its backend once ready.
    const haproxyCfg = path.join(dataDir, 'haproxy.cfg');
    balancerConfig(haproxyCfg, port);
    say(`HAProxy: API on 127.0.0.1:${port.api}, S3 on 127.0.0.1:${port.minio}`);
    await sup.start('balancer', '/usr/sbin/haproxy', ['-db', '-f', haproxyCfg], {}, () => httpOk(`http://127.0.0.1:${port.minio}/minio/health/live`), 60_000);

    const worker = (name: EnvName, ops: number, sdk: number) => ({ ...env[name], OPS_PORT: String(ops), TEMPORAL_METRICS_PORT: String(sdk) });
    await Promise.all([
      startApp(sup, 'worker-1', worker('production', port.worker1Ops, port.worker1Sdk)),
      startApp(sup, 'worker-2', worker('production', port.worker2Ops, port.worker2Sdk)),
      startApp(sup, 'worker-sandbox-1', worker('sandbox', port.sandboxWorker1Ops, port.sandboxWorker1Sdk)),
      startApp(sup, 'worker-sandbox-2', worker('sandbox', port.sandboxWorker2Ops, port.sandboxWorker2Sdk)),
      startApp(sup, 'api-1', { ...env.production, OPS_PORT: String(port.api1Ops) }, port.api1),
      startApp(sup, 'api-2', { ...env.production, OPS_PORT: String(port.api2Ops) }, port.api2),
      startApp(sup, 'api-sandbox', { ...env.sandbox, OPS_PORT: String(port.sandboxApiOps) }, port.sandboxApi),
    ]);
    sup.notStopped();

    await waitFor('the API through HAProxy', () => httpOk(`http://127.0.0.1:${port.api}/ready`), 60_000);

    const urls: Record<string, string> = {
      api: `http://127.0.0.1:${port.api}`,
      sandboxApi: `http://127.0.0.1:${port.sandboxApi}`,
      docs: `http://127.0.0.1:${port.api}/docs`,
      api1: `http://127.0.0.1:${port.api1}`,
      api2: `http://127.0.0.1:${port.api2}`,
      balancerStats: `http://127.0.0.1:${port.balancerStats}/`,
      temporal: frontend,
      temporalUi: `http://127.0.0.1:${port.temporalUi}`,
      temporalMetrics: `http://127.0.0.1:${port.frontendMetrics}/metrics`,
      minio: `http://127.0.0.1:${port.minio}`,
      minioNodes: [port.minio1, port.minio2, port.minio3, port.minio4].map((p) => `http://127.0.0.1:${p}`).join(' '),
      minioConsole: `http://127.0.0.1:${port.minioConsole}`,
      smtp: `smtp://127.0.0.1:${port.smtp}`,
      mailbox: `http://127.0.0.1:${port.smtpHttp}`,
      provider: `http://127.0.0.1:${port.provider}`,
      apiOps: `http://127.0.0.1:${port.api1Ops} http://127.0.0.1:${port.api2Ops}`,
      workerOps: `http://127.0.0.1:${port.worker1Ops} http://127.0.0.1:${port.worker2Ops}`,
      sandboxApiOps: `http://127.0.0.1:${port.sandboxApiOps}`,
      sandboxWorkerOps: `http://127.0.0.1:${port.sandboxWorker1Ops} http://127.0.0.1:${port.sandboxWorker2Ops}`,
      postgres: `127.0.0.1:${port.postgres}`,
      postgresReplica: `127.0.0.1:${port.postgresReplica}`,
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
