/**
 * The statement audit the test command runs after jest (scripts/lib/statement-audit.ts), against
 * the stack's real PostgreSQL: a statement that reaches a tenant table by id alone is reported,
 * the same statement scoped by organization_id is not. It runs in a scratch database of its own,
 * so its deliberate by-id statements never reach the audit of the suite's databases.
 */
import { randomUUID } from 'node:crypto';
import { auditStatements, withClient } from '../scripts/lib/statement-audit';
import { claimDueSql } from '../src/db/sql';
import { stack, uniq } from './support/helpers';

const serverUrl = (db: string) => {
  const u = new URL(stack.env.production.DATABASE_URL);
  u.pathname = `/${db}`;
  return u.toString();
};

describe('statement audit', () => {
  const db = uniq('audit_').toLowerCase();
  const url = serverUrl(db);
  const org = randomUUID();
  const id = randomUUID();

  beforeAll(async () => {
    await withClient(stack.env.production.DATABASE_URL, (c) => c.query(`create database ${db}`));
    await withClient(url, async (c) => {
      await c.query('create extension if not exists pg_stat_statements');
      await c.query(`create table invoice (organization_id uuid not null, id uuid not null, pdf_key text, primary key (organization_id, id))`);
      await c.query(`create table app_user (id uuid primary key, email text)`);
      await c.query(`insert into invoice (organization_id, id) values ($1, $2)`, [org, id]);
      await c.query(`select pg_stat_statements_reset(0, (select oid from pg_database where datname = current_database()), 0)`);
    });
  });
  afterAll(async () => {
    await withClient(stack.env.production.DATABASE_URL, (c) => c.query(`drop database if exists ${db} with (force)`));
  });

  it('reports a tenant row reached by id alone, and nothing for statements scoped by organization or on reference tables', async () => {
    await withClient(url, async (c) => {
      await c.query(`update invoice set pdf_key = $1 where id = $2`, ['a.pdf', id]);
      await c.query(`update invoice set pdf_key = $1 where organization_id = $2 and id = $3`, ['b.pdf', org, id]);
      await c.query(`select email from app_user where id = $1`, [id]);
      await c.query(`select count(*) from invoice where pdf_key = $1`, ['b.pdf']);
    });
    const r = await auditStatements(url);
    expect(r.skipped).toBeNull();
    const flagged = r.findings.map((f) => f.query.replace(/\s+/g, ' '));
    expect(flagged).toEqual(expect.arrayContaining(['update invoice set pdf_key = $1 where id = $2', 'select count(*) from invoice where pdf_key = $1']));
    expect(flagged).toHaveLength(2);
    const byId = r.findings.find((f) => f.query.includes('where id = $2'));
    expect(byId?.scans.join(' ')).toMatch(/invoice_pkey without organization_id/);
    const scan = r.findings.find((f) => f.query.includes('pdf_key = $1') && f.query.startsWith('select'));
    expect(scan?.scans.join(' ')).toMatch(/Seq Scan on invoice/);
  });

  it('a relay claim reaches its rows by organization_id even when the statistics favour scanning the whole key', async () => {
    const qdb = uniq('auditq_').toLowerCase();
    const qurl = serverUrl(qdb);
    await withClient(stack.env.production.DATABASE_URL, (c) => c.query(`create database ${qdb}`));
    try {
      await withClient(qurl, async (c) => {
        await c.query('create extension if not exists pg_stat_statements');
        await c.query(`create table relay_queue (organization_id uuid not null, item_id text not null, attempts int not null default 0,
                         next_attempt_at timestamptz not null default now(), primary key (organization_id, item_id))`);
        await c.query('create index relay_queue_due on relay_queue (next_attempt_at)');
        // Enough due rows that a generic plan of the `(org, id) in (subquery)` form hashes the claim and scans the whole key.
        await c.query(`insert into relay_queue (organization_id, item_id) select gen_random_uuid(), 'w' || g from generate_series(1, 5000) g`);
        await c.query('analyze relay_queue');
        await c.query(`select pg_stat_statements_reset(0, (select oid from pg_database where datname = current_database()), 0)`);
        await c.query(`update relay_queue o set attempts = o.attempts + 1 where (o.organization_id, o.item_id) in (
                         select organization_id, item_id from relay_queue where next_attempt_at <= now() order by next_attempt_at limit 20 for update skip locked)`);
        const claimed = await c.query(claimDueSql({ table: 'relay_queue', id: 'item_id', backoffSeconds: 2, limit: 20 }));
        expect(claimed.rows).toHaveLength(20);
        expect(Object.keys(claimed.rows[0]).sort()).toEqual(['item_id', 'organization_id']);
      });
      const r = await auditStatements(qurl);
      const flagged = r.findings.map((f) => f.query.replace(/\s+/g, ' '));
      expect(flagged).toHaveLength(1);
      expect(flagged[0]).toMatch(/^update relay_queue o set attempts = o\.attempts \+ \$1 where \(o\.organization_id, o\.item_id\) in/);
    } finally {
      await withClient(stack.env.production.DATABASE_URL, (c) => c.query(`drop database if exists ${qdb} with (force)`));
    }
  });
});
