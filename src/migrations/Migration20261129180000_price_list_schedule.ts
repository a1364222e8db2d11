import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 40 item 2 (docs/pricing.md "Scheduled prices"): what the schedule of a price list needs to
 * announce each activation and expiry once. `active_since`: when the list last became Active (null
 * while Draft or Archived); `activated_at`: the activation instant of the period in force that
 * `price_list.activated` announced (null when no announced period is open). Lists in force when this
 * runs count as announced, so no activation is sent late for them.
 */
export class Migration20261129180000_price_list_schedule extends Migration {
  override name = 'Migration20261129180000_price_list_schedule';

  override up(): void | Promise<void> {
    this.addSql(`alter table "price_list" add column "active_since" timestamptz null, add column "activated_at" timestamptz null;`);
    this.addSql(`update "price_list" set "active_since" = "updated_at" where "status" = 'Active';`);
    this.addSql(`update "price_list" set "activated_at" = greatest("valid_from", "active_since")
                  where "status" = 'Active' and ("valid_from" is null or "valid_from" <= now()) and ("valid_to" is null or now() < "valid_to");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "price_list" drop column "active_since", drop column "activated_at";`);
  }
}
