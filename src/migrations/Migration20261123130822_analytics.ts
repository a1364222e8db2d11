import { Migration } from '@mikro-orm/migrations';

/*
 * Hand-written part (the generator cannot express functions and triggers): the analytics
 * rollups are maintained by statement-level triggers (transition tables) on sales_order and
 * order_item, in the same transaction as the order write, then back-filled from the raw rows.
 * See docs/analytics.md. Every trigger builds a set `d` of signed contributions
 *   (org, cur, ts, cust, rep, sku, rev, units, cnt, cust_label, rep_label, sku_label)
 * where an order row (sku null) carries cnt = +-1 and a line row carries rev/units = +-sub_total/quantity,
 * and then runs the same APPLY statement that adds `d` into every rollup.
 * An order counts when it is active and its status is not Cancelled.
 */
const COUNTS = (o: string) => `${o}.active and lower(${o}.order_status) <> 'cancelled'`;
const REP = (o: string) => `coalesce(${o}.primary_sales_rep->>'repNumber', '')`;
const REP_LABEL = (o: string) =>
  `coalesce(nullif(trim(${o}.primary_sales_rep->>'fullName'), ''), nullif(trim(concat_ws(' ', ${o}.primary_sales_rep->>'firstName', ${o}.primary_sales_rep->>'lastName')), ''))`;

/** Order rows (cnt = sign) of the orders `src o`, without their lines. */
const orderRows = (src: string, sign: string, where = 'true') => `
  select o.organization_id as org, o.currency_code as cur, o.order_date as ts, o.customer_number as cust, ${REP('o')} as rep,
         null::varchar as sku, 0::numeric as rev, 0::bigint as units, (${sign})::int as cnt,
         o.customer->>'companyName' as cust_label, ${REP_LABEL('o')} as rep_label, null::varchar as sku_label
    from ${src} o where ${COUNTS('o')} and ${where}`;

/** Order rows (cnt = sign) and their current lines (rev/units = sign x line) of the orders `src o`. */
const orderContrib = (src: string, sign: string, where = 'true') => `${orderRows(src, sign, where)}
  union all
  select o.organization_id, o.currency_code, o.order_date, o.customer_number, ${REP('o')},
         i.sku, (${sign}) * i.sub_total, (${sign}) * i.quantity::bigint, 0, null, null, i.product_name
    from ${src} o join order_item i on i.order_id = o.id where ${COUNTS('o')} and ${where}`;

/** Line rows of the lines `src i` whose current order counts. */
const lineContrib = (src: string, sign: string) => `
  select o.organization_id as org, o.currency_code as cur, o.order_date as ts, o.customer_number as cust, ${REP('o')} as rep,
         i.sku::varchar as sku, (${sign}) * i.sub_total as rev, (${sign}) * i.quantity::bigint as units, 0 as cnt,
         null::text as cust_label, null::text as rep_label, i.product_name::varchar as sku_label
    from ${src} i join sales_order o on o.id = i.order_id where ${COUNTS('o')}`;

const DAY = `(d.ts at time zone 'UTC')::date`;
const PERIOD = `case g.grain when 'D' then (d.ts at time zone 'UTC')::date else date_trunc('month', d.ts at time zone 'UTC')::date end`;
const GRAINS = `cross join (values ('D'), ('M')) as g(grain)`;

