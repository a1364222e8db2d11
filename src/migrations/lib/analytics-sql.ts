/*
 * The analytics rollups' trigger functions and back-fill, as SQL text (docs/analytics.md): the
 * rollups are maintained by statement-level triggers (transition tables) on sales_order and
 * order_item, in the same transaction as the order write. Every trigger builds a set `d` of signed
 * contributions
 *   (org, cur, ts, cust, rep, sku, rev, units, cnt, cust_label, rep_label, sku_label)
 * where an order row (sku null) carries cnt = +-1 and a line row carries rev/units = +-sub_total/quantity,
 * and then runs the same APPLY statement that adds `d` into every rollup.
 * An order counts when it is active and its status is not Cancelled.
 *
 * `credits` (Migration20261129185000_analytics_credits and later): the sales credits of an order
 * (analytics_credit: partial cancellations, returns, credit notes) count while their order counts,
 * at the credit's own instant, with rev/units = -amount/-quantity; a credit without a sku lowers the
 * totals only (cust and rep null: no customer or rep rollup row).
 * Migration20261123130822_analytics builds the same text with `credits: false`.
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

/** Credit rows (rev/units = -sign x credit, at the credit's instant) of the orders `src o`. */
const orderCredits = (src: string, sign: string, where = 'true') => `
  union all
  select o.organization_id, o.currency_code, c.occurred_at, case when c.sku is null then null else o.customer_number end,
         case when c.sku is null then null else ${REP('o')} end,
         c.sku, -(${sign}) * c.amount, -(${sign}) * c.quantity::bigint, 0, null, null, null
    from ${src} o join analytics_credit c on c.organization_id = o.organization_id and c.order_id = o.id where ${COUNTS('o')} and ${where}`;

/** Order rows (cnt = sign), their current lines (rev/units = sign x line) and, with credits, their credits. */
const orderContrib = (credits: boolean) => (src: string, sign: string, where = 'true') => `${orderRows(src, sign, where)}
  union all
  select o.organization_id, o.currency_code, o.order_date, o.customer_number, ${REP('o')},
         i.sku, (${sign}) * i.sub_total, (${sign}) * i.quantity::bigint, 0, null, null, i.product_name
    from ${src} o join order_item i on i.order_id = o.id where ${COUNTS('o')} and ${where}${credits ? orderCredits(src, sign, where) : ''}`;

/** Line rows of the lines `src i` whose current order counts. */
const lineContrib = (src: string, sign: string) => `
  select o.organization_id as org, o.currency_code as cur, o.order_date as ts, o.customer_number as cust, ${REP('o')} as rep,
         i.sku::varchar as sku, (${sign}) * i.sub_total as rev, (${sign}) * i.quantity::bigint as units, 0 as cnt,
         null::text as cust_label, null::text as rep_label, i.product_name::varchar as sku_label
    from ${src} i join sales_order o on o.id = i.order_id where ${COUNTS('o')}`;

/**
 * Credit rows of the credits `src c` whose order counts (and whose organization is not being
 * deleted: its rollups go by cascade).
 */
const creditContrib = (src: string, sign: string) => `
  select o.organization_id as org, o.currency_code as cur, c.occurred_at as ts,
         case when c.sku is null then null else o.customer_number end::varchar as cust,
         case when c.sku is null then null else ${REP('o')} end::varchar as rep,
         c.sku::varchar as sku, -(${sign}) * c.amount as rev, -(${sign}) * c.quantity::bigint as units, 0 as cnt,
         null::text as cust_label, null::text as rep_label, null::varchar as sku_label
    from ${src} c join sales_order o on o.organization_id = c.organization_id and o.id = c.order_id
    join organization g on g.id = c.organization_id where ${COUNTS('o')}`;

const DAY = `(d.ts at time zone 'UTC')::date`;
const PERIOD = `case g.grain when 'D' then (d.ts at time zone 'UTC')::date else date_trunc('month', d.ts at time zone 'UTC')::date end`;
const GRAINS = `cross join (values ('D'), ('M')) as g(grain)`;

