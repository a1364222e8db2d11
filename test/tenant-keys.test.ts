/**
 * Scale-out rule (DESIGN "Scale-out", docs/scaling.md): every tenant table (a table with an
 * organization_id column) leads its primary key with organization_id, and every foreign key to
 * another tenant table leads with organization_id on both sides, so the schema stays
 * distributable by organization (Citus co-location). Read from information_schema of the test
 * stack's migrated database, so a table added by a later migration is checked too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { dbQuery } from './support/helpers';

/**
 * Reference tables: small, not per tenant, replicated to every node (docs/scaling.md "Reference
 * tables"). A tenant table may reference them with a one-column key.
 */
const REFERENCE_TABLES = new Set([
  'organization', // the tenant itself: organization_id -> organization (id)
  'app_user', // a user can belong to several organizations
  'sales_rep', // the person; per-organization assignments are organization_sales_rep
  'password_token', // by user
  'rate_limit_bucket', // keys are hashes of route and client, not tenant data
  'mikro_orm_migrations', // the migration log
]);

/**
 * Tables with an organization_id that are deliberately not distributed by it (docs/scaling.md):
 * email_message's organization_id is null for account mail (set-password, reset), which belongs
 * to a user, not to an organization; it stays on the coordinator as a local table.
 */
const NOT_DISTRIBUTED = new Set(['email_message']);

interface KeyColumn {
  table_name: string;
  constraint_name: string;
  constraint_type: 'PRIMARY KEY' | 'FOREIGN KEY';
  column_name: string;
  ordinal_position: number;
  referenced_table: string | null;
  referenced_column: string | null;
}

/** Every rule violation in `schema`, as readable lines (empty when the schema follows the rule). */
async function violations(schema: string): Promise<string[]> {
  const tenant = new Set(
    (
      await dbQuery<{ table_name: string }>(
        `select c.table_name from information_schema.columns c
           join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
          where c.table_schema = $1 and c.column_name = 'organization_id'`,
        [schema],
      )
    ).map((r) => r.table_name),
  );
  const tables = (
    await dbQuery<{ table_name: string }>(`select table_name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE'`, [schema])
  ).map((r) => r.table_name);
  // Key columns in order; for a foreign key, the referenced column at the same position of the referenced key.
  const cols = await dbQuery<KeyColumn>(
    `select tc.table_name, tc.constraint_name, tc.constraint_type, k.column_name, k.ordinal_position,
            rk.table_name as referenced_table, rk.column_name as referenced_column
       from information_schema.table_constraints tc
       join information_schema.key_column_usage k
         on k.constraint_schema = tc.constraint_schema and k.constraint_name = tc.constraint_name and k.table_name = tc.table_name
       left join information_schema.referential_constraints rc
         on rc.constraint_schema = tc.constraint_schema and rc.constraint_name = tc.constraint_name
       left join information_schema.key_column_usage rk
         on rk.constraint_schema = rc.unique_constraint_schema and rk.constraint_name = rc.unique_constraint_name
        and rk.ordinal_position = k.position_in_unique_constraint
      where tc.table_schema = $1 and tc.constraint_type in ('PRIMARY KEY', 'FOREIGN KEY')
      order by tc.table_name, tc.constraint_name, k.ordinal_position`,
    [schema],
  );
  const keys = new Map<string, KeyColumn[]>();
  for (const c of cols) keys.set(`${c.table_name}.${c.constraint_name}`, [...(keys.get(`${c.table_name}.${c.constraint_name}`) ?? []), c]);

  const out: string[] = [];
  for (const table of tables) {
    if (!tenant.has(table) && !REFERENCE_TABLES.has(table) && !NOT_DISTRIBUTED.has(table))
      out.push(`${table}: neither a tenant table (no organization_id) nor an allowed reference table`);
  }
  for (const table of [...tenant].sort()) {
    if (NOT_DISTRIBUTED.has(table)) continue;
    const own = [...keys.values()].filter((k) => k[0].table_name === table);
    const pk = own.find((k) => k[0].constraint_type === 'PRIMARY KEY');
    if (!pk) out.push(`${table}: no primary key`);
    else if (pk[0].column_name !== 'organization_id')
      out.push(`${table}: primary key (${pk.map((c) => c.column_name).join(', ')}) does not lead with organization_id`);
    for (const fk of own.filter((k) => k[0].constraint_type === 'FOREIGN KEY')) {
      const target = fk[0].referenced_table;
      const shape = `${fk[0].constraint_name} (${fk.map((c) => c.column_name).join(', ')}) -> ${target ?? '?'} (${fk.map((c) => c.referenced_column ?? '?').join(', ')})`;
      if (!target) out.push(`${table}: foreign key ${shape} references no unique constraint that information_schema shows`);
      else if (tenant.has(target) && !NOT_DISTRIBUTED.has(target)) {
        if (fk[0].column_name !== 'organization_id' || fk[0].referenced_column !== 'organization_id')
          out.push(`${table}: foreign key ${shape} to tenant table ${target} does not lead with organization_id on both sides`);
      } else if (!REFERENCE_TABLES.has(target))
        out.push(`${table}: foreign key ${shape} references ${target}, which is neither a tenant table nor an allowed reference table`);
    }
  }
  return out;
}

