import { Migration } from '@mikro-orm/migrations';
import { ANALYTICS_CREDIT_TRIGGERS_SQL, analyticsTriggersSql } from './lib/analytics-sql.js';

/**
 * Analytics net of partial cancellations, returns and credit notes (issue 42 item 4;
 * docs/analytics.md "Credits"): `analytics_credit` holds one row per credited line (sku, quantity,
 * merchandise amount) or per credit not tied to lines (sku null), at the instant of the credit. The
 * trigger functions are re-created to count an order's credits while the order counts, and two
 * triggers on analytics_credit add and remove them. Existing credits (partial cancellations and
 * manual credit notes with an order) are copied in, which the insert trigger rolls up.
 */
export class Migration20261129185000_analytics_credits extends Migration {
  override name = 'Migration20261129185000_analytics_credits';

  override up(): void | Promise<void> {
    this.addSql(`create table "analytics_credit" (
      "organization_id" uuid not null,
      "id" uuid not null,
      "order_id" uuid not null,
      "occurred_at" timestamptz not null,
      "sku" varchar(100) null,
      "quantity" int not null default 0,
      "amount" numeric(19,4) not null,
      "source_kind" varchar(20) not null,
      "source_id" uuid not null,
      constraint "analytics_credit_pkey" primary key ("organization_id", "id"),
      constraint "analytics_credit_source_kind_check" check ("source_kind" in ('cancellation', 'return', 'credit_note')),
      constraint "analytics_credit_amount_check" check ("amount" >= 0)
    );`);
    this.addSql(
      `alter table "analytics_credit" add constraint "analytics_credit_org_order_foreign" foreign key ("organization_id", "order_id") references "sales_order" ("organization_id", "id") on delete cascade;`,
    );
    this.addSql(`create index "analytics_credit_org_occurred_index" on "analytics_credit" ("organization_id", "occurred_at");`);
    this.addSql(`create index "analytics_credit_org_order_index" on "analytics_credit" ("organization_id", "order_id");`);
    this.addSql(`create index "analytics_credit_org_source_index" on "analytics_credit" ("organization_id", "source_kind", "source_id");`);
    for (const sql of analyticsTriggersSql(true, true)) this.addSql(sql);
    for (const sql of ANALYTICS_CREDIT_TRIGGERS_SQL) this.addSql(sql);
    // Partial cancellations already made: one credit per cancelled line.
    this.addSql(`insert into analytics_credit (organization_id, id, order_id, occurred_at, sku, quantity, amount, source_kind, source_id)
      select c.organization_id, gen_random_uuid(), c.order_id, c.created_at, l->>'sku', (l->>'quantity')::int, (l->>'amount')::numeric, 'cancellation', c.id
        from order_cancellation c cross join jsonb_array_elements(c.lines) l where not c.whole_order;`);
    // Manual credit notes of an order's invoice: their lines, or their amount (totals only).
    this.addSql(`insert into analytics_credit (organization_id, id, order_id, occurred_at, sku, quantity, amount, source_kind, source_id)
      select n.organization_id, gen_random_uuid(), n.order_id, n.created_at, l->>'sku', (l->>'quantity')::int, (l->>'amount')::numeric, 'credit_note', n.id
        from credit_note n cross join jsonb_array_elements(n.lines) l
       where n.source = 'Manual' and n.order_id is not null and jsonb_typeof(n.lines) = 'array' and jsonb_array_length(n.lines) > 0
         and exists (select 1 from sales_order o where o.organization_id = n.organization_id and o.id = n.order_id)
      union all
      select n.organization_id, gen_random_uuid(), n.order_id, n.created_at, null, 0, n.amount, 'credit_note', n.id
        from credit_note n
       where n.source = 'Manual' and n.order_id is not null and (n.lines is null or jsonb_typeof(n.lines) <> 'array' or jsonb_array_length(n.lines) = 0)
         and exists (select 1 from sales_order o where o.organization_id = n.organization_id and o.id = n.order_id);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "analytics_credit" cascade;`);
    for (const sql of analyticsTriggersSql(false, true)) this.addSql(sql);
    this.addSql(`drop function if exists analytics_credit_insert();`);
    this.addSql(`drop function if exists analytics_credit_delete();`);
  }
}
