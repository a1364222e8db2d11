import { Migration } from '@mikro-orm/migrations';

/**
 * Returns (RMA; issue 42 item 2; docs/returns.md "Returns"): `order_return` (one row per return
 * request: numbered `RMA-000001` per organization from `return_counter`, the order, the lines with
 * their reason and, once received, their disposition, the status and each step's time, the money
 * step's method, refund key and credit note) and the organization's return settings (window in
 * days after the shipment; refund policy `card` or `credit`). Keys lead with organization_id; the
 * id index serves the ORM's updates by primary key.
 */
export class Migration20261129183000_returns extends Migration {
  override name = 'Migration20261129183000_returns';

  override up(): void | Promise<void> {
    this.addSql(`alter table "organization" add column "return_window_days" int not null default 30, add column "return_refund_policy" varchar(10) not null default 'card';`);
    this.addSql(`alter table "organization" add constraint "organization_return_settings_check" check ("return_window_days" >= 0 and "return_refund_policy" in ('card', 'credit'));`);
    this.addSql(`create table "return_counter" ("organization_id" uuid not null, "last_value" bigint not null default 0, constraint "return_counter_pkey" primary key ("organization_id"));`);
    this.addSql(`create table "order_return" (
      "organization_id" uuid not null,
      "id" uuid not null,
      "rma_number" varchar(50) not null,
      "order_id" uuid not null,
      "order_number" varchar(50) not null,
      "customer_id" uuid null,
      "customer_number" varchar(255) not null,
      "currency_code" varchar(3) not null,
      "status" varchar(20) not null,
      "lines" jsonb not null,
      "amount" numeric(19,4) not null,
      "refund_method" varchar(10) null,
      "refund_key" varchar(200) null,
      "charge_id" varchar(100) null,
      "credit_note_id" uuid null,
      "message" text null,
      "steps" jsonb not null default '[]',
      "requested_by" varchar(100) null,
      "reminder_sent_at" timestamptz null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "order_return_pkey" primary key ("organization_id", "id"),
      constraint "order_return_amount_check" check ("amount" >= 0)
    );`);
    this.addSql(`alter table "order_return" add constraint "order_return_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "order_return" add constraint "order_return_org_number_unique" unique ("organization_id", "rma_number");`);
    this.addSql(`create index "order_return_org_order_index" on "order_return" ("organization_id", "order_id", "created_at");`);
    this.addSql(`create index "order_return_org_customer_index" on "order_return" ("organization_id", "customer_id", "created_at");`);
    this.addSql(`create index "order_return_org_created_index" on "order_return" ("organization_id", "created_at");`);
    this.addSql(`create index "order_return_id_index" on "order_return" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "order_return";`);
    this.addSql(`drop table if exists "return_counter";`);
    this.addSql(`alter table "organization" drop constraint if exists "organization_return_settings_check", drop column "return_window_days", drop column "return_refund_policy";`);
  }
}
