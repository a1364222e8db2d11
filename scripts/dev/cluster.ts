/**
 * npm run cluster: the service on the engines of a production deployment (Temporal server on PostgreSQL,
 * PostgreSQL with a streaming replica, MinIO over four nodes, two APIs behind HAProxy, two workers per
 * environment), as local processes with data under ./.data-cluster (DATA_DIR); prints every address and
 * one "ready" line; stops everything on Ctrl-C. docs/cluster.md.
 */
import '../../src/compat/node20.js';
import path from 'node:path';
import { startCluster } from '../lib/cluster.js';
import { runLauncher } from '../lib/launcher.js';

runLauncher({
  tag: 'cluster',
  dataDir: path.resolve(process.env.DATA_DIR ?? '.data-cluster'),
  labels: {
    api: 'API (production, HAProxy)',
    sandboxApi: 'API (sandbox)',
    docs: 'API docs',
    api1: 'API process 1',
    api2: 'API process 2',
    balancerStats: 'HAProxy stats',
    temporal: 'Temporal frontend gRPC',
    temporalUi: 'Temporal Web UI',
    temporalMetrics: 'Temporal frontend metrics',
    minio: 'MinIO S3 (HAProxy)',
    minioNodes: 'MinIO nodes',
    minioConsole: 'MinIO console',
    smtp: 'SMTP catcher',
    mailbox: 'Caught e-mails (JSON)',
    provider: 'Payment provider sandbox',
    apiOps: 'API ops (/metrics, /ready)',
    workerOps: 'Worker ops (/metrics, /ready)',
    sandboxApiOps: 'Sandbox API ops',
    sandboxWorkerOps: 'Sandbox worker ops',
    postgres: 'PostgreSQL primary',
    postgresReplica: 'PostgreSQL replica',
  },
  start: (dataDir, say, onStop) => startCluster({ mode: 'dev', dataDir, say, onStop }),
});
