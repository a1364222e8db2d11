import { Migration } from '@mikro-orm/migrations';

/**
 * Read path (issue 18 items 2-3, docs/decisions.md "Read path"):
 *
 * 1. `row_count`: exact per-organization product counts (all and active), maintained by
 *    statement-level triggers with transition tables in the writing transaction, so an
 *    unfiltered product list's total is a primary-key read, not a count over the tenant.
 * 2. Cache invalidation: every row that authentication claims, credential and token versions, API
 *    keys or an organization's price tiers are read from sends `NOTIFY b2b_cache, '<o|u>:<id>'`
 *    when it changes (`o:` an organization's entries, `u:` one user's entries), delivered at
 *    commit to every API process listening (src/services/auth/cache.ts).
 */
const notifyFn = `create or replace function b2b_cache_notify() returns trigger language plpgsql as $fn$
begin
  if tg_op <> 'INSERT' then perform pg_notify('b2b_cache', tg_argv[0] || ':' || (to_jsonb(old) ->> tg_argv[1])); end if;
  if tg_op <> 'DELETE' then perform pg_notify('b2b_cache', tg_argv[0] || ':' || (to_jsonb(new) ->> tg_argv[1])); end if;
  return null;
end
$fn$;`;

/** [trigger name, table, events (+ when), kind, column] */
const NOTIFY_TRIGGERS: [string, string, string, 'o' | 'u', string][] = [
  ['b2b_cache_organization_upd', 'organization', 'update', 'o', 'id'],
  ['b2b_cache_organization_del', 'organization', 'delete', 'o', 'id'],
  ['b2b_cache_app_user_upd', 'app_user', 'update', 'u', 'id'],
  ['b2b_cache_app_user_del', 'app_user', 'delete', 'u', 'id'],
  ['b2b_cache_member', 'organization_member', 'insert or update or delete', 'u', 'user_id'],
  ['b2b_cache_sales_rep', 'sales_rep', 'update or delete', 'u', 'user_id'],
  ['b2b_cache_org_sales_rep', 'organization_sales_rep', 'insert or update or delete', 'o', 'organization_id'],
  ['b2b_cache_user_customer', 'user_customer', 'insert or update or delete', 'u', 'user_id'],
  ['b2b_cache_customer_upd', 'customer', 'update', 'o', 'organization_id'],
  ['b2b_cache_customer_del', 'customer', 'delete', 'o', 'organization_id'],
  ['b2b_cache_price_tier', 'price_tier', 'insert or update or delete', 'o', 'organization_id'],
  ['b2b_cache_api_credential', 'api_credential', 'insert or update or delete', 'o', 'organization_id'],
];

/** Updates that change nothing the caches hold send nothing (a login stamp, a customer's address). */
const WHEN: Record<string, string> = {
  b2b_cache_organization_upd: 'old.credential_version is distinct from new.credential_version',
  b2b_cache_app_user_upd: 'old.token_version is distinct from new.token_version or old.is_super is distinct from new.is_super',
  b2b_cache_customer_upd: 'old.pricing is distinct from new.pricing or old.customer_number is distinct from new.customer_number',
};

const countFn = (name: string, body: string) => `create or replace function ${name}() returns trigger language plpgsql as $fn$
begin
  ${body};
  return null;
end
$fn$;`;

export const ROW_COUNT_SQL: string[] = [
  countFn(
    'row_count_product_insert',
    `insert into row_count (organization_id, kind, total, active)
     select organization_id, 'product', count(*), count(*) filter (where active) from row_count_new group by organization_id
     on conflict (organization_id, kind) do update set total = row_count.total + excluded.total, active = row_count.active + excluded.active`,
  ),
  countFn(
    'row_count_product_update',
    `update row_count r set active = r.active + d.delta
       from (select n.organization_id, sum(case when n.active then 1 else -1 end) as delta
               from row_count_new n join row_count_old o on o.id = n.id
              where n.active is distinct from o.active group by n.organization_id) d
      where r.organization_id = d.organization_id and r.kind = 'product'`,
  ),
  // Plain update (never an upsert): when the organization itself is being deleted, its row is already gone.
  countFn(
    'row_count_product_delete',
    `update row_count r set total = r.total - d.t, active = r.active - d.a
       from (select organization_id, count(*) as t, count(*) filter (where active) as a from row_count_old group by organization_id) d
      where r.organization_id = d.organization_id and r.kind = 'product'`,
  ),
  `create trigger row_count_product_insert after insert on product referencing new table as row_count_new for each statement execute function row_count_product_insert();`,
  `create trigger row_count_product_update after update on product referencing old table as row_count_old new table as row_count_new for each statement execute function row_count_product_update();`,
  `create trigger row_count_product_delete after delete on product referencing old table as row_count_old for each statement execute function row_count_product_delete();`,
];

export class Migration20261124203000_read_caches extends Migration {
  override name = 'Migration20261124203000_read_caches';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "row_count" ("organization_id" uuid not null, "kind" varchar(20) not null, "total" bigint not null default '0', "active" bigint not null default '0', primary key ("organization_id", "kind"));`,
    );
    this.addSql(`alter table "row_count" add constraint "row_count_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    for (const s of ROW_COUNT_SQL) this.addSql(s);
    this.addSql(
      `insert into row_count (organization_id, kind, total, active) select organization_id, 'product', count(*), count(*) filter (where active) from product group by organization_id;`,
    );
    this.addSql(notifyFn);
    for (const [name, table, events, kind, column] of NOTIFY_TRIGGERS) {
      const when = WHEN[name] ? ` when (${WHEN[name]})` : '';
      this.addSql(`create trigger ${name} after ${events} on "${table}" for each row${when} execute function b2b_cache_notify('${kind}', '${column}');`);
    }
  }

  override down(): void | Promise<void> {
    for (const [name, table] of NOTIFY_TRIGGERS) this.addSql(`drop trigger if exists ${name} on "${table}";`);
    this.addSql(`drop function if exists b2b_cache_notify();`);
    for (const t of ['insert', 'update', 'delete']) {
      this.addSql(`drop trigger if exists row_count_product_${t} on product;`);
      this.addSql(`drop function if exists row_count_product_${t}();`);
    }
    this.addSql(`drop table if exists "row_count" cascade;`);
  }
}
