import { Migration } from '@mikro-orm/migrations';

export class Migration20261122071027_customers extends Migration {

  override name = 'Migration20261122071027_customers';

  override up(): void | Promise<void> {
    this.addSql(`create table "customer" ("id" uuid not null, "organization_id" uuid not null, "customer_number" varchar(255) not null, "external_id" varchar(255) null, "company_name" varchar(255) not null, "company_email" varchar(255) not null, "company_phone" varchar(255) null, "company_fax" varchar(255) null, "pricing" varchar(255) not null, "active" boolean not null default true, "rep_number" varchar(255) null, "terms" varchar(255) null, "customer_attributes" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "customer_rep_number_index" on "customer" ("rep_number");`);
    this.addSql(`alter table "customer" add constraint "customer_org_number_unique" unique ("organization_id", "customer_number");`);
    this.addSql(`create unique index "customer_org_external_id_unique" on "customer" ("organization_id", "external_id") where "external_id" is not null;`);

    this.addSql(`create table "customer_contact" ("id" uuid not null, "customer_id" uuid not null, "position" int not null, "external_id" varchar(255) null, "title" varchar(255) null, "first_name" varchar(255) null, "last_name" varchar(255) null, "email" varchar(255) null, "phone" varchar(255) null, "fax" varchar(255) null, "is_primary" boolean not null default false, "contact_type" varchar(255) null, primary key ("id"));`);
    this.addSql(`create index "customer_contact_customer_id_index" on "customer_contact" ("customer_id");`);

    this.addSql(`create table "customer_address" ("id" uuid not null, "customer_id" uuid not null, "position" int not null, "external_id" varchar(255) null, "line1" varchar(255) null, "line2" varchar(255) null, "city" varchar(255) null, "state" varchar(255) null, "postal_code" varchar(255) null, "country" varchar(2) null, "address_type" varchar(255) not null, "phone" varchar(255) null, "is_primary" boolean not null default false, primary key ("id"));`);
    this.addSql(`create index "customer_address_customer_id_index" on "customer_address" ("customer_id");`);

    this.addSql(`create table "user_customer" ("id" uuid not null, "organization_id" uuid not null, "user_id" uuid not null, "customer_id" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "user_customer_user_id_index" on "user_customer" ("user_id");`);
    this.addSql(`create index "user_customer_customer_id_index" on "user_customer" ("customer_id");`);
    this.addSql(`alter table "user_customer" add constraint "user_customer_org_user_unique" unique ("organization_id", "user_id");`);

    this.addSql(`alter table "customer" add constraint "customer_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);

    this.addSql(`alter table "customer_contact" add constraint "customer_contact_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete cascade;`);

    this.addSql(`alter table "customer_address" add constraint "customer_address_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete cascade;`);

    this.addSql(`alter table "user_customer" add constraint "user_customer_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "user_customer" add constraint "user_customer_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`);
    this.addSql(`alter table "user_customer" add constraint "user_customer_customer_id_foreign" foreign key ("customer_id") references "customer" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "customer_contact" drop constraint "customer_contact_customer_id_foreign";`);
    this.addSql(`alter table "customer_address" drop constraint "customer_address_customer_id_foreign";`);
    this.addSql(`alter table "user_customer" drop constraint "user_customer_customer_id_foreign";`);

    this.addSql(`drop table if exists "customer" cascade;`);
    this.addSql(`drop table if exists "customer_contact" cascade;`);
    this.addSql(`drop table if exists "customer_address" cascade;`);
    this.addSql(`drop table if exists "user_customer" cascade;`);
  }

}
