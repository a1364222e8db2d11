/** The chaos run's knobs (environment, see main.ts), its log line and its seeded jitter. */
export const num = (k: string, d: number) => (process.env[k] === undefined || process.env[k] === '' ? d : Number(process.env[k]));
export const SECONDS = num('CHAOS_SECONDS', 300);
export const TENANTS = num('CHAOS_TENANTS', 3);
export const FAULT_EVERY = num('CHAOS_FAULT_EVERY', 20);
export const DOWN = num('CHAOS_DOWN', 3);
export const RECOVERY = num('CHAOS_RECOVERY_SECONDS', 120);
export const OP_DEADLINE = num('CHAOS_OP_DEADLINE', 120);
export const PAUSE = num('CHAOS_PAUSE_MS', 300);
/** `npm run chaos -- --cluster`: the run on scripts/lib/cluster.ts's topology instead of the dev stack. */
export const ON_CLUSTER = process.argv.includes('--cluster');
/**
 * The kill rotation. On the cluster one node of each kind: an API process behind the balancer, a
 * worker of each environment (a worker process serves every task queue), a Temporal history process,
 * the matching process, a MinIO node and the replica (primary failover is out of scope: docs/cluster.md).
 */
export const ROTATION = (
  process.env.CHAOS_COMPONENTS ??
  (ON_CLUSTER ? 'api-1,worker-1,temporal-history-1,worker-sandbox-1,temporal-matching,minio-2,postgres-replica' : 'api,worker,worker-sandbox,postgres,temporal,minio,smtp-catcher')
)
  .split(',')
  .filter(Boolean);
process.env.WEBHOOK_RETRY_SCALE ??= '0.01';

export const PORT_KEYS = [
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
export const say = (s: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${s}`);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A small seeded generator, so a run's fault moments can be repeated (CHAOS_SEED).
export let seed = num('CHAOS_SEED', Date.now() % 2 ** 31);
export const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
