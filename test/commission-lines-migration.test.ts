/**
 * Migration20261128013000_commission_entry_lines_json moves stored entry lines from jsonb objects to
 * compact json rows (issue 18): entries written before it must read the same afterwards, and the
 * down migration must give the objects back. Runs the real migrations (the built ORM, in a child
 * process: MikroORM is ESM) on a database of its own on the stack's PostgreSQL.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { dbQuery, stack } from './support/helpers';

const BEFORE = 'Migration20261125030000_rate_limit_unlogged';
const MIGRATION = 'Migration20261128013000_commission_entry_lines_json';

const dbName = `lines_migration_${randomUUID().slice(0, 8)}`;
const dbUrl = (() => {
  const u = new URL(stack.env.production.DATABASE_URL);
  u.pathname = `/${dbName}`;
  return u.toString();
})();

async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
  const c = new Client({ connectionString: dbUrl });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** Runs the ORM's migrator (`up` or `down`, with its options) on the test's database. */
async function migrate(direction: 'up' | 'down', options: Record<string, unknown> = {}): Promise<void> {
  const db = path.join((stack as unknown as { distDir: string }).distDir, 'src', 'db', 'orm.js');
  const script = `const { openOrm } = await import(${JSON.stringify(db)}); const orm = await openOrm(process.env.DATABASE_URL, 2);
    try { await orm.migrator.${direction}(${JSON.stringify(options)}); } finally { await orm.close(true); }`;
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, DATABASE_URL: dbUrl } });
}

beforeAll(async () => dbQuery(`create database "${dbName}"`));
afterAll(async () => dbQuery(`drop database if exists "${dbName}" with (force)`));

test('entries stored as objects before the migration read as the same lines after it, and the down migration restores the objects', async () => {
  {
    await migrate('up', { to: BEFORE });
    const org = randomUUID();
    await sql(`insert into organization (id, identity_organization_id, name, slug, created_at, updated_at) values ($1, $2, 'Lines', $3, now(), now())`, [
      org,
      `org_${org}`,
      `lines-${org}`,
    ]);
    const objects = [
      { sku: 'WID-1', productName: 'Widget "deluxe"', quantity: 3, base: '219.99', rule: 'Widgets', rate: '0.1', commission: '22' },
      { sku: 'BOLT-1', productName: null, quantity: 2, base: '-1.5', rule: 'Default', rate: '0.05', commission: '-0.08' },
    ];
    const entry = randomUUID();
    const empty = randomUUID();
    for (const [id, lines] of [
      [entry, objects],
      [empty, []],
    ] as const) {
      await sql(
        `insert into commission_entry (id, organization_id, statement_id, invoice_id, invoice_number, customer_number, invoice_date, invoice_total, base, commission, lines)
         values ($1, $2, $3, $4, 'INV-1', 'C-1', now(), 10, 10, 1, $5::jsonb)`,
        [id, org, randomUUID(), randomUUID(), JSON.stringify(lines)],
      );
    }

    await migrate('up');
    const [col] = await sql<{ data_type: string; is_nullable: string }>(
      `select data_type, is_nullable from information_schema.columns where table_name = 'commission_entry' and column_name = 'lines'`,
    );
    expect(col).toEqual({ data_type: 'json', is_nullable: 'NO' });
    const after = await sql<{ id: string; lines: unknown }>(`select id, lines from commission_entry order by id`);
    expect(new Map(after.map((r) => [r.id, r.lines]))).toEqual(
      new Map<string, unknown>([
        [entry, objects.map((l) => [l.sku, l.productName, l.quantity, l.base, l.rule, l.rate, l.commission])],
        [empty, []],
      ]),
    );

    await migrate('down', { migrations: [MIGRATION] });
    const [back] = await sql<{ data_type: string }>(
      `select data_type from information_schema.columns where table_name = 'commission_entry' and column_name = 'lines'`,
    );
    expect(back.data_type).toBe('jsonb');
    const restored = await sql<{ id: string; lines: unknown }>(`select id, lines from commission_entry order by id`);
    expect(new Map(restored.map((r) => [r.id, r.lines]))).toEqual(
      new Map<string, unknown>([
        [entry, objects],
        [empty, []],
      ]),
    );
  }
});
