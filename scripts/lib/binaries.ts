/**
 * Finds the Temporal CLI and MinIO binaries: from TEMPORAL_CLI / MINIO_BINARY, else PATH,
 * else builds them once with `go install` at pinned versions into a cache folder outside
 * the checkout (~/.cache/b2b-commerce/bin/<name>-<version>, or under B2B_CACHE_DIR), reused by
 * later runs. The folder names the version, so changing a pin builds the new one.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * `version` names the build and its cache folder. The Temporal CLI is built from the wrapper module
 * in scripts/go/temporal-cli (`buildDir`), which pins CLI v1.5.1 (server 1.29.1) with
 * modernc.org/sqlite v1.44.3: the v1.34.1 that v1.5.1 names can answer `interrupted (9)` to every
 * query of the dev server's in-memory database until it restarts (temporalio/temporal#9198), and
 * CLI v1.9.1, which has the newer driver, cannot be built from the Go module proxy (its go.mod
 * replaces an unpublished submodule). docs/decisions.md, "The Temporal CLI's SQLite driver".
 */
export const PINNED = {
  temporal: {
    module: 'github.com/temporalio/cli/cmd/temporal',
    version: 'v1.5.1-sqlite-v1.44.3',
    buildDir: 'scripts/go/temporal-cli',
    ldflags: '-X github.com/temporalio/cli/temporalcli.Version=1.5.1',
    env: 'TEMPORAL_CLI',
    bin: 'temporal',
  },
  // MinIO publishes no semver tags; this pseudo-version is tag RELEASE.2025-09-07T16-13-09Z.
  minio: { module: 'github.com/minio/minio', version: 'v0.0.0-20250907161309-07c3a429bfed', env: 'MINIO_BINARY', bin: 'minio' },
  // `npm run cluster` only: the Temporal server (the version the CLI above embeds), its SQL schema tool and the
  // Web UI server, from the wrapper module scripts/go/temporal-server (which pins go.temporal.io/server and ui-server/v2).
  temporalServer: { module: 'go.temporal.io/server/cmd/server', version: 'v1.29.1', buildDir: 'scripts/go/temporal-server', env: 'TEMPORAL_SERVER_BINARY', bin: 'temporal-server' },
  temporalSqlTool: { module: 'go.temporal.io/server/cmd/tools/sql', version: 'v1.29.1', buildDir: 'scripts/go/temporal-server', env: 'TEMPORAL_SQL_TOOL', bin: 'temporal-sql-tool' },
  temporalUi: { module: 'github.com/temporalio/ui-server/v2/cmd/server', version: 'v2.42.1', buildDir: 'scripts/go/temporal-server', env: 'TEMPORAL_UI_SERVER', bin: 'temporal-ui-server' },
} as const;

export type BinaryName = keyof typeof PINNED;

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

/** The checkout's folder holding `relative` (npm runs scripts, and jest its tests, from the root). */
function fromRoot(relative: string): string {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, relative))) return path.join(dir, relative);
    if (path.dirname(dir) === dir) throw new Error(`${relative} not found above ${process.cwd()}`);
  }
}

function versionDir(binDir: string, name: BinaryName): string {
  return path.join(binDir, `${name}-${PINNED[name].version}`);
}

async function goInstall(name: BinaryName, binDir: string, say: (s: string) => void): Promise<void> {
  const p = PINNED[name];
  say(`Building ${name} ${p.version} from its Go module (first run only; about 5-10 minutes on 2 cores) into ${binDir} ...`);
  const started = Date.now();
  const target = versionDir(binDir, name);
  // A wrapper module builds the package with the wrapper's dependency versions; otherwise `go install module@version`.
  const [args, cwd] =
    'buildDir' in p
      ? [['build', ...('ldflags' in p ? ['-ldflags', p.ldflags] : []), '-o', path.join(target, p.bin), p.module], fromRoot(p.buildDir)]
      : [['install', `${p.module}@${p.version}`], undefined];
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', args, {
      cwd,
      env: { ...process.env, GOBIN: target, GOFLAGS: '-buildvcs=false' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go ${args.join(' ')} failed (exit ${code}):\n${err}`))));
  });
  say(`Built ${name} in ${Math.round((Date.now() - started) / 1000)} s.`);
}

/** Resolves one binary: its environment variable, else PATH, else the cache, else a build into the cache. */
export async function ensureBinary(name: BinaryName, say: (s: string) => void): Promise<string> {
  const binDir = path.join(cacheDir(), 'bin');
  mkdirSync(binDir, { recursive: true });
  const p = PINNED[name];
  const cached = path.join(versionDir(binDir, name), p.bin);
  const found = process.env[p.env] || onPath(p.bin) || (existsSync(cached) ? cached : undefined);
  if (found) return found;
  await goInstall(name, binDir, say);
  return cached;
}

/** Resolves `names` one after the other (builds run in turn to spare memory). */
export async function ensureAll<N extends BinaryName>(names: readonly N[], say: (s: string) => void): Promise<Record<N, string>> {
  const out = {} as Record<N, string>;
  for (const name of names) out[name] = await ensureBinary(name, say);
  return out;
}

/** Resolves (building if needed) the dev stack's two binaries, the Temporal CLI and MinIO. */
export function ensureBinaries(say: (s: string) => void): Promise<{ temporal: string; minio: string }> {
  return ensureAll(['temporal', 'minio'] as const, say);
}

/** The folder of `module` (at the version the wrapper module of `name` pins) in the Go module cache, downloading it if needed. */
export function goModuleDir(name: 'temporalServer', module: string): string {
  const out = execFileSync('go', ['mod', 'download', '-json', module], { cwd: fromRoot(PINNED[name].buildDir), encoding: 'utf8' });
  return (JSON.parse(out) as { Dir: string }).Dir;
}
