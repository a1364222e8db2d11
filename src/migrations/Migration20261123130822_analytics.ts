import { Migration } from '@mikro-orm/migrations';

import { analyticsBackfillSql, analyticsTriggersSql } from './lib/analytics-sql.js';

/*
 * Hand-written part (the generator cannot express functions and triggers): the analytics
 * rollups are maintained by statement-level triggers on sales_order and order_item, then
 * back-filled from the raw rows (the SQL text: ./lib/analytics-sql.ts; docs/analytics.md).
 */
export const ANALYTICS_TRIGGERS_SQL: string[] = analyticsTriggersSql(false);

/** Back-fill from the raw rows (the rollup tables are empty when this runs). */
export const ANALYTICS_BACKFILL_SQL = analyticsBackfillSql(false);

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
