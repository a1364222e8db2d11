import { Migration } from '@mikro-orm/migrations';

export class Migration20261122075428_carts extends Migration {

  override name = 'Migration20261122075428_carts';

  override up(): void | Promise<void> {
    this.addSql(`create table "order_number_counter" ("organization_id" uuid not null, "last_value" bigint not null default '0', primary key ("organization_id"));`);

    this.addSql(`create table "sales_order" ("id" uuid not null, "organization_id" uuid not null, "order_number" varchar(50) not null, "order_date" timestamptz not null, "order_status" varchar(20) not null default 'Pending', "order_type" varchar(50) not null, "po_number" varchar(100) null, "price_tier" varchar(100) null, "currency_code" varchar(3) not null, "terms" varchar(50) null, "channel" varchar(50) null, "external_id" varchar(200) null, "notes" text null, "origination_cart_id" uuid null, "customer_number" varchar(255) not null, "customer" jsonb not null, "primary_sales_rep" jsonb null, "taken_by_sales_rep" jsonb null, "rep_number" varchar(255) null, "shipping_details" jsonb null, "subtotal" numeric(19,4) not null, "discount_amount" numeric(19,4) not null default '0', "tax" numeric(19,4) not null default '0', "shipping_total" numeric(19,4) not null default '0', "total" numeric(19,4) not null, "active" boolean not null default true, "payment_charge_id" varchar(100) null, "created_by_user_id" varchar(100) null, "created_by_user_type" varchar(50) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "order_org_customer_index" on "sales_order" ("organization_id", "customer_number");`);
    this.addSql(`create index "order_org_date_index" on "sales_order" ("organization_id", "order_date");`);
    this.addSql(`alter table "sales_order" add constraint "order_org_number_unique" unique ("organization_id", "order_number");`);
    this.addSql(`create unique index "order_org_external_id_unique" on "sales_order" ("organization_id", "external_id") where "external_id" is not null;`);
    this.addSql(`create unique index "order_org_cart_unique" on "sales_order" ("organization_id", "origination_cart_id") where "origination_cart_id" is not null;`);

    this.addSql(`create table "order_item" ("id" uuid not null, "order_id" uuid not null, "position" int not null default 0, "sku" varchar(100) not null, "product_name" varchar(300) not null, "quantity" int not null, "price" numeric(19,4) not null, "sub_total" numeric(19,4) not null, primary key ("id"));`);

    this.addSql(`create table "cart" ("id" uuid not null, "organization_id" uuid not null, "customer_number" varchar(255) not null, "company_name" varchar(255) not null, "status" varchar(20) not null default 'PENDING', "pricing_tier" varchar(255) not null, "currency_code" varchar(3) not null, "order_type" varchar(50) not null, "special_instructions" text null, "po_number" varchar(100) null, "shipping_address" jsonb null, "user_id" varchar(100) null, "reserved_order_number" varchar(50) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "cart_org_customer_index" on "cart" ("organization_id", "customer_number");`);
    this.addSql(`create unique index "cart_one_pending_per_customer" on "cart" ("organization_id", "customer_number") where "status" = 'PENDING';`);

    this.addSql(`create table "cart_item" ("id" uuid not null, "cart_id" uuid not null, "sku" varchar(100) not null, "name" varchar(300) not null, "quantity" int not null, "unit_price" numeric(19,4) not null, "line_total" numeric(19,4) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "cart_item" add constraint "cart_item_cart_sku_unique" unique ("cart_id", "sku");`);

    this.addSql(`alter table "sales_order" add constraint "sales_order_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);

    this.addSql(`alter table "order_item" add constraint "order_item_order_id_foreign" foreign key ("order_id") references "sales_order" ("id") on delete cascade;`);

    this.addSql(`alter table "cart" add constraint "cart_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "cart" add constraint "cart_status_check" check (status in ('PENDING', 'CLOSED'));`);

    this.addSql(`alter table "cart_item" add constraint "cart_item_cart_id_foreign" foreign key ("cart_id") references "cart" ("id") on delete cascade;`);
    this.addSql(`alter table "cart_item" add constraint "cart_item_quantity_check" check (quantity >= 1);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "order_item" drop constraint "order_item_order_id_foreign";`);
    this.addSql(`alter table "cart_item" drop constraint "cart_item_cart_id_foreign";`);

    this.addSql(`drop table if exists "order_number_counter" cascade;`);
    this.addSql(`drop table if exists "sales_order" cascade;`);
    this.addSql(`drop table if exists "order_item" cascade;`);
    this.addSql(`drop table if exists "cart" cascade;`);
    this.addSql(`drop table if exists "cart_item" cascade;`);
  }

}
