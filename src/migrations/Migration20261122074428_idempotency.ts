import { Migration } from '@mikro-orm/migrations';

export class Migration20261122074428_idempotency extends Migration {

  override name = 'Migration20261122074428_idempotency';

  override up(): void | Promise<void> {
    this.addSql(`create table "idempotency_record" ("id" uuid not null, "organization_id" uuid not null, "route" varchar(255) not null, "key" varchar(200) not null, "request_hash" varchar(255) not null, "response_status" int null, "response_body" jsonb null, "created_at" timestamptz not null, "completed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "idempotency_record" add constraint "idempotency_record_org_route_key_unique" unique ("organization_id", "route", "key");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "idempotency_record" cascade;`);
  }

}
