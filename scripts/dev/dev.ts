/**
 * The run command (npm run dev): the whole service on embedded defaults with data under
 * ./.data; prints every address and one "ready" line; stops everything on Ctrl-C (scripts/lib/launcher.ts).
 */
import '../../src/compat/node20.js';
import path from 'node:path';
import { runLauncher } from '../lib/launcher.js';
import { startStack } from '../lib/stack.js';

runLauncher({
  tag: 'dev',
  dataDir: path.resolve(process.env.DATA_DIR ?? '.data'),
  labels: {
    api: 'API (production)',
    sandboxApi: 'API (sandbox)',
    docs: 'API docs',
    temporal: 'Temporal gRPC',
    temporalUi: 'Temporal Web UI',
    minio: 'MinIO S3',
    minioConsole: 'MinIO console',
    smtp: 'SMTP catcher',
    mailbox: 'Caught e-mails (JSON)',
    provider: 'Payment provider sandbox',
    postgres: 'PostgreSQL',
    apiOps: 'API ops (/metrics, /ready)',
    workerOps: 'Worker ops (/metrics, /ready)',
    sandboxApiOps: 'Sandbox API ops',
    sandboxWorkerOps: 'Sandbox worker ops',
  },
  start: (dataDir, say, onStop) => startStack({ mode: 'dev', dataDir, say, onStop }),
});
