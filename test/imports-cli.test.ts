/** The batch importer CLI (dist/scripts/ops/import.js) against the running stack: presigned upload, progress, counts, error CSV, exit code. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API, createOrg, issueApiAccess, stack } from './support/helpers';
import { ensurePriceTier } from './support/matrix-fixtures';

const st = stack as typeof stack & { distDir?: string };

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(st.distDir!, 'scripts', 'ops', 'import.js'), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

test('when the CLI imports a CSV with a bad row, then it prints the counts, writes the error CSV beside the input and exits 1; a clean file exits 0', async () => {
  const org = await createOrg();
  await ensurePriceTier(org, 'Retail');
  const { ApiKey } = await issueApiAccess(org);
  const dir = mkdtempSync(path.join(tmpdir(), 'import-cli-'));
  const file = path.join(dir, 'products.csv');
  writeFileSync(file, 'sku,name,price:Retail\nCLI-1,One,1.00\nCLI-2,,2.00\nCLI-3,Three,3.00\n');
  const env = { COMMERCE_URL: API, COMMERCE_API_KEY: ApiKey };
  const bad = await runCli(['--kind', 'products', '--file', file], env);
  expect(bad.out).toContain('SucceededWithErrors: 3 records, created 2, updated 0, unchanged 0, failed 1');
  expect(bad.code).toBe(1);
  const errors = path.join(dir, 'products.errors.csv');
  expect(existsSync(errors)).toBe(true);
  expect(readFileSync(errors, 'utf8')).toBe('sku,name,price:Retail,error_field,error_message\r\nCLI-2,,2.00,name,name is required when creating a product.\r\n');

  const good = path.join(dir, 'more.csv');
  writeFileSync(good, 'sku,name\nCLI-1,One\nCLI-4,Four\n');
  const ok = await runCli(['--kind', 'products', '--file', good, '--mode', 'validate'], env);
  expect(ok.out).toContain('Succeeded: 2 records, created 1, updated 0, unchanged 1, failed 0');
  expect(ok.code).toBe(0);
  expect((await runCli(['--file', good], env)).code).toBe(2);
}, 120_000);
