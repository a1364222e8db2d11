import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 41 item 4 (docs/fulfillment.md): shipments of an order. `shipment` (one per
 * POST /api/orders/{orderId}/shipments, numbered SH-000001 gapless per organization from
 * `shipment_number_counter`), its lines `shipment_line`, `order_item.shipped_quantity` (what the
 * shipments of the order carried so far) and `sales_order.fulfillment_managed` (true once the
 * order's status follows its fulfillment process: a direct orderStatus write is refused).
 * Every key leads with organization_id (DESIGN "Scale-out").
 */
export class Migration20261129150000_shipments extends Migration {
  override name = 'Migration20261129150000_shipments';

  override up(): void | Promise<void> {
    this.addSql(`alter table "order_item" add column "shipped_quantity" int not null default 0;`);
    this.addSql(`alter table "order_item" add constraint "order_item_shipped_quantity_check" check ("shipped_quantity" >= 0 and "shipped_quantity" <= "quantity");`);
    this.addSql(`alter table "sales_order" add column "fulfillment_managed" boolean not null default false;`);
    this.addSql(`create table "shipment" (
      "organization_id" uuid not null,
      "id" uuid not null,
      "order_id" uuid not null,
      "shipment_number" varchar(50) not null,
      "status" varchar(20) not null default 'Shipped',
      "location_id" uuid null,
      "carrier" varchar(100) null,
      "tracking_number" varchar(200) null,
      "tracking_url" varchar(2000) null,
      "shipped_at" timestamptz not null,
      "delivered_at" timestamptz null,
      "created_by_user_id" varchar(100) null,
      "created_at" timestamptz not null,
      constraint "shipment_pkey" primary key ("organization_id", "id"),
      constraint "shipment_status_check" check ("status" in ('Shipped', 'Delivered'))
    );`);
    this.addSql(`alter table "shipment" add constraint "shipment_org_number_unique" unique ("organization_id", "shipment_number");`);
    this.addSql(`alter table "shipment" add constraint "shipment_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "shipment" add constraint "shipment_org_order_foreign" foreign key ("organization_id", "order_id") references "sales_order" ("organization_id", "id") on delete cascade;`);
    this.addSql(`create index "shipment_org_order_index" on "shipment" ("organization_id", "order_id", "shipped_at");`);
    this.addSql(`create table "shipment_line" (
      "organization_id" uuid not null,
      "shipment_id" uuid not null,
      "position" int not null,
      "sku" varchar(100) not null,
      "quantity" int not null,
      constraint "shipment_line_pkey" primary key ("organization_id", "shipment_id", "position"),
      constraint "shipment_line_quantity_check" check ("quantity" > 0)
    );`);
    this.addSql(`alter table "shipment_line" add constraint "shipment_line_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "shipment_line" add constraint "shipment_line_org_shipment_foreign" foreign key ("organization_id", "shipment_id") references "shipment" ("organization_id", "id") on delete cascade;`);
    this.addSql(`create table "shipment_number_counter" ("organization_id" uuid not null, "last_value" bigint not null default 0, constraint "shipment_number_counter_pkey" primary key ("organization_id"));`);
    this.addSql(`alter table "shipment_number_counter" add constraint "shipment_number_counter_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "shipment_number_counter";`);
    this.addSql(`drop table "shipment_line";`);
    this.addSql(`drop table "shipment";`);
    this.addSql(`alter table "sales_order" drop column "fulfillment_managed";`);
    this.addSql(`alter table "order_item" drop constraint "order_item_shipped_quantity_check";`);
    this.addSql(`alter table "order_item" drop column "shipped_quantity";`);
  }
}
