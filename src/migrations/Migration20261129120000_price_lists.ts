import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 40 items 1 and 2 (docs/pricing.md): contract price lists with validity and priority, their
 * entries per SKU with quantity breaks, their assignments to customers and price tiers, and, on a
 * cart line, which list priced it and its price before a re-pricing at checkout.
 */
export class Migration20261129120000_price_lists extends Migration {
  override name = 'Migration20261129120000_price_lists';

  override up(): void | Promise<void> {
    this.addSql(`create table "price_list" (
      "organization_id" uuid not null, "id" uuid not null, "name" varchar(200) not null, "currency_code" varchar(3) not null,
      "valid_from" timestamptz null, "valid_to" timestamptz null, "priority" int not null default 100, "status" varchar(20) not null default 'Draft',
      "version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null,
      primary key ("organization_id", "id"),
      constraint "price_list_status_check" check (status in ('Draft', 'Active', 'Archived')),
      constraint "price_list_validity_check" check (valid_from is null or valid_to is null or valid_from < valid_to));`);
    this.addSql(`alter table "price_list" add constraint "price_list_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`create index "price_list_org_status_index" on "price_list" ("organization_id", "status", "currency_code");`);
    this.addSql(`create table "price_list_price" (
      "organization_id" uuid not null, "price_list_id" uuid not null, "sku" varchar(100) not null, "at_quantity" int not null, "price" numeric(19,4) not null,
      primary key ("organization_id", "price_list_id", "sku", "at_quantity"),
      constraint "price_list_price_quantity_check" check (at_quantity >= 1));`);
    this.addSql(`alter table "price_list_price" add constraint "price_list_price_list_foreign" foreign key ("organization_id", "price_list_id") references "price_list" ("organization_id", "id") on delete cascade;`);
    this.addSql(`create index "price_list_price_org_sku_index" on "price_list_price" ("organization_id", "sku", "price_list_id", "at_quantity");`);
    this.addSql(`create table "price_list_assignment" (
      "organization_id" uuid not null, "id" uuid not null, "price_list_id" uuid not null, "customer_id" uuid null, "price_tier_id" uuid null,
      "created_at" timestamptz not null,
      primary key ("organization_id", "id"),
      constraint "price_list_assignment_target_check" check ((customer_id is null) <> (price_tier_id is null)));`);
    this.addSql(`alter table "price_list_assignment" add constraint "price_list_assignment_list_foreign" foreign key ("organization_id", "price_list_id") references "price_list" ("organization_id", "id") on delete cascade;`);
    this.addSql(`create unique index "price_list_assignment_customer_unique" on "price_list_assignment" ("organization_id", "price_list_id", "customer_id");`);
    this.addSql(`create unique index "price_list_assignment_tier_unique" on "price_list_assignment" ("organization_id", "price_list_id", "price_tier_id");`);
    this.addSql(`create index "price_list_assignment_customer_index" on "price_list_assignment" ("organization_id", "customer_id");`);
    this.addSql(`create index "price_list_assignment_tier_index" on "price_list_assignment" ("organization_id", "price_tier_id");`);
    this.addSql(`alter table "cart_item" add column "price_list_id" uuid null, add column "previous_unit_price" numeric(19,4) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "cart_item" drop column "price_list_id", drop column "previous_unit_price";`);
    this.addSql(`drop table if exists "price_list_assignment";`);
    this.addSql(`drop table if exists "price_list_price";`);
    this.addSql(`drop table if exists "price_list";`);
  }
}
