/**
 * Readiness of an API or worker process: PostgreSQL answers, every migration this build knows is
 * applied, Temporal answers for the configured namespace, and the object storage bucket exists.
 * Each check has its own deadline, so one hanging dependency neither hangs the probe nor hides
 * the state of the others. The answer names every check; `Ready` is false when any failed.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { boundRows } from '../../db/orm-sql.js';
import type { Storage } from '../../adapters/storage.js';

export interface CheckResult {
  Ok: boolean;
  /** Milliseconds the check took (or the deadline). */
  Ms: number;
  /** Why it failed (no secrets: the error's message only). */
  Error?: string;
}

export interface Readiness {
  Ready: boolean;
  Service: string;
  Checks: { Database: CheckResult; Migrations: CheckResult; Temporal: CheckResult; ObjectStorage: CheckResult };
}

const CHECK_TIMEOUT_MS = 2000;

async function timed(run: () => Promise<void>, ms = CHECK_TIMEOUT_MS): Promise<CheckResult> {
  const start = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      run(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
    return { Ok: true, Ms: Date.now() - start };
  } catch (e) {
    return { Ok: false, Ms: Date.now() - start, Error: (e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 200) };
  } finally {
    clearTimeout(timer);
  }
}

export interface ReadinessDeps {
  config: Config;
  orm: MikroORM;
  temporal: Client;
  storage: Storage;
}

export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const [Database, Migrations, Temporal, ObjectStorage] = await Promise.all([
    timed(async () => {
      await boundRows(deps.orm.em.fork(), 'select 1');
    }),
    timed(async () => {
      const pending = await deps.orm.migrator.getPending();
      if (pending.length) throw new Error(`${pending.length} migration(s) not applied: ${pending.map((m) => m.name).slice(0, 5).join(', ')}`);
    }),
    timed(async () => {
      await deps.temporal.workflowService.describeNamespace({ namespace: deps.config.temporal.namespace });
    }),
    timed(async () => {
      if (!(await deps.storage.ping())) throw new Error(`bucket ${deps.storage.bucket} does not exist`);
    }),
  ]);
  const Checks = { Database, Migrations, Temporal, ObjectStorage };
  return { Ready: Object.values(Checks).every((c) => c.Ok), Service: deps.config.serviceName, Checks };
}
