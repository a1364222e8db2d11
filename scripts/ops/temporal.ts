/**
 * The Temporal CLI the launcher and the tests run, without putting it on PATH:
 * `npm run temporal -- workflow list --query "OrganizationId = '<id>'"`. It talks to
 * TEMPORAL_ADDRESS (default 127.0.0.1:7233, the `npm run dev` server) unless `--address` is given.
 */
import { spawn } from 'node:child_process';
import { ensureBinaries } from '../lib/binaries.js';

async function main(): Promise<void> {
  const { temporal } = await ensureBinaries((s) => console.error(s));
  const child = spawn(temporal, process.argv.slice(2), {
    stdio: 'inherit',
    env: { ...process.env, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' },
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

main().catch((e) => {
  console.error(String(e instanceof Error ? e.message : e));
  process.exit(1);
});
