import { Migration } from '@mikro-orm/migrations';

/**
 * Quotes (docs/quotes.md): `quote` with its versions (jsonb, append-only), primary key and every
 * foreign key led by organization_id (DESIGN "Scale-out"); `quote_number_counter` for the gapless
 * Q-000001 numbers per organization; `sales_order.quote_id` links an order to the quote it came from.
 */
export class Migration20261124200500_quotes extends Migration {
  override name = 'Migration20261124200500_quotes';

  override up(): void | Promise<void> {
    this.addSql(`create table "quote" (
      "organization_id" uuid not null,
      "id" uuid not null,
      "quote_number" varchar(50) not null,
      "status" varchar(20) not null,
      "customer_id" uuid null,
      "customer_number" varchar(100) not null,
      "company_name" varchar(300) not null,
      "price_tier" varchar(100) not null,
      "currency_code" varchar(3) not null,
      "notes" text null,
      "cart_id" uuid null,
      "requested_by_user_id" varchar(100) null,
      "requested_by_role" varchar(20) not null,
      "versions" jsonb not null default '[]',
      "expires_at" timestamptz null,
      "order_id" uuid null,
      "order_number" varchar(50) null,
      "rejection_reason" text null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "quote_pkey" primary key ("organization_id", "id"),
      constraint "quote_status_check" check ("status" in ('Requested', 'Quoted', 'Countered', 'Accepted', 'Rejected', 'Expired'))
    );`);
    this.addSql(`alter table "quote" add constraint "quote_org_number_unique" unique ("organization_id", "quote_number");`);
    this.addSql(`alter table "quote" add constraint "quote_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(
      `alter table "quote" add constraint "quote_org_customer_foreign" foreign key ("organization_id", "customer_id") references "customer" ("organization_id", "id") on delete set null ("customer_id");`,
    );
    this.addSql(`create index "quote_org_customer_id_index" on "quote" ("organization_id", "customer_id");`);
    this.addSql(`create index "quote_org_status_index" on "quote" ("organization_id", "status");`);
    this.addSql(`create table "quote_number_counter" ("organization_id" uuid not null, "last_value" bigint not null default 0, constraint "quote_number_counter_pkey" primary key ("organization_id"));`);
    this.addSql(`alter table "quote_number_counter" add constraint "quote_number_counter_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "sales_order" add "quote_id" uuid null;`);
    this.addSql(`create unique index "order_org_quote_unique" on "sales_order" ("organization_id", "quote_id") where "quote_id" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "order_org_quote_unique";`);
    this.addSql(`alter table "sales_order" drop column "quote_id";`);
    this.addSql(`drop table "quote_number_counter";`);
    this.addSql(`drop table "quote";`);
  }
}
