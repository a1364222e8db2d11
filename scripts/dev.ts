/**
 * The run command (npm run dev): the whole service on embedded defaults with data under
 * ./.data; prints every address and one "ready" line; Ctrl-C stops everything it started.
 */
import '../src/compat/node20.js';
import path from 'node:path';
import { startStack } from './lib/stack.js';

async function main(): Promise<void> {
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
  const say = (s: string) => console.log(`[dev] ${s}`);
  const stack = await startStack({ mode: 'dev', dataDir, say });
  const labels: Record<string, string> = {
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
  };
  for (const [k, v] of Object.entries(stack.urls)) console.log(`  ${(labels[k] ?? k).padEnd(26)} ${v}`);
  console.log(`  ${'Logs'.padEnd(26)} ${stack.logDir}`);
  console.log('ready');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('[dev] stopping...');
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
