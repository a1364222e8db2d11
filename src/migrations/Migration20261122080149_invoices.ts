import { Migration } from '@mikro-orm/migrations';

export class Migration20261122080149_invoices extends Migration {

  override name = 'Migration20261122080149_invoices';

  override up(): void | Promise<void> {
    this.addSql(`create table "invoice_counter" ("organization_id" uuid not null, "last_number" bigint not null default '0', primary key ("organization_id"));`);

    this.addSql(`create table "invoice" ("id" uuid not null, "organization_id" uuid not null, "order_id" uuid not null, "order_number" varchar(255) null, "invoice_number" varchar(255) not null, "external_id" varchar(255) null, "status" varchar(20) not null default 'Draft', "invoice_date" timestamptz not null, "due_date" timestamptz not null, "terms" varchar(255) not null, "currency_code" varchar(3) not null, "po_number" varchar(255) null, "notes" text null, "customer_number" varchar(255) not null, "customer" jsonb not null, "primary_sales_rep" jsonb not null, "items" jsonb not null, "discount" jsonb null, "refunds" jsonb null, "tax_input" numeric(19,4) not null default '0', "imported_invoice_total" numeric(19,4) null, "imported_balance" numeric(19,4) null, "subtotal" numeric(19,4) not null default '0', "discount_amount" numeric(19,4) not null default '0', "tax" numeric(19,4) not null default '0', "total" numeric(19,4) not null default '0', "imported_paid" numeric(19,4) not null default '0', "amount_paid" numeric(19,4) not null default '0', "active" boolean not null default true, "pdf_key" varchar(255) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "invoice_org_customer_index" on "invoice" ("organization_id", "customer_number");`);
    this.addSql(`create index "invoice_org_order_index" on "invoice" ("organization_id", "order_id");`);
    this.addSql(`alter table "invoice" add constraint "invoice_org_number_unique" unique ("organization_id", "invoice_number");`);
    this.addSql(`create unique index "invoice_org_external_id_unique" on "invoice" ("organization_id", "external_id") where "external_id" is not null;`);

    this.addSql(`create table "invoice_payment" ("id" uuid not null, "organization_id" uuid not null, "invoice_id" uuid not null, "amount" numeric(19,4) not null, "refunded_amount" numeric(19,4) not null default '0', "currency_code" varchar(3) not null, "method" varchar(255) not null, "status" varchar(255) not null default 'Completed', "payment_date" timestamptz not null, "reference" varchar(255) null, "notes" text null, "payment_profile_id" varchar(255) null, "card_type" varchar(255) null, "last4digits" varchar(4) null, "provider_charge_id" varchar(255) null, "idempotency_key" varchar(255) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "invoice_payment_organization_id_index" on "invoice_payment" ("organization_id");`);
    this.addSql(`alter table "invoice_payment" add constraint "invoice_payment_idempotency_key_unique" unique ("organization_id", "idempotency_key");`);

    this.addSql(`alter table "invoice" add constraint "invoice_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "invoice" add constraint "invoice_status_check" check (status in ('Draft','Issued','PartiallyPaid','Paid','Voided','Cancelled'));`);
    this.addSql(`alter table "invoice" add constraint "invoice_amount_paid_check" check (amount_paid >= 0);`);

    this.addSql(`alter table "invoice_payment" add constraint "invoice_payment_invoice_id_foreign" foreign key ("invoice_id") references "invoice" ("id") on delete cascade;`);
    this.addSql(`alter table "invoice_payment" add constraint "invoice_payment_amount_check" check (amount > 0);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "invoice_payment" drop constraint "invoice_payment_invoice_id_foreign";`);

    this.addSql(`drop table if exists "invoice_counter" cascade;`);
    this.addSql(`drop table if exists "invoice" cascade;`);
    this.addSql(`drop table if exists "invoice_payment" cascade;`);
  }

}
