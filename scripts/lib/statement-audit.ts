/**
 * Statement audit (docs/scaling.md "Statements carry organization_id"): every statement the
 * service ran against a database, as recorded by pg_stat_statements, is planned again with
 * EXPLAIN (GENERIC_PLAN) and sequential scans disabled, and each scan of a tenant table is
 * checked. A statement fails the audit when it reaches a tenant table through an index led by
 * organization_id without a condition on organization_id (PostgreSQL 18 answers it with a skip
 * scan, one descent per tenant; 14 to 17 read the whole table), or when no index serves it at all.
 *
 * The test command runs it over the whole suite's statements after jest (scripts/dev/test.ts). Only
 * the statements of the role the audit connects as (the service's) are audited: the tests inspect
 * the database as a role of their own (`inspectorUrls`), and their ad-hoc queries are not the
 * service's.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The part of a PostgreSQL JSON plan node the audit reads. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

/** Runs `fn` with a client connected to `url`, and closes it whatever happens. */
export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const INDEX_SCANS = new Set(['Index Scan', 'Index Only Scan', 'Bitmap Index Scan']);

/**
 * The scans of `plan` that do not narrow a tenant table to one organization: an index led by
 * organization_id used without a condition on it, or a sequential scan of a tenant table (the
 * plan is made with sequential scans disabled, so a sequential scan means no index serves it).
 */
export function unscopedScans(plan: PlanNode, tenantTables: ReadonlySet<string>, tenantLedIndexes: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const visit = (n: PlanNode): void => {
    const index = n['Index Name'];
    if (INDEX_SCANS.has(n['Node Type']) && index && tenantLedIndexes.has(index) && !/\borganization_id\b/.test(n['Index Cond'] ?? ''))
      out.push(`${n['Node Type']} using ${index} without organization_id (${n['Index Cond'] ?? 'no index condition'})`);
    if (n['Node Type'] === 'Seq Scan' && n['Relation Name'] && tenantTables.has(n['Relation Name']))
      out.push(`Seq Scan on ${n['Relation Name']}${n.Filter ? ` (filter ${n.Filter})` : ''}`);
    for (const child of n.Plans ?? []) visit(child);
  };
  visit(plan);
  return out;
}

export interface AuditFinding {
  query: string;
  calls: number;
  scans: string[];
}

export interface AuditResult {
  /** Why the audit could not run (no pg_stat_statements, PostgreSQL before 16), else null. */
  skipped: string | null;
  checked: number;
  findings: AuditFinding[];
  /** Statements PostgreSQL could not plan generically (e.g. a parameter of unknown type): not audited. */
  unplanned: string[];
}

/** Statement kinds that never read a tenant table's rows by a condition. */
const NOT_AUDITED =
  /^\s*(begin|commit|rollback|start|set|show|reset|savepoint|release|listen|unlisten|notify|create|alter|drop|truncate|copy|vacuum|analyze|explain|prepare|deallocate|discard|lock|grant|comment|do|select pg_|select set_config|select current_|select version)/i;

/**
 * Audits the statements recorded for the database at `databaseUrl`. Statements of the catalogs,
 * of the migrations' own table and of the audit itself are not audited.
 */
