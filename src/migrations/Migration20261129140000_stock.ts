import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 41 items 1 and 2 (docs/fulfillment.md "Stock", "Reservations"): stock locations per
 * organization (one default), a level per product and location (on hand, reserved) and the
 * ledger of every movement that changed a level (receipt, adjustment, reservation, release,
 * shipment), written in the same transaction as the level. Products say whether they are tracked,
 * may be backordered and their lead time; an order line records the quantity backordered.
 */
export class Migration20261129140000_stock extends Migration {
  override name = 'Migration20261129140000_stock';

  override up(): void | Promise<void> {
    this.addSql(`create table "stock_location" (
      "organization_id" uuid not null, "id" uuid not null, "name" varchar(200) not null, "code" varchar(50) not null,
      "priority" int not null default 100, "is_default" boolean not null default false, "active" boolean not null default true,
      "address" jsonb null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(),
      primary key ("organization_id", "id"),
      constraint "stock_location_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade);`);
    this.addSql(`create unique index "stock_location_org_code_unique" on "stock_location" ("organization_id", "code");`);
    this.addSql(`create unique index "stock_location_org_default_unique" on "stock_location" ("organization_id") where "is_default";`);
    this.addSql(`create table "stock_level" (
      "organization_id" uuid not null, "product_id" uuid not null, "location_id" uuid not null,
      "on_hand" int not null default 0, "reserved" int not null default 0, "updated_at" timestamptz not null default now(),
      primary key ("organization_id", "product_id", "location_id"),
      constraint "stock_level_product_foreign" foreign key ("organization_id", "product_id") references "product" ("organization_id", "id") on delete cascade,
      constraint "stock_level_location_foreign" foreign key ("organization_id", "location_id") references "stock_location" ("organization_id", "id") on delete cascade,
      constraint "stock_level_on_hand_check" check ("on_hand" >= 0),
      constraint "stock_level_reserved_check" check ("reserved" >= 0 and "reserved" <= "on_hand"));`);
    this.addSql(`create index "stock_level_org_location_index" on "stock_level" ("organization_id", "location_id");`);
    this.addSql(`create table "stock_movement" (
      "organization_id" uuid not null, "id" uuid not null, "product_id" uuid not null, "location_id" uuid not null,
      "kind" varchar(20) not null, "quantity" int not null, "reserved_quantity" int not null default 0,
      "reason" varchar(500) null, "order_id" uuid null, "reference" varchar(200) null, "created_by" varchar(100) null,
      "created_at" timestamptz not null default now(),
      primary key ("organization_id", "id"),
      constraint "stock_movement_level_foreign" foreign key ("organization_id", "product_id", "location_id")
        references "stock_level" ("organization_id", "product_id", "location_id") on delete cascade,
      constraint "stock_movement_kind_check" check ("kind" in ('receipt', 'adjustment', 'reservation', 'release', 'shipment')));`);
    this.addSql(`create index "stock_movement_org_product_index" on "stock_movement" ("organization_id", "product_id", "location_id", "created_at");`);
    this.addSql(`create index "stock_movement_org_order_index" on "stock_movement" ("organization_id", "order_id") where "order_id" is not null;`);
    this.addSql(`alter table "product" add column "track_inventory" boolean not null default false,
      add column "allow_backorder" boolean not null default false, add column "lead_time_days" int null;`);
    this.addSql(`alter table "order_item" add column "backordered_quantity" int not null default 0;`);
    this.addSql(`alter table "import_job" drop constraint "import_job_kind_check";`);
    this.addSql(`alter table "import_job" add constraint "import_job_kind_check" check (kind in ('customers', 'products', 'prices', 'orders', 'invoices', 'user-customer-links', 'catalog-assignments', 'price-lists', 'inventory'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "import_job" drop constraint "import_job_kind_check";`);
    this.addSql(`alter table "import_job" add constraint "import_job_kind_check" check (kind in ('customers', 'products', 'prices', 'orders', 'invoices', 'user-customer-links', 'catalog-assignments', 'price-lists'));`);
    this.addSql(`alter table "order_item" drop column "backordered_quantity";`);
    this.addSql(`alter table "product" drop column "track_inventory", drop column "allow_backorder", drop column "lead_time_days";`);
    this.addSql(`drop table if exists "stock_movement";`);
    this.addSql(`drop table if exists "stock_level";`);
    this.addSql(`drop table if exists "stock_location";`);
  }
}
