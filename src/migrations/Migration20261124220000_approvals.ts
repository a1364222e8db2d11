import { Migration } from '@mikro-orm/migrations';

/**
 * Buyer approvals (docs/approvals.md): `customer_buyer` (buyer role and spending limits of a user at
 * a customer) and `approval_request` (a held checkout and its chain). Primary and foreign keys lead
 * with organization_id (DESIGN "Scale-out"); at most one Pending request per cart.
 */
export class Migration20261124220000_approvals extends Migration {
  override name = 'Migration20261124220000_approvals';

  override up(): void | Promise<void> {
    this.addSql(`create table "customer_buyer" (
      "organization_id" uuid not null,
      "customer_id" uuid not null,
      "user_id" uuid not null,
      "role" varchar(20) not null,
      "order_limit" numeric(19,4) null,
      "monthly_limit" numeric(19,4) null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "customer_buyer_pkey" primary key ("organization_id", "customer_id", "user_id"),
      constraint "customer_buyer_role_check" check ("role" in ('Buyer', 'Approver')),
      constraint "customer_buyer_limits_check" check (("order_limit" is null or "order_limit" >= 0) and ("monthly_limit" is null or "monthly_limit" >= 0))
    );`);
    this.addSql(
      `alter table "customer_buyer" add constraint "customer_buyer_org_customer_foreign" foreign key ("organization_id", "customer_id") references "customer" ("organization_id", "id") on delete cascade;`,
    );
    this.addSql(`alter table "customer_buyer" add constraint "customer_buyer_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "customer_buyer" add constraint "customer_buyer_user_id_foreign" foreign key ("user_id") references "app_user" ("id") on delete cascade;`);
    this.addSql(`create index "customer_buyer_org_user_index" on "customer_buyer" ("organization_id", "user_id");`);
    this.addSql(`create table "approval_request" (
      "organization_id" uuid not null,
      "id" uuid not null,
      "status" varchar(20) not null,
      "customer_id" uuid null,
      "customer_number" varchar(100) not null,
      "cart_id" uuid not null,
      "requester_user_id" uuid not null,
      "requester_email" varchar(254) null,
      "requester_name" varchar(300) null,
      "reason" text not null,
      "currency_code" varchar(3) not null,
      "total" numeric(19,4) not null,
      "lines" jsonb not null,
      "checkout" jsonb not null,
      "level" int not null default 1,
      "chain" jsonb not null default '[]',
      "decided_by" varchar(100) null,
      "decision_reason" text null,
      "order_number" varchar(50) null,
      "expires_at" timestamptz not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "approval_request_pkey" primary key ("organization_id", "id"),
      constraint "approval_request_status_check" check ("status" in ('Pending', 'Approved', 'Rejected', 'Expired'))
    );`);
    this.addSql(`alter table "approval_request" add constraint "approval_request_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(
      `alter table "approval_request" add constraint "approval_request_org_customer_foreign" foreign key ("organization_id", "customer_id") references "customer" ("organization_id", "id") on delete set null ("customer_id");`,
    );
    this.addSql(`create index "approval_request_org_status_index" on "approval_request" ("organization_id", "status");`);
    this.addSql(`create index "approval_request_org_cart_index" on "approval_request" ("organization_id", "cart_id");`);
    this.addSql(`create index "approval_request_org_customer_index" on "approval_request" ("organization_id", "customer_id");`);
    this.addSql(`create unique index "approval_request_one_pending_per_cart" on "approval_request" ("organization_id", "cart_id") where "status" = 'Pending';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "approval_request";`);
    this.addSql(`drop table "customer_buyer";`);
  }
}
