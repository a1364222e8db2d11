import { Migration } from '@mikro-orm/migrations';

export class Migration20261123131233_security extends Migration {

  override name = 'Migration20261123131233_security';

  override up(): void | Promise<void> {
    this.addSql(`alter table "idempotency_record" drop constraint "idempotency_record_org_route_key_unique";`);
    this.addSql(`alter table "idempotency_record" add "caller" varchar(120) not null default '';`);
    this.addSql(`alter table "idempotency_record" add constraint "idempotency_record_org_caller_route_key_unique" unique ("organization_id", "caller", "route", "key");`);

    this.addSql(`alter table "organization" add "allowed_return_origins" jsonb not null default '[]';`);

    this.addSql(`alter table "app_user" add "token_version" int not null default 1;`);

    this.addSql(`alter table "organization_member" add "status" varchar(10) not null default 'active', add "accept_token_hash" varchar(64) null, add "accept_expires_at" timestamptz null, add "accepted_at" timestamptz null;`);
    this.addSql(`create index "organization_member_accept_token_hash_index" on "organization_member" ("accept_token_hash");`);
    this.addSql(`alter table "organization_member" add constraint "organization_member_status_check" check (status in ('active', 'pending'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "app_user" drop column "token_version";`);

    this.addSql(`alter table "idempotency_record" drop constraint "idempotency_record_org_caller_route_key_unique";`);
    this.addSql(`alter table "idempotency_record" drop column "caller";`);
    this.addSql(`alter table "idempotency_record" add constraint "idempotency_record_org_route_key_unique" unique ("organization_id", "route", "key");`);

    this.addSql(`alter table "organization" drop column "allowed_return_origins";`);

    this.addSql(`drop index "organization_member_accept_token_hash_index";`);
    this.addSql(`alter table "organization_member" drop constraint "organization_member_status_check";`);
    this.addSql(`alter table "organization_member" drop column "status", drop column "accept_token_hash", drop column "accept_expires_at", drop column "accepted_at";`);
  }

}
