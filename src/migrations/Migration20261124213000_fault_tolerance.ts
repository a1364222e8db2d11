import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 21: the workflow-start outbox (starts that could not reach Temporal, relayed by the API once
 * it is back; organization_id leads the key), a per-organization limit on authenticated requests, and
 * the payment janitor's audit trail (payment_reconciliation).
 */
export class Migration20261124213000_fault_tolerance extends Migration {

  override name = 'Migration20261124213000_fault_tolerance';

  override up(): void | Promise<void> {
    this.addSql(`create table "workflow_start_outbox" ("organization_id" uuid not null, "workflow_id" varchar(300) not null, "workflow_type" varchar(255) not null, "task_queue" varchar(255) not null, "args" jsonb not null, "keys" jsonb not null, "summary" text not null default '', "attempts" int not null default 0, "next_attempt_at" timestamptz not null default now(), "last_error" text null, "created_at" timestamptz not null default now(), primary key ("organization_id", "workflow_id"));`);
    this.addSql(`alter table "organization" add column "rate_limit_per_minute" int null;`);
    this.addSql(`create table "payment_reconciliation" ("organization_id" uuid not null, "charge_id" varchar(200) not null, "action" varchar(20) not null, "amount" numeric(19,4) not null, "currency_code" varchar(3) not null, "invoice_id" uuid null, "payment_profile_id" varchar(200) null, "reference" varchar(255) null, "reason" text not null, "created_at" timestamptz not null default now(), primary key ("organization_id", "charge_id"));`);
    this.addSql(`create index "payment_reconciliation_org_created_index" on "payment_reconciliation" ("organization_id", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "workflow_start_outbox" cascade;`);
    this.addSql(`drop table if exists "payment_reconciliation" cascade;`);
    this.addSql(`alter table "organization" drop column "rate_limit_per_minute";`);
  }

}
