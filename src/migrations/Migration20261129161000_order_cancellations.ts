import { Migration } from '@mikro-orm/migrations';

/**
 * Order cancellations (issue 42 item 1; docs/returns.md "Cancellation"): `order_cancellation` (one
 * row per cancel request: lines, amount, reason, the card refund's key and status, the credit note it
 * issued) and each order line's cancelled quantity. Keys lead with organization_id.
 */
export class Migration20261129161000_order_cancellations extends Migration {
  override name = 'Migration20261129161000_order_cancellations';

  override up(): void | Promise<void> {
    this.addSql(`alter table "order_item" add column "cancelled_quantity" int not null default 0;`);
    this.addSql(`create table "order_cancellation" (
      "organization_id" uuid not null,
      "id" uuid not null,
      "order_id" uuid not null,
      "order_number" varchar(50) not null,
      "customer_id" uuid null,
      "customer_number" varchar(255) not null,
      "currency_code" varchar(3) not null,
      "lines" jsonb not null,
      "amount" numeric(19,4) not null,
      "merchandise_amount" numeric(19,4) not null,
      "whole_order" boolean not null,
      "reason" text not null,
      "refund_key" varchar(200) null,
      "refund_status" varchar(20) null,
      "charge_id" varchar(100) null,
      "credit_note_id" uuid null,
      "cancelled_by" varchar(100) null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "order_cancellation_pkey" primary key ("organization_id", "id"),
      constraint "order_cancellation_amount_check" check ("amount" >= 0)
    );`);
    this.addSql(`alter table "order_cancellation" add constraint "order_cancellation_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`create index "order_cancellation_org_order_index" on "order_cancellation" ("organization_id", "order_id", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "order_cancellation";`);
    this.addSql(`alter table "order_item" drop column "cancelled_quantity";`);
  }
}
