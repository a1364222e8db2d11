import { Migration } from '@mikro-orm/migrations';

export class Migration20261122065754_platform extends Migration {

  override name = 'Migration20261122065754_platform';

  override up(): void | Promise<void> {
    this.addSql(`create table "email_message" ("id" varchar(255) not null, "organization_id" uuid null, "template" varchar(255) not null, "to_address" varchar(255) not null, "subject" varchar(255) null, "status" varchar(255) not null default 'pending', "attempts" int not null default 0, "sent_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "email_message_organization_id_index" on "email_message" ("organization_id");`);

    this.addSql(`create table "organization" ("id" uuid not null, "identity_organization_id" varchar(255) not null, "name" varchar(255) not null, "slug" varchar(255) not null, "billing_address1" varchar(255) null, "billing_address2" varchar(255) null, "billing_city" varchar(255) null, "billing_state_province" varchar(255) null, "billing_postal_code" varchar(255) null, "billing_country" varchar(2) null, "phone_number" varchar(255) null, "email" varchar(255) null, "website" varchar(255) null, "credential_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "organization" add constraint "organization_identity_organization_id_unique" unique ("identity_organization_id");`);
    this.addSql(`alter table "organization" add constraint "organization_slug_unique" unique ("slug");`);
    this.addSql(`create unique index "organization_name_lower_unique" on "organization" (lower("name"));`);

    this.addSql(`create table "api_credential" ("id" uuid not null, "organization_id" uuid not null, "client_id" varchar(255) not null, "client_secret_hash" varchar(255) not null, "api_key_hash" varchar(255) not null, "version" int not null, "active" boolean not null default true, "created_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "api_credential" add constraint "api_credential_client_id_unique" unique ("client_id");`);
    this.addSql(`alter table "api_credential" add constraint "api_credential_api_key_hash_unique" unique ("api_key_hash");`);
    this.addSql(`create unique index "api_credential_one_active_per_org" on "api_credential" ("organization_id") where "active";`);

    this.addSql(`create table "price_tier" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(255) not null, "currency_code" varchar(3) not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create unique index "price_tier_org_name_unique" on "price_tier" ("organization_id", lower("name"));`);

    this.addSql(`create table "rate_limit_bucket" ("key" varchar(255) not null, "window_start" timestamptz not null, "count" int not null, primary key ("key"));`);

    this.addSql(`create table "app_user" ("id" uuid not null, "email" varchar(255) not null, "first_name" varchar(255) not null, "last_name" varchar(255) not null, "phone_number" varchar(255) null, "password_hash" varchar(255) null, "is_super" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "app_user" add constraint "app_user_email_unique" unique ("email");`);

    this.addSql(`create table "password_token" ("id" uuid not null, "user_id" uuid not null, "token_hash" varchar(255) not null, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "password_token" add constraint "password_token_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "organization_member" ("id" uuid not null, "organization_id" uuid not null, "user_id" uuid not null, "is_admin" boolean not null default false, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "organization_member" add constraint "organization_member_organization_id_user_id_unique" unique ("organization_id", "user_id");`);

    this.addSql(`alter table "api_credential" add constraint "api_credential_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);

    this.addSql(`alter table "price_tier" add constraint "price_tier_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);

    this.addSql(`alter table "password_token" add constraint "password_token_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`);

    this.addSql(`alter table "organization_member" add constraint "organization_member_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "organization_member" add constraint "organization_member_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "api_credential" drop constraint "api_credential_organization_id_foreign";`);
    this.addSql(`alter table "price_tier" drop constraint "price_tier_organization_id_foreign";`);
    this.addSql(`alter table "organization_member" drop constraint "organization_member_organization_id_foreign";`);
    this.addSql(`alter table "password_token" drop constraint "password_token_user_id_foreign";`);
    this.addSql(`alter table "organization_member" drop constraint "organization_member_user_id_foreign";`);

    this.addSql(`drop table if exists "email_message" cascade;`);
    this.addSql(`drop table if exists "organization" cascade;`);
    this.addSql(`drop table if exists "api_credential" cascade;`);
    this.addSql(`drop table if exists "price_tier" cascade;`);
    this.addSql(`drop table if exists "rate_limit_bucket" cascade;`);
    this.addSql(`drop table if exists "app_user" cascade;`);
    this.addSql(`drop table if exists "password_token" cascade;`);
    this.addSql(`drop table if exists "organization_member" cascade;`);
  }

}
