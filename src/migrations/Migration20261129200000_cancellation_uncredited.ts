import { Migration } from '@mikro-orm/migrations';

/**
 * What of a cancellation's amount its order's invoice could not absorb as a credit note (it was
 * refunded or credited that much already): docs/returns.md "Cancellation", the cap on the credit.
 */
export class Migration20261129200000_cancellation_uncredited extends Migration {
  override name = 'Migration20261129200000_cancellation_uncredited';

  override up(): void | Promise<void> {
    this.addSql(`alter table "order_cancellation" add column "uncredited_amount" numeric(19,4) not null default 0;`);
    this.addSql(`alter table "order_cancellation" add constraint "order_cancellation_uncredited_check" check ("uncredited_amount" >= 0 and "uncredited_amount" <= "amount");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "order_cancellation" drop column "uncredited_amount";`);
  }
}
