import { Migration } from '@mikro-orm/migrations';

export class Migration20261123133906_integrations extends Migration {

  override name = 'Migration20261123133906_integrations';

  override up(): void | Promise<void> {
    this.addSql(`create table "integration" ("id" uuid not null, "organization_id" uuid not null, "integration_type" int not null, "provider" varchar(50) not null, "display_name" varchar(200) not null, "is_enabled" boolean not null default true, "configuration" jsonb not null, "secrets_ciphertext" text null, "created_by" varchar(100) null, "last_tested_at" timestamptz null, "last_test_result" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "integration_org_type_index" on "integration" ("organization_id", "integration_type");`);
    this.addSql(`create unique index "integration_one_enabled_per_type" on "integration" ("organization_id", "integration_type") where "is_enabled";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "integration" cascade;`);
  }

}
