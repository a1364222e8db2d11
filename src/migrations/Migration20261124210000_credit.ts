import { Migration } from '@mikro-orm/migrations';

/**
 * Payment terms, credit limits, on-account orders and dunning state (issue 23, docs/credit.md).
 * `payment_term` has primary key (organization_id, id); customers point at it with a foreign key
 * (organization_id, payment_terms_id) (DESIGN "Scale-out": organization_id leads every key).
 * A deleted term is refused while a customer uses it (restrict).
 */
export class Migration20261124210000_credit extends Migration {

  override name = 'Migration20261124210000_credit';

  override up(): void | Promise<void> {
    this.addSql(`create table "payment_term" ("organization_id" uuid not null, "id" uuid not null, "name" varchar(100) not null, "type" varchar(20) not null, "days" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "payment_term_pkey" primary key ("organization_id", "id"));`);
    this.addSql(`alter table "payment_term" add constraint "payment_term_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`);
    this.addSql(`create unique index "payment_term_org_name_unique" on "payment_term" ("organization_id", lower("name"));`);
    this.addSql(`alter table "customer" add "payment_terms_id" uuid null, add "credit_limit" numeric(19,4) null;`);
    this.addSql(`alter table "customer" add constraint "customer_org_payment_terms_foreign" foreign key ("organization_id", "payment_terms_id") references "payment_term" ("organization_id", "id") on delete restrict;`);
    this.addSql(`alter table "sales_order" add "payment_method" varchar(20) null;`);
    this.addSql(`alter table "invoice" add "overdue_at" timestamptz null, add "credit_hold_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "invoice" drop column "overdue_at", drop column "credit_hold_at";`);
    this.addSql(`alter table "sales_order" drop column "payment_method";`);
    this.addSql(`alter table "customer" drop constraint "customer_org_payment_terms_foreign";`);
    this.addSql(`alter table "customer" drop column "payment_terms_id", drop column "credit_limit";`);
    this.addSql(`drop table if exists "payment_term" cascade;`);
  }

}