/** Adds the contributions `d` (a CTE defined before) into every rollup; one statement, keys sorted. */
const apply = (credits: boolean) => {
  const only = (col: string) => (credits ? `\n     where d.${col} is not null` : '');
  return `,
  t as (
    insert into analytics_daily as a (organization_id, currency_code, day, revenue, order_count)
    select d.org, d.cur, ${DAY}, sum(d.rev), sum(d.cnt) from d
     group by 1, 2, 3 having sum(d.rev) <> 0 or sum(d.cnt) <> 0 order by 1, 2, 3
    on conflict (organization_id, currency_code, day)
    do update set revenue = a.revenue + excluded.revenue, order_count = a.order_count + excluded.order_count),
  c as (
    insert into analytics_customer_period as a (organization_id, currency_code, grain, period, customer_number, revenue, order_count)
    select d.org, d.cur, g.grain, ${PERIOD}, d.cust, sum(d.rev), sum(d.cnt) from d ${GRAINS}${only('cust')}
     group by 1, 2, 3, 4, 5 having sum(d.rev) <> 0 or sum(d.cnt) <> 0 order by 1, 2, 3, 4, 5
    on conflict (organization_id, currency_code, grain, period, customer_number)
    do update set revenue = a.revenue + excluded.revenue, order_count = a.order_count + excluded.order_count),
  r as (
    insert into analytics_rep_period as a (organization_id, currency_code, grain, period, rep_number, revenue, order_count)
    select d.org, d.cur, g.grain, ${PERIOD}, d.rep, sum(d.rev), sum(d.cnt) from d ${GRAINS}${only('rep')}
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
};

/** Columns whose change moves an order's contribution. */
const RELEVANT = ['organization_id', 'currency_code', 'order_date', 'customer_number', 'order_status', 'active', 'primary_sales_rep', 'customer']
  .map((c) => `n.${c} is distinct from o.${c}`)
  .join(' or ');

/**
 * The same changed orders found with EXCEPT (hashed, linear in the orders one statement updates;
 * NULLs compare equal as `is distinct from` does), and a status change counts only when it moves the
 * order into or out of Cancelled, the only status the contribution reads
 * (Migration20261129182500_analytics_order_update_linear; the credits version keeps it).
 */
const CHANGED_COLUMNS = "id, organization_id, currency_code, order_date, customer_number, lower(order_status) = 'cancelled', active, primary_sales_rep, customer";
const CHANGED_LINEAR = `select x.id from (select ${CHANGED_COLUMNS} from analytics_new except select ${CHANGED_COLUMNS} from analytics_old) x`;

const fn = (name: string, body: string, ret = 'null') => `create or replace function ${name}() returns trigger language plpgsql as $fn$
begin
${body};
  return ${ret};
end
$fn$;`;

/** The trigger functions (create or replace) and, unless `functionsOnly`, the triggers. */
export function analyticsTriggersSql(credits: boolean, functionsOnly = false): string[] {
  const APPLY = apply(credits);
  const contrib = orderContrib(credits);
  const functions = [
    // A new order has no lines yet; its lines are added by the order_item trigger (also when one
    // statement inserts both, whose triggers then both fire after it).
    fn('analytics_order_insert', `  with d as (${orderRows('analytics_new', '1')})${APPLY}`),
    fn(
      'analytics_order_update',
      `  with changed as (${credits ? CHANGED_LINEAR : `select n.id from analytics_new n join analytics_old o on o.id = n.id where ${RELEVANT}`}),
  d as (${contrib('analytics_old', '-1', 'o.id in (select id from changed)')}
  union all ${contrib('analytics_new', '1', 'o.id in (select id from changed)')})${APPLY}`,
    ),
    // BEFORE DELETE per row: the lines (and credits) are still there (the cascade deletes them
    // afterwards, and their triggers then find no order). Skipped when the organization itself is being deleted.
    fn(
      'analytics_order_delete',
      `  if not exists (select 1 from organization where id = old.organization_id) then return old; end if;
  with d as (${contrib('(select * from sales_order where id = old.id)', '-1')})${APPLY}`,
      'old',
    ),
    fn('analytics_item_insert', `  with d as (${lineContrib('analytics_new', '1')})${APPLY}`),
    fn('analytics_item_update', `  with d as (${lineContrib('analytics_old', '-1')} union all ${lineContrib('analytics_new', '1')})${APPLY}`),
    fn('analytics_item_delete', `  with d as (${lineContrib('analytics_old', '-1')})${APPLY}`),
    ...(credits
      ? [fn('analytics_credit_insert', `  with d as (${creditContrib('analytics_new', '1')})${APPLY}`), fn('analytics_credit_delete', `  with d as (${creditContrib('analytics_old', '-1')})${APPLY}`)]
      : []),
  ];
  if (functionsOnly) return functions;
  return [
    ...functions,
    `create trigger analytics_order_insert after insert on sales_order referencing new table as analytics_new for each statement execute function analytics_order_insert();`,
    `create trigger analytics_order_update after update on sales_order referencing old table as analytics_old new table as analytics_new for each statement execute function analytics_order_update();`,
    `create trigger analytics_order_delete before delete on sales_order for each row execute function analytics_order_delete();`,
    `create trigger analytics_item_insert after insert on order_item referencing new table as analytics_new for each statement execute function analytics_item_insert();`,
    `create trigger analytics_item_update after update on order_item referencing old table as analytics_old new table as analytics_new for each statement execute function analytics_item_update();`,
    `create trigger analytics_item_delete after delete on order_item referencing old table as analytics_old for each statement execute function analytics_item_delete();`,
  ];
}

/** The triggers on analytics_credit (credits: true only). */
export const ANALYTICS_CREDIT_TRIGGERS_SQL = [
  `create trigger analytics_credit_insert after insert on analytics_credit referencing new table as analytics_new for each statement execute function analytics_credit_insert();`,
  `create trigger analytics_credit_delete after delete on analytics_credit referencing old table as analytics_old for each statement execute function analytics_credit_delete();`,
];

/** Back-fill from the raw rows (the rollup tables are empty when this runs). */
export const analyticsBackfillSql = (credits: boolean) => `with d as (${orderContrib(credits)('sales_order', '1')})${apply(credits)};`;
