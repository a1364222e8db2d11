import { Migration } from '@mikro-orm/migrations';

/** Whether the organization lets buyers cancel their own orders before anything shipped (issue 42 item 1; docs/returns.md "Cancellation"). */
export class Migration20261129190000_buyer_cancellation extends Migration {
  override name = 'Migration20261129190000_buyer_cancellation';

  override up(): void | Promise<void> {
    this.addSql(`alter table "organization" add column "buyers_may_cancel" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "organization" drop column "buyers_may_cancel";`);
  }
}
