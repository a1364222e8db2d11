import { Migration } from '@mikro-orm/migrations';

export class Migration20261122071041_salesreps extends Migration {

  override name = 'Migration20261122071041_salesreps';

  override up(): void | Promise<void> {
    this.addSql(`create table "sales_rep" ("id" uuid not null, "user_id" uuid not null, "first_name" varchar(255) not null, "last_name" varchar(255) not null, "email" varchar(255) not null, "phone_number" varchar(255) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "sales_rep" add constraint "sales_rep_user_unique" unique ("user_id");`);
    this.addSql(`alter table "sales_rep" add constraint "sales_rep_email_unique" unique ("email");`);

    this.addSql(`create table "organization_sales_rep" ("id" uuid not null, "organization_id" uuid not null, "sales_rep_id" uuid not null, "rep_number" varchar(255) not null, "active" boolean not null default true, "roles" text[] not null default '{SalesRep}', "activation_count" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "organization_sales_rep" add constraint "organization_sales_rep_org_rep_number_unique" unique ("organization_id", "rep_number");`);
    this.addSql(`alter table "organization_sales_rep" add constraint "organization_sales_rep_org_rep_unique" unique ("organization_id", "sales_rep_id");`);

    this.addSql(`alter table "sales_rep" add constraint "sales_rep_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`);

    this.addSql(`alter table "organization_sales_rep" add constraint "organization_sales_rep_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "organization_sales_rep" add constraint "organization_sales_rep_sales_rep_id_foreign" foreign key ("sales_rep_id") references "sales_rep" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "organization_sales_rep" drop constraint "organization_sales_rep_sales_rep_id_foreign";`);

    this.addSql(`drop table if exists "sales_rep" cascade;`);
    this.addSql(`drop table if exists "organization_sales_rep" cascade;`);
  }

}
