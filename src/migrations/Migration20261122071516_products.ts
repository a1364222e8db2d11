import { Migration } from '@mikro-orm/migrations';

export class Migration20261122071516_products extends Migration {

  override name = 'Migration20261122071516_products';

  override up(): void | Promise<void> {
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create table "category" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(255) not null, "parent_id" uuid null, "active" boolean not null default true, "image_url" varchar(1000) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create unique index "category_org_name_unique" on "category" ("organization_id", lower("name"));`);

    this.addSql(`create table "product" ("id" uuid not null, "organization_id" uuid not null, "sku" varchar(100) not null, "name" varchar(300) not null, "description" text null, "category_id" uuid null, "quantity_on_hand" int not null default 0, "minimum_order_quantity" int not null default 1, "quantity_increment" int not null default 1, "weight" numeric(19,4) null, "weight_unit" varchar(20) null, "dimensions" varchar(100) null, "dimensions_unit" varchar(20) null, "upc" varchar(50) null, "active" boolean not null default true, "product_attributes" jsonb null, "external_id" varchar(200) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "product_search_trgm" on "product" using gin ((coalesce("sku", '') || ' ' || coalesce("name", '') || ' ' || coalesce("description", '') || ' ' || coalesce("upc", '')) gin_trgm_ops);`);
    this.addSql(`alter table "product" add constraint "product_org_sku_unique" unique ("organization_id", "sku");`);
    this.addSql(`create unique index "product_org_external_id_unique" on "product" ("organization_id", "external_id") where "external_id" is not null;`);

    this.addSql(`create table "product_price" ("id" uuid not null, "organization_id" uuid not null, "product_id" uuid not null, "tier" varchar(100) not null, "price" numeric(19,4) not null, "at_quantity" int not null default 1, primary key ("id"));`);
    this.addSql(`create index "product_price_org_tier_index" on "product_price" ("organization_id", "tier");`);
    this.addSql(`alter table "product_price" add constraint "product_price_product_tier_qty_unique" unique ("product_id", "tier", "at_quantity");`);

    this.addSql(`alter table "category" add constraint "category_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "category" add constraint "category_parent_id_foreign" foreign key ("parent_id") references "category" ("id") on delete set null;`);

    this.addSql(`alter table "product" add constraint "product_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "product" add constraint "product_category_id_foreign" foreign key ("category_id") references "category" ("id") on delete set null;`);
    this.addSql(`alter table "product" add constraint "product_minimum_order_quantity_check" check (minimum_order_quantity >= 1);`);
    this.addSql(`alter table "product" add constraint "product_quantity_increment_check" check (quantity_increment >= 1);`);

    this.addSql(`alter table "product_price" add constraint "product_price_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "product_price" add constraint "product_price_product_id_foreign" foreign key ("product_id") references "product" ("id") on delete cascade;`);
    this.addSql(`alter table "product_price" add constraint "product_price_at_quantity_check" check (at_quantity >= 1);`);
    this.addSql(`alter table "product_price" add constraint "product_price_price_check" check (price >= 0);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "category" drop constraint "category_parent_id_foreign";`);
    this.addSql(`alter table "product" drop constraint "product_category_id_foreign";`);
    this.addSql(`alter table "product_price" drop constraint "product_price_product_id_foreign";`);

    this.addSql(`drop table if exists "category" cascade;`);
    this.addSql(`drop table if exists "product" cascade;`);
    this.addSql(`drop table if exists "product_price" cascade;`);
  }

}
