import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 41 item 3 (docs/fulfillment.md "Backorders"): backordered lines wait for stock.
 *
 * - `backorder_allocation_request`: one row per organization and product whose stock grew while
 *   lines of it wait (written by the receipt's transaction, src/services/stock/ledger.ts); `version`
 *   grows with every further receipt, so an allocation deletes only the request it has served. The
 *   API's relay (src/services/stock/backorders.ts) signals the allocateBackorders workflow of each
 *   due row until an allocation deletes it (index on next_attempt_at: the relay's claim, all
 *   organizations).
 * - `backorder_allocation`: one row per order and allocation run (what was allocated, what still
 *   waits); the order's fulfillOrder workflow sends one e-mail per row.
 * - `order_item_org_sku_backordered_index`: the waiting lines of a SKU (partial: lines with
 *   backorderedQuantity > 0 only).
 * - `organization.backorder_escalation_days`: after how many days a waiting order is escalated to
 *   the admins (default 7).
 */
export class Migration20261129182000_backorders extends Migration {
  override name = 'Migration20261129182000_backorders';

  override up(): void | Promise<void> {
    this.addSql(`create table "backorder_allocation_request" (
      "organization_id" uuid not null, "product_id" uuid not null, "sku" varchar(100) not null,
      "version" bigint not null default 1, "requested_at" timestamptz not null default now(),
      "attempts" int not null default 0, "next_attempt_at" timestamptz not null default now(), "last_error" varchar(500) null,
      primary key ("organization_id", "product_id"),
      constraint "backorder_allocation_request_product_foreign" foreign key ("organization_id", "product_id") references "product" ("organization_id", "id") on delete cascade);`);
    this.addSql(`create index "backorder_allocation_request_next_attempt_at_index" on "backorder_allocation_request" ("next_attempt_at");`);
    this.addSql(`create table "backorder_allocation" (
      "organization_id" uuid not null, "id" uuid not null, "order_id" uuid not null, "sku" varchar(100) not null,
      "quantity" int not null, "remaining" int not null, "allocated_at" timestamptz not null default now(),
      primary key ("organization_id", "id"),
      constraint "backorder_allocation_order_foreign" foreign key ("organization_id", "order_id") references "sales_order" ("organization_id", "id") on delete cascade,
      constraint "backorder_allocation_quantity_check" check ("quantity" > 0 and "remaining" >= 0));`);
    this.addSql(`create index "backorder_allocation_org_order_index" on "backorder_allocation" ("organization_id", "order_id", "allocated_at");`);
    this.addSql(`create index "order_item_org_sku_backordered_index" on "order_item" ("organization_id", "sku") where "backordered_quantity" > 0;`);
    this.addSql(`alter table "order_item" add constraint "order_item_backordered_quantity_check" check ("backordered_quantity" >= 0);`);
    this.addSql(`alter table "organization" add column "backorder_escalation_days" int not null default 7;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "organization" drop column "backorder_escalation_days";`);
    this.addSql(`alter table "order_item" drop constraint "order_item_backordered_quantity_check";`);
    this.addSql(`drop index if exists "order_item_org_sku_backordered_index";`);
    this.addSql(`drop table if exists "backorder_allocation";`);
    this.addSql(`drop table if exists "backorder_allocation_request";`);
  }
}