/** Adds the contributions `d` (a CTE defined before) into every rollup; one statement, keys sorted. */
const APPLY = `,
  t as (
    insert into analytics_daily as a (organization_id, currency_code, day, revenue, order_count)
    select d.org, d.cur, ${DAY}, sum(d.rev), sum(d.cnt) from d
     group by 1, 2, 3 having sum(d.rev) <> 0 or sum(d.cnt) <> 0 order by 1, 2, 3
    on conflict (organization_id, currency_code, day)
    do update set revenue = a.revenue + excluded.revenue, order_count = a.order_count + excluded.order_count),
  c as (
    insert into analytics_customer_period as a (organization_id, currency_code, grain, period, customer_number, revenue, order_count)
    select d.org, d.cur, g.grain, ${PERIOD}, d.cust, sum(d.rev), sum(d.cnt) from d ${GRAINS}
     group by 1, 2, 3, 4, 5 having sum(d.rev) <> 0 or sum(d.cnt) <> 0 order by 1, 2, 3, 4, 5
    on conflict (organization_id, currency_code, grain, period, customer_number)
    do update set revenue = a.revenue + excluded.revenue, order_count = a.order_count + excluded.order_count),
  r as (
    insert into analytics_rep_period as a (organization_id, currency_code, grain, period, rep_number, revenue, order_count)
    select d.org, d.cur, g.grain, ${PERIOD}, d.rep, sum(d.rev), sum(d.cnt) from d ${GRAINS}
     group by 1, 2, 3, 4, 5 having sum(d.rev) <> 0 or sum(d.cnt) <> 0 order by 1, 2, 3, 4, 5
    on conflict (organization_id, currency_code, grain, period, rep_number)
    do update set revenue = a.revenue + excluded.revenue, order_count = a.order_count + excluded.order_count),
  s as (
    insert into analytics_sku_period as a (organization_id, currency_code, grain, period, sku, revenue, units)
    select d.org, d.cur, g.grain, ${PERIOD}, d.sku, sum(d.rev), sum(d.units) from d ${GRAINS}
     where d.sku is not null
     group by 1, 2, 3, 4, 5 having sum(d.rev) <> 0 or sum(d.units) <> 0 order by 1, 2, 3, 4, 5
    on conflict (organization_id, currency_code, grain, period, sku)
    do update set revenue = a.revenue + excluded.revenue, units = a.units + excluded.units)
  insert into analytics_label as a (organization_id, kind, key, label, seen_at)
  select distinct on (x.org, x.kind, x.key) x.org, x.kind, x.key, x.label, x.ts from (
    select d.org, 'C' as kind, d.cust as key, d.cust_label as label, d.ts from d where d.cnt > 0
    union all select d.org, 'R', d.rep, d.rep_label, d.ts from d where d.cnt > 0 and d.rep <> ''
    union all select d.org, 'P', d.sku, d.sku_label, d.ts from d where d.units > 0
  ) x order by x.org, x.kind, x.key, x.ts desc
  on conflict (organization_id, kind, key)
  do update set label = excluded.label, seen_at = excluded.seen_at where excluded.seen_at >= a.seen_at`;

/** Columns whose change moves an order's contribution. */
const RELEVANT = ['organization_id', 'currency_code', 'order_date', 'customer_number', 'order_status', 'active', 'primary_sales_rep', 'customer']
  .map((c) => `n.${c} is distinct from o.${c}`)
  .join(' or ');

const fn = (name: string, body: string, ret = 'null') => `create or replace function ${name}() returns trigger language plpgsql as $fn$
begin
${body};
  return ${ret};
end
$fn$;`;

export const ANALYTICS_TRIGGERS_SQL: string[] = [
  // A new order has no lines yet; its lines are added by the order_item trigger (also when one
  // statement inserts both, whose triggers then both fire after it).
  fn('analytics_order_insert', `  with d as (${orderRows('analytics_new', '1')})${APPLY}`),
  fn(
    'analytics_order_update',
    `  with changed as (select n.id from analytics_new n join analytics_old o on o.id = n.id where ${RELEVANT}),
  d as (${orderContrib('analytics_old', '-1', 'o.id in (select id from changed)')}
  union all ${orderContrib('analytics_new', '1', 'o.id in (select id from changed)')})${APPLY}`,
  ),
  // BEFORE DELETE per row: the lines are still there (the cascade deletes them afterwards, and
  // their trigger then finds no order). Skipped when the organization itself is being deleted.
  fn(
    'analytics_order_delete',
    `  if not exists (select 1 from organization where id = old.organization_id) then return old; end if;
  with d as (${orderContrib('(select * from sales_order where id = old.id)', '-1')})${APPLY}`,
    'old',
  ),
  fn('analytics_item_insert', `  with d as (${lineContrib('analytics_new', '1')})${APPLY}`),
  fn('analytics_item_update', `  with d as (${lineContrib('analytics_old', '-1')} union all ${lineContrib('analytics_new', '1')})${APPLY}`),
  fn('analytics_item_delete', `  with d as (${lineContrib('analytics_old', '-1')})${APPLY}`),
  `create trigger analytics_order_insert after insert on sales_order referencing new table as analytics_new for each statement execute function analytics_order_insert();`,
  `create trigger analytics_order_update after update on sales_order referencing old table as analytics_old new table as analytics_new for each statement execute function analytics_order_update();`,
  `create trigger analytics_order_delete before delete on sales_order for each row execute function analytics_order_delete();`,
  `create trigger analytics_item_insert after insert on order_item referencing new table as analytics_new for each statement execute function analytics_item_insert();`,
  `create trigger analytics_item_update after update on order_item referencing old table as analytics_old new table as analytics_new for each statement execute function analytics_item_update();`,
  `create trigger analytics_item_delete after delete on order_item referencing old table as analytics_old for each statement execute function analytics_item_delete();`,
];

