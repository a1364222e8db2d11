import { Migration } from '@mikro-orm/migrations';

/**
 * Payment methods, carts, orders, invoices and hosted setups belong to the customer record (its
 * id), not to its number (issue 16 finding 3, DESIGN "Security decisions"). Each gets
 * `customer_id` with a foreign key (organization_id, customer_id) -> customer (organization_id, id)
 * (DESIGN "Scale-out": organization_id leads); deleting a customer sets only customer_id to null,
 * so its history stays but no longer belongs to whoever takes the number next.
 *
 * Back-fill: rows get the id of the current customer with their number. Cards, carts and hosted
 * setups are only ever made for an existing customer, so one created before the current customer
 * was created belonged to an earlier, deleted customer with that number and stays unlinked.
 * Unlinked cards are deactivated and unlinked open carts closed, as a customer delete now does.
 * Orders and invoices may name a number no customer has (an Admin's or an import's): they stay
 * unlinked and are linked to the customer created with that number later, unless
 * `customer_deleted` says their own customer was deleted (set by the delete from now on).
 * The one-default-card and one-open-cart indexes move from the number to the id.
 */
const TABLES = ['payment_method', 'cart', 'sales_order', 'invoice', 'hosted_payment_setup'] as const;
/** Tables whose rows exist only for a stored customer (created after it). */
const OWNED = new Set<string>(['payment_method', 'cart', 'hosted_payment_setup']);

export class Migration20261124170000_customer_links extends Migration {

  override name = 'Migration20261124170000_customer_links';

  override up(): void | Promise<void> {
    this.addSql(`alter table "customer" add constraint "customer_org_id_unique" unique ("organization_id", "id");`);
    for (const t of TABLES) {
      this.addSql(`alter table "${t}" add "customer_id" uuid null;`);
      this.addSql(
        `alter table "${t}" add constraint "${t}_org_customer_foreign" foreign key ("organization_id", "customer_id") references "customer" ("organization_id", "id") on delete set null ("customer_id");`,
      );
      this.addSql(`create index "${t}_org_customer_id_index" on "${t}" ("organization_id", "customer_id");`);
      this.addSql(
        `update "${t}" x set "customer_id" = c."id" from "customer" c
          where c."organization_id" = x."organization_id" and c."customer_number" = x."customer_number"${OWNED.has(t) ? ` and x."created_at" >= c."created_at"` : ''};`,
      );
    }
    this.addSql(`alter table "sales_order" add "customer_deleted" boolean not null default false;`);
    this.addSql(`alter table "invoice" add "customer_deleted" boolean not null default false;`);
    this.addSql(`update "payment_method" set "active" = false, "is_default" = false, "updated_at" = now() where "customer_id" is null and ("active" or "is_default");`);
    this.addSql(`update "cart" set "status" = 'CLOSED', "updated_at" = now() where "customer_id" is null and "status" = 'PENDING';`);
    this.addSql(`drop index "payment_method_one_default_unique";`);
    this.addSql(`create unique index "payment_method_one_default_unique" on "payment_method" ("organization_id", "customer_id") where "is_default" and "active";`);
    this.addSql(`drop index "cart_one_pending_per_customer";`);
    this.addSql(`create unique index "cart_one_pending_per_customer" on "cart" ("organization_id", "customer_id") where "status" = 'PENDING';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "cart_one_pending_per_customer";`);
    this.addSql(`create unique index "cart_one_pending_per_customer" on "cart" ("organization_id", "customer_number") where "status" = 'PENDING';`);
    this.addSql(`drop index "payment_method_one_default_unique";`);
    this.addSql(`create unique index "payment_method_one_default_unique" on "payment_method" ("organization_id", "customer_number") where "is_default" and "active";`);
    this.addSql(`alter table "invoice" drop column "customer_deleted";`);
    this.addSql(`alter table "sales_order" drop column "customer_deleted";`);
    for (const t of TABLES) {
      this.addSql(`alter table "${t}" drop constraint "${t}_org_customer_foreign";`);
      this.addSql(`drop index "${t}_org_customer_id_index";`);
      this.addSql(`alter table "${t}" drop column "customer_id";`);
    }
    this.addSql(`alter table "customer" drop constraint "customer_org_id_unique";`);
  }

}
