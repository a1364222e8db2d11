import { Migration } from '@mikro-orm/migrations';

/**
 * Monthly limits hold under concurrency (docs/security.md "Admission of orders"): a checkout or a
 * quote accept admitted within a buyer's limits is recorded here until its order exists (or the
 * hold lapses), so what the buyer "spent this month" counts it while it is still running. The
 * admission reads and writes it under the buyer row's lock, one admission per buyer at a time.
 */
export class Migration20261129102000_spending_admission extends Migration {
  override name = 'Migration20261129102000_spending_admission';

  override up(): void | Promise<void> {
    this.addSql(`create table "spending_admission" (
      "organization_id" uuid not null, "subject_key" varchar(60) not null,
      "customer_id" uuid not null, "user_id" uuid not null, "cart_id" uuid null, "quote_id" uuid null,
      "amount" numeric(19,4) not null, "admitted_at" timestamptz not null default now(), "expires_at" timestamptz not null,
      primary key ("organization_id", "subject_key"));`);
    this.addSql(`create index "spending_admission_buyer_index" on "spending_admission" ("organization_id", "customer_id", "user_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "spending_admission";`);
  }
}