/** Back-fill from the raw rows (the rollup tables are empty when this runs). */
export const ANALYTICS_BACKFILL_SQL = `with d as (${orderContrib('sales_order', '1')})${APPLY};`;

export class Migration20261123130822_analytics extends Migration {
  override name = 'Migration20261123130822_analytics';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "analytics_sku_period" ("organization_id" uuid not null, "currency_code" varchar(3) not null, "grain" varchar(1) not null, "period" date not null, "sku" varchar(100) not null, "revenue" numeric(24,4) not null default '0', "units" bigint not null default '0', primary key ("organization_id", "currency_code", "grain", "period", "sku"));`,
    );

    this.addSql(
      `create table "analytics_rep_period" ("organization_id" uuid not null, "currency_code" varchar(3) not null, "grain" varchar(1) not null, "period" date not null, "rep_number" varchar(255) not null, "revenue" numeric(24,4) not null default '0', "order_count" bigint not null default '0', primary key ("organization_id", "currency_code", "grain", "period", "rep_number"));`,
    );

    this.addSql(
      `create table "analytics_label" ("organization_id" uuid not null, "kind" varchar(1) not null, "key" varchar(255) not null, "label" varchar(300) null, "seen_at" timestamptz not null, primary key ("organization_id", "kind", "key"));`,
    );

    this.addSql(
      `create table "analytics_daily" ("organization_id" uuid not null, "currency_code" varchar(3) not null, "day" date not null, "revenue" numeric(24,4) not null default '0', "order_count" bigint not null default '0', primary key ("organization_id", "currency_code", "day"));`,
    );

    this.addSql(
      `create table "analytics_customer_period" ("organization_id" uuid not null, "currency_code" varchar(3) not null, "grain" varchar(1) not null, "period" date not null, "customer_number" varchar(255) not null, "revenue" numeric(24,4) not null default '0', "order_count" bigint not null default '0', primary key ("organization_id", "currency_code", "grain", "period", "customer_number"));`,
    );

    this.addSql(
      `alter table "analytics_sku_period" add constraint "analytics_sku_period_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "analytics_rep_period" add constraint "analytics_rep_period_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "analytics_label" add constraint "analytics_label_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "analytics_daily" add constraint "analytics_daily_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "analytics_customer_period" add constraint "analytics_customer_period_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );

    // Generated (OrderItem.order index): the raw-row edges of a range read lines by order.
    this.addSql(`create index "order_item_order_id_index" on "order_item" ("order_id");`);

    // Hand-written (see the top of this file): trigger functions, triggers, back-fill.
    for (const sql of ANALYTICS_TRIGGERS_SQL) this.addSql(sql);
    // The back-fill groups every order line once; enough memory keeps its sorts off disk.
    this.addSql(`set local work_mem = '256MB';`);
    this.addSql(ANALYTICS_BACKFILL_SQL);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "order_item_order_id_index";`);
    for (const t of ['analytics_order_insert', 'analytics_order_update', 'analytics_order_delete']) this.addSql(`drop trigger if exists ${t} on sales_order;`);
    for (const t of ['analytics_item_insert', 'analytics_item_update', 'analytics_item_delete']) this.addSql(`drop trigger if exists ${t} on order_item;`);
    for (const t of ['order_insert', 'order_update', 'order_delete', 'item_insert', 'item_update', 'item_delete'])
      this.addSql(`drop function if exists analytics_${t}();`);
    this.addSql(`drop table if exists "analytics_sku_period" cascade;`);
    this.addSql(`drop table if exists "analytics_rep_period" cascade;`);
    this.addSql(`drop table if exists "analytics_label" cascade;`);
    this.addSql(`drop table if exists "analytics_daily" cascade;`);
    this.addSql(`drop table if exists "analytics_customer_period" cascade;`);
  }
}
