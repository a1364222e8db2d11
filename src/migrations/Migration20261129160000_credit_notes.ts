import { Migration } from '@mikro-orm/migrations';

/**
 * Credit notes (issue 42 item 3; docs/returns.md "Credit notes"): `credit_note` (numbered
 * `CN-000001` per organization from `credit_note_counter`, linked to the invoice and order it
 * credits, the amount, what of it is applied to invoices and the applications, and what of it goes
 * back to a card: a cancelled card order's). Keys lead with
 * organization_id (DESIGN "Scale-out").
 */
export class Migration20261129160000_credit_notes extends Migration {
  override name = 'Migration20261129160000_credit_notes';

  override up(): void | Promise<void> {
    this.addSql(`create table "credit_note_counter" ("organization_id" uuid not null, "last_value" bigint not null default 0, constraint "credit_note_counter_pkey" primary key ("organization_id"));`);
    this.addSql(`create table "credit_note" (
      "organization_id" uuid not null,
      "id" uuid not null,
      "credit_note_number" varchar(50) not null,
      "invoice_id" uuid not null,
      "invoice_number" varchar(255) not null,
      "order_id" uuid null,
      "order_number" varchar(255) null,
      "customer_id" uuid null,
      "customer_number" varchar(255) not null,
      "currency_code" varchar(3) not null,
      "amount" numeric(19,4) not null,
      "amount_applied" numeric(19,4) not null default 0,
      "amount_refunded" numeric(19,4) not null default 0,
      "refund_status" varchar(20) null,
      "reason" text not null,
      "lines" jsonb null,
      "merchandise_amount" numeric(19,4) not null default 0,
      "applications" jsonb not null default '[]',
      "source" varchar(20) not null default 'Manual',
      "source_id" varchar(200) null,
      "pdf_key" varchar(500) null,
      "issued_by" varchar(100) null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "credit_note_pkey" primary key ("organization_id", "id"),
      constraint "credit_note_amount_check" check ("amount" > 0 and "amount_applied" >= 0 and "amount_refunded" >= 0 and "amount_applied" + "amount_refunded" <= "amount")
    );`);
    this.addSql(`alter table "credit_note" add constraint "credit_note_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "credit_note" add constraint "credit_note_org_number_unique" unique ("organization_id", "credit_note_number");`);
    this.addSql(`create unique index "credit_note_org_source_unique" on "credit_note" ("organization_id", "source", "source_id") where "source_id" is not null;`);
    this.addSql(`create index "credit_note_org_invoice_index" on "credit_note" ("organization_id", "invoice_id");`);
    this.addSql(`create index "credit_note_org_order_index" on "credit_note" ("organization_id", "order_id");`);
    this.addSql(`create index "credit_note_org_customer_index" on "credit_note" ("organization_id", "customer_id", "created_at");`);
    this.addSql(`create index "credit_note_org_created_index" on "credit_note" ("organization_id", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "credit_note";`);
    this.addSql(`drop table if exists "credit_note_counter";`);
  }
}
