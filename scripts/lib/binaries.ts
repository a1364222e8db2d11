/**
 * Finds the Temporal CLI and MinIO binaries: from TEMPORAL_CLI / MINIO_BINARY, else PATH,
 * else builds them once with `go install` at pinned versions into a cache folder outside
 * the checkout (~/.cache/b2b-commerce/bin, or B2B_CACHE_DIR), reused by later runs.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export const PINNED = {
  temporal: { module: 'github.com/temporalio/cli/cmd/temporal', version: 'v1.5.1', env: 'TEMPORAL_CLI', bin: 'temporal' },
  // MinIO publishes no semver tags; this pseudo-version is tag RELEASE.2025-09-07T16-13-09Z.
  minio: { module: 'github.com/minio/minio', version: 'v0.0.0-20250907161309-07c3a429bfed', env: 'MINIO_BINARY', bin: 'minio' },
} as const;

export function cacheDir(): string {
  return process.env.B2B_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'b2b-commerce');
}

function onPath(bin: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

async function goInstall(name: keyof typeof PINNED, binDir: string, say: (s: string) => void): Promise<void> {
  const p = PINNED[name];
  say(`Building ${name} ${p.version} from its Go module (first run only; about 5-10 minutes on 2 cores) into ${binDir} ...`);
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['install', `${p.module}@${p.version}`], {
      env: { ...process.env, GOBIN: binDir, GOFLAGS: '-buildvcs=false' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go install ${p.module}@${p.version} failed (exit ${code}):\n${err}`))));
  });
  say(`Built ${name} in ${Math.round((Date.now() - started) / 1000)} s.`);
}

/** Resolves (building if needed) both binaries; builds run one after the other to spare memory. */
export async function ensureBinaries(say: (s: string) => void): Promise<{ temporal: string; minio: string }> {
  const binDir = path.join(cacheDir(), 'bin');
  mkdirSync(binDir, { recursive: true });
  const out: Record<string, string> = {};
  for (const name of ['temporal', 'minio'] as const) {
    const p = PINNED[name];
    const fromEnv = process.env[p.env];
    const cached = path.join(binDir, p.bin);
    const found = fromEnv || onPath(p.bin) || (existsSync(cached) ? cached : undefined);
    if (found) {
      out[name] = found;
      continue;
    }
    await goInstall(name, binDir, say);
    out[name] = cached;
  }
  return out as { temporal: string; minio: string };
}