/**
 * Joins in hand-written SQL that reach a tenant table by `id` without its organization_id: with the
 * primary key led by organization_id, PostgreSQL can only walk the whole key, every tenant's rows,
 * for each joined row (docs/decisions.md "Joins name the organization"). `sources` maps a file
 * name to its text; answers "file:line: join ...".
 */
function joinsByIdAlone(sources: Map<string, string>, tenantTables: ReadonlySet<string>): string[] {
  const join = /\bjoin\s+(\w+)\s+(?:as\s+)?(\w+)\s+on\s+([\s\S]*?)(?=\bjoin\b|\bwhere\b|\bleft\b|\border\b|\bgroup\b|\)|`|$)/gi;
  const out: string[] = [];
  for (const [file, text] of sources) {
    for (const m of text.matchAll(join)) {
      const [, table, alias, cond] = m;
      if (!tenantTables.has(table) || NOT_DISTRIBUTED.has(table)) continue;
      const byId = new RegExp(`\\b${alias}\\.id\\s*=|=\\s*${alias}\\.id\\b`).test(cond);
      const byOrg = new RegExp(`\\b${alias}\\.organization_id\\b`).test(cond);
      if (byId && !byOrg) out.push(`${file}:${text.slice(0, m.index).split('\n').length}: join ${table} ${alias} on ${cond.replace(/\s+/g, ' ').trim()}`);
    }
  }
  return out;
}

/** Every .ts file under src except the migrations (which move rows, once). */
function sourceFiles(dir = path.join(__dirname, '..', 'src'), out = new Map<string, string>()): Map<string, string> {
  for (const f of readdirSync(dir)) {
    const p = path.join(dir, f);
    if (statSync(p).isDirectory()) {
      if (f !== 'migrations') sourceFiles(p, out);
    } else if (p.endsWith('.ts')) out.set(path.relative(path.join(__dirname, '..'), p), readFileSync(p, 'utf8'));
  }
  return out;
}

describe('tenant keys (scale-out by organization_id)', () => {
  it('hand-written SQL joins tenant tables by (organization_id, id), never by id alone', async () => {
    const tenant = new Set(
      (
        await dbQuery<{ table_name: string }>(
          `select table_name from information_schema.columns where table_schema = current_schema() and column_name = 'organization_id'`,
        )
      ).map((r) => r.table_name),
    );
    expect(tenant.has('product')).toBe(true);
    const sources = sourceFiles();
    expect(sources.size).toBeGreaterThan(100);
    expect(joinsByIdAlone(sources, tenant)).toEqual([]);
    // The check itself: the product list's join as it was, and as it is.
    const probe = new Map([
      ['before.ts', 'select * from unnest(ids.a) o(id) join product p on p.id = o.id left join category c on c.id = p.category_id where true'],
      [
        'after.ts',
        'select * from unnest(ids.a) o(id) join product p on p.organization_id = $1 and p.id = o.id left join category c on c.organization_id = p.organization_id and c.id = p.category_id',
      ],
    ]);
    expect(joinsByIdAlone(probe, tenant)).toEqual(['before.ts:1: join product p on p.id = o.id', 'before.ts:1: join category c on c.id = p.category_id']);
  });

  it('every tenant table leads its primary key and its foreign keys to tenant tables with organization_id', async () => {
    const schema = (await dbQuery<{ s: string }>('select current_schema() as s'))[0].s;
    expect(await violations(schema)).toEqual([]);
  });

  it("every tenant table keyed (organization_id, id) has an index on id for the ORM's writes by primary key, but the bulk tables", async () => {
    // docs/scaling.md "Statements carry organization_id": MikroORM updates and deletes these rows by
    // id alone; without an index on id, PostgreSQL 14-17 scan every tenant's rows for each.
    const BULK = ['analytics_credit', 'backorder_allocation', 'catalog_selection', 'commission_entry', 'idempotency_record', 'import_record_error', 'order_item', 'product', 'product_price', 'stock_movement'];
    const COMPOSITE_IN_ORM = ['approval_request', 'quote']; // their entities carry (organizationId, id)
    const rows = await dbQuery<{ table_name: string; has_id_index: boolean }>(
      `select t.relname as table_name,
              exists (select 1 from pg_index x join pg_attribute a on a.attrelid = x.indrelid and a.attnum = x.indkey[0]
                       where x.indrelid = t.oid and a.attname = 'id') as has_id_index
         from pg_index pk join pg_class t on t.oid = pk.indrelid
        where t.relnamespace = current_schema()::regnamespace and pk.indisprimary
          and (select array_agg(a.attname::text order by k.i) from unnest(pk.indkey) with ordinality k(attnum, i)
                 join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum) = array['organization_id', 'id']
        order by 1`,
    );
    expect(rows.length).toBeGreaterThan(30);
    const missing = rows.filter((r) => !r.has_id_index && !BULK.includes(r.table_name) && !COMPOSITE_IN_ORM.includes(r.table_name)).map((r) => r.table_name);
    expect(missing).toEqual([]);
    // The bulk tables stay without: every statement on them names the organization.
    expect(rows.filter((r) => BULK.includes(r.table_name)).map((r) => [r.table_name, r.has_id_index])).toEqual(BULK.map((t) => [t, false]));
  });

  it('the five child tables carry organization_id (not null) and reach their parent by (organization_id, parent id)', async () => {
    const rows = await dbQuery<{ table_name: string; is_nullable: string }>(
      `select table_name, is_nullable from information_schema.columns
        where table_schema = current_schema() and column_name = 'organization_id'
          and table_name in ('cart_item', 'order_item', 'customer_address', 'customer_contact', 'image_ingestion_item') order by table_name`,
    );
    expect(rows).toEqual(
      ['cart_item', 'customer_address', 'customer_contact', 'image_ingestion_item', 'order_item'].map((t) => ({ table_name: t, is_nullable: 'NO' })),
    );
  });

  it('the check catches a tenant table whose keys break the rule', async () => {
    const schema = `tenant_keys_probe_${process.pid}`;
    await dbQuery(`drop schema if exists ${schema} cascade`);
    try {
      await dbQuery(
        `create schema ${schema};
         create table ${schema}.organization (id uuid primary key);
         create table ${schema}.parent (organization_id uuid not null references ${schema}.organization (id), id uuid not null, primary key (organization_id, id), unique (id));
         create table ${schema}.good_child (organization_id uuid not null, id uuid not null, parent_id uuid not null, primary key (organization_id, id),
                                            foreign key (organization_id, parent_id) references ${schema}.parent (organization_id, id));
         create table ${schema}.bad_pk (organization_id uuid not null, id uuid primary key);
         create table ${schema}.bad_fk (organization_id uuid not null, id uuid not null, parent_id uuid not null references ${schema}.parent (id), primary key (organization_id, id));
         create table ${schema}.loose (id uuid primary key);`,
      );
      const found = await violations(schema);
      expect(found).toEqual([
        'loose: neither a tenant table (no organization_id) nor an allowed reference table',
        'bad_fk: foreign key bad_fk_parent_id_fkey (parent_id) -> parent (id) to tenant table parent does not lead with organization_id on both sides',
        'bad_pk: primary key (id) does not lead with organization_id',
      ]);
    } finally {
      await dbQuery(`drop schema if exists ${schema} cascade`);
    }
  });
});
