import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 40 item 1 (docs/pricing.md "Which price applies"): an order line says which price list
 * priced it (`price_list_id`; null: the tier, or a price given as is). Only read with its order (by
 * order_item_order_id_index); no index of its own.
 */
export class Migration20261129180500_order_item_price_list extends Migration {
  override name = 'Migration20261129180500_order_item_price_list';

  override up(): void | Promise<void> {
    this.addSql(`alter table "order_item" add column "price_list_id" uuid null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "order_item" drop column "price_list_id";`);
  }
}