export async function auditStatements(databaseUrl: string): Promise<AuditResult> {
  return withClient(databaseUrl, async (client) => {
    const version = Number((await client.query<{ v: string }>(`select current_setting('server_version_num') as v`)).rows[0].v);
    if (version < 160000) return { skipped: 'EXPLAIN (GENERIC_PLAN) needs PostgreSQL 16 or later', checked: 0, findings: [], unplanned: [] };
    try {
      await client.query('select 1 from pg_stat_statements limit 1');
    } catch {
      return { skipped: 'pg_stat_statements is not loaded', checked: 0, findings: [], unplanned: [] };
    }
    const tenantTables = new Set(
      (
        await client.query<{ t: string }>(
          `select table_name as t from information_schema.columns where table_schema = 'public' and column_name = 'organization_id'`,
        )
      ).rows.map((r) => r.t),
    );
    const tenantLedIndexes = new Set(
      (
        await client.query<{ i: string }>(
          `select c.relname as i from pg_index x join pg_class c on c.oid = x.indexrelid join pg_namespace n on n.oid = c.relnamespace
            join pg_attribute a on a.attrelid = x.indrelid and a.attnum = x.indkey[0]
           where n.nspname = 'public' and a.attname = 'organization_id'`,
        )
      ).rows.map((r) => r.i),
    );
    const statements = (
      await client.query<{ query: string; calls: string }>(
        `select query, sum(calls)::bigint as calls from pg_stat_statements s join pg_database d on d.oid = s.dbid
          where d.datname = current_database() and s.userid = (select oid from pg_roles where rolname = current_user) and query not like '%pg_stat_statements%' and query not like '%mikro_orm_migrations%'
            and query not like '%information_schema.%' and query not like '%pg_catalog.%'
          group by query order by sum(calls) desc`,
      )
    ).rows.filter((s) => !NOT_AUDITED.test(s.query));
    await client.query('set enable_seqscan = off');
    const findings: AuditFinding[] = [];
    const unplanned: string[] = [];
    for (const s of statements) {
      let plan: PlanNode;
      try {
        const r = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`explain (generic_plan, format json) ${s.query}`);
        plan = r.rows[0]['QUERY PLAN'][0].Plan;
      } catch {
        unplanned.push(s.query);
        continue;
      }
      const scans = unscopedScans(plan, tenantTables, tenantLedIndexes);
      if (scans.length) findings.push({ query: s.query, calls: Number(s.calls), scans });
    }
    return { skipped: null, checked: statements.length, findings, unplanned };
  });
}

/** The audit as printable lines. */
export function describeAudit(name: string, r: AuditResult): string[] {
  if (r.skipped) return [`statement audit (${name}): skipped, ${r.skipped}`];
  const head = `statement audit (${name}): ${r.checked} statements, ${r.findings.length} reach a tenant table without organization_id, ${r.unplanned.length} not plannable generically`;
  const text = (q: string, n: number) => q.replace(/\s+/g, ' ').slice(0, n);
  return [
    head,
    ...r.findings.flatMap((f) => [`  ${f.calls} call(s): ${text(f.query, 500)}`, ...f.scans.map((s) => `    -> ${s}`)]),
    ...r.unplanned.map((q) => `  not audited (no generic plan): ${text(q, 200)}`),
  ];
}

/** The role the tests inspect and alter the database as, so that the audit can leave their statements out. */
export const INSPECTOR_ROLE = 'test_inspector';

/**
 * Creates (or re-keys) the inspector role on the server of `urls` and answers each URL with the
 * inspector's credentials, or null when the server does not let us create roles (an external
 * DATABASE_URL): the tests then use the service's URL and the audit cannot tell them apart.
 */
export async function inspectorUrls<K extends string>(urls: Record<K, string>): Promise<Record<K, string> | null> {
  const first = Object.values<string>(urls)[0];
  const password = randomBytes(12).toString('hex');
  const created = await withClient(first, async (client) => {
    try {
      const exists = (await client.query(`select 1 from pg_roles where rolname = $1`, [INSPECTOR_ROLE])).rowCount;
      await client.query(`${exists ? 'alter' : 'create'} role ${INSPECTOR_ROLE} login superuser password '${password}'`);
      return true;
    } catch {
      return false;
    }
  });
  if (!created) return null;
  const out = {} as Record<K, string>;
  for (const [k, v] of Object.entries<string>(urls)) {
    const u = new URL(v);
    u.username = INSPECTOR_ROLE;
    u.password = password;
    out[k as K] = u.toString();
  }
  return out;
}

/** Forgets the statements recorded so far for the database at `databaseUrl` (e.g. the migrations'), loading the extension when the server has it preloaded. */
export async function resetStatements(databaseUrl: string): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    try {
      await client.query('create extension if not exists pg_stat_statements');
      await client.query('select pg_stat_statements_reset(0, (select oid from pg_database where datname = current_database()), 0)');
    } catch {
      // Not preloaded (an external DATABASE_URL): the audit reports itself skipped.
    }
  });
}
