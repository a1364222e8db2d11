import { Migration } from '@mikro-orm/migrations';

/**
 * One admission for every path to an order (docs/security.md "Admission of orders"): an approval
 * request holds a checkout (`subject` Cart, as before), a quote accept (Quote, `quote_id`, at most one
 * Pending per quote) or an order posted by a customer user (Order, `order_id`; the order waits as
 * `PendingApproval`). `cart_id` is set for Cart requests only.
 */
export class Migration20261129050000_approval_subjects extends Migration {
  override name = 'Migration20261129050000_approval_subjects';

  override up(): void | Promise<void> {
    this.addSql(`alter table "approval_request" alter column "cart_id" drop not null;`);
    this.addSql(`alter table "approval_request" add column "subject" varchar(10) not null default 'Cart', add column "quote_id" uuid null, add column "order_id" uuid null;`);
    this.addSql(`alter table "approval_request" add constraint "approval_request_subject_check" check (("subject" = 'Cart' and "cart_id" is not null) or ("subject" = 'Quote' and "quote_id" is not null) or ("subject" = 'Order' and "order_id" is not null));`);
    this.addSql(`create unique index "approval_request_one_pending_per_quote" on "approval_request" ("organization_id", "quote_id") where "status" = 'Pending' and "quote_id" is not null;`);
    this.addSql(`create index "approval_request_org_order_index" on "approval_request" ("organization_id", "order_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "approval_request_org_order_index";`);
    this.addSql(`drop index "approval_request_one_pending_per_quote";`);
    this.addSql(`alter table "approval_request" drop constraint "approval_request_subject_check";`);
    this.addSql(`alter table "approval_request" drop column "subject", drop column "quote_id", drop column "order_id";`);
    this.addSql(`alter table "approval_request" alter column "cart_id" set not null;`);
  }
}
