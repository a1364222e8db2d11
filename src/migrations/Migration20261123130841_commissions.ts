import { Migration } from '@mikro-orm/migrations';

export class Migration20261123130841_commissions extends Migration {

  override name = 'Migration20261123130841_commissions';

  override up(): void | Promise<void> {
    this.addSql(`create table "commission_adjustment" ("id" uuid not null, "organization_id" uuid not null, "sales_rep_id" uuid not null, "statement_id" uuid null, "type" varchar(20) not null default 'Clawback', "source_statement_id" uuid not null, "source_entry_id" uuid not null, "invoice_id" uuid not null, "invoice_number" varchar(255) not null, "cause" varchar(255) not null, "currency_code" varchar(3) not null, "amount" numeric(19,4) not null, "reason" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "commission_adjustment_org_rep_index" on "commission_adjustment" ("organization_id", "sales_rep_id", "statement_id");`);
    this.addSql(`create index "commission_adjustment_org_statement_index" on "commission_adjustment" ("organization_id", "statement_id");`);
    this.addSql(`alter table "commission_adjustment" add constraint "commission_adjustment_entry_cause_unique" unique ("organization_id", "source_entry_id", "cause");`);

    this.addSql(`create table "commission_entry" ("id" uuid not null, "organization_id" uuid not null, "statement_id" uuid not null, "invoice_id" uuid not null, "invoice_number" varchar(255) not null, "customer_number" varchar(255) not null, "invoice_date" timestamptz not null, "invoice_total" numeric(19,4) not null, "base" numeric(19,4) not null, "commission" numeric(19,4) not null, "lines" jsonb not null, primary key ("id"));`);
    this.addSql(`create index "commission_entry_org_invoice_index" on "commission_entry" ("organization_id", "invoice_id");`);
    this.addSql(`alter table "commission_entry" add constraint "commission_entry_statement_invoice_unique" unique ("organization_id", "statement_id", "invoice_id");`);

    this.addSql(`create table "commission_statement" ("id" uuid not null, "organization_id" uuid not null, "sales_rep_id" uuid not null, "rep_number" varchar(255) not null, "start_date" varchar(10) not null, "end_date" varchar(10) not null, "status" varchar(20) not null default 'Generating', "currency_code" varchar(3) not null, "total_commission" numeric(19,4) not null default '0', "payable_total" numeric(19,4) not null default '0', "events" jsonb not null, "workflow_id" varchar(255) not null, "approved_at" timestamptz null, "approved_by" varchar(255) null, "rejected_reason" text null, "paid_at" timestamptz null, "payment_reference" varchar(255) null, "generated_at" timestamptz null, "created_by" varchar(255) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "commission_statement_org_rep_index" on "commission_statement" ("organization_id", "sales_rep_id", "start_date");`);

    this.addSql(`create table "commission_plan" ("id" uuid not null, "organization_id" uuid not null, "sales_rep_id" uuid not null, "name" varchar(200) not null, "description" text null, "default_rate" numeric(9,6) not null, "effective_start_date" timestamptz not null, "effective_end_date" timestamptz null, "rules" jsonb not null, "customer_overrides" jsonb not null, "active" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "commission_plan_org_rep_index" on "commission_plan" ("organization_id", "sales_rep_id");`);
    this.addSql(`create unique index "commission_plan_one_active_unique" on "commission_plan" ("organization_id", "sales_rep_id") where "active";`);

    this.addSql(`alter table "commission_statement" add constraint "commission_statement_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "commission_statement" add constraint "commission_statement_status_check" check (status in ('Generating','Draft','Approved','Rejected','Paid'));`);
    this.addSql(`alter table "commission_statement" add constraint "commission_statement_period_check" check (start_date <= end_date);`);

    this.addSql(`alter table "commission_plan" add constraint "commission_plan_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "commission_plan" add constraint "commission_plan_default_rate_check" check (default_rate >= 0 and default_rate <= 1);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "commission_adjustment" cascade;`);
    this.addSql(`drop table if exists "commission_entry" cascade;`);
    this.addSql(`drop table if exists "commission_statement" cascade;`);
    this.addSql(`drop table if exists "commission_plan" cascade;`);
  }

}
