import { Migration } from '@mikro-orm/migrations';

/**
 * Checkout attempts per cart: each reservation of a checkout run counts one, and the provider
 * idempotency key of the run's charge names the attempt (`checkout-<cartId>` for the first,
 * `checkout-<cartId>-<n>` after). Before it every run of a cart charged under `checkout-<cartId>`:
 * a run after a voided or declined charge got the provider's first answer back (the voided charge,
 * or a conflict for another amount or card). Existing carts start at 0, so their next run keeps
 * the key they had.
 */
export class Migration20261128080000_cart_checkout_attempts extends Migration {
  override name = 'Migration20261128080000_cart_checkout_attempts';

  override up(): void | Promise<void> {
    this.addSql(`alter table "cart" add column "checkout_attempts" integer not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "cart" drop column "checkout_attempts";`);
  }
}
