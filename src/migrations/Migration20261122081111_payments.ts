import { Migration } from '@mikro-orm/migrations';

export class Migration20261122081111_payments extends Migration {

  override name = 'Migration20261122081111_payments';

  override up(): void | Promise<void> {
    this.addSql(`create table "hosted_payment_setup" ("id" uuid not null, "organization_id" uuid not null, "transaction_setup_id" varchar(100) not null, "customer_number" varchar(50) not null, "invoice_id" uuid null, "invoice_number" varchar(100) null, "amount" numeric(19,2) not null, "currency" varchar(3) not null, "return_url" text not null, "market_code" varchar(50) not null default 'Default', "save_card" boolean not null default false, "is_default" boolean not null default false, "billing_address" jsonb null, "status" varchar(20) not null default 'pending', "expires_at" timestamptz not null, "result" varchar(40) null, "card_type" varchar(40) null, "last_four" varchar(4) null, "payment_profile_id" varchar(200) null, "provider_transaction_id" varchar(200) null, "payment_method_id" uuid null, "invoice_payment_id" varchar(100) null, "completed_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "hosted_payment_setup" add constraint "hosted_payment_setup_transaction_setup_id_unique" unique ("transaction_setup_id");`);
    this.addSql(`create index "hosted_payment_setup_org_customer_index" on "hosted_payment_setup" ("organization_id", "customer_number");`);

    this.addSql(`create table "payment_method" ("id" uuid not null, "organization_id" uuid not null, "customer_number" varchar(50) not null, "payment_profile_id" varchar(200) not null, "customer_profile_id" varchar(200) not null, "masked_card_number" varchar(40) not null, "card_type" varchar(40) not null, "expiration_date" varchar(10) not null, "exp_month" int not null, "exp_year" int not null, "billing_address" jsonb null, "is_default" boolean not null default false, "payment_provider" varchar(40) not null, "active" boolean not null default true, "network_transaction_id" varchar(100) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "payment_method_org_customer_index" on "payment_method" ("organization_id", "customer_number");`);
    this.addSql(`alter table "payment_method" add constraint "payment_method_org_profile_unique" unique ("organization_id", "payment_profile_id");`);
    this.addSql(`create unique index "payment_method_one_default_unique" on "payment_method" ("organization_id", "customer_number") where "is_default" and "active";`);

    this.addSql(`alter table "hosted_payment_setup" add constraint "hosted_payment_setup_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "hosted_payment_setup" add constraint "hosted_payment_setup_status_check" check (status in ('pending', 'approved', 'declined', 'expired'));`);
    this.addSql(`alter table "hosted_payment_setup" add constraint "hosted_payment_setup_amount_check" check (amount >= 0);`);

    this.addSql(`alter table "payment_method" add constraint "payment_method_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "payment_method" add constraint "payment_method_exp_month_check" check (exp_month between 1 and 12);`);
    this.addSql(`alter table "payment_method" add constraint "payment_method_provider_check" check (payment_provider in ('ProviderDirect', 'ProviderHosted'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "hosted_payment_setup" cascade;`);
    this.addSql(`drop table if exists "payment_method" cascade;`);
  }

}
