import { Migration } from '@mikro-orm/migrations';

/**
 * Quantity rules (docs/pricing.md "Quantity rules"): a product's `maximum_order_quantity` (null: no
 * maximum) beside its minimum and increment, and per price list entry the three overrides (null:
 * the product's). An entry's overrides are stored on each of its quantity breaks, the same on all.
 */
export class Migration20261129181000_quantity_rules extends Migration {
  override up(): void | Promise<void> {
    this.addSql('alter table "product" add column if not exists "maximum_order_quantity" int null;');
    this.addSql(
      'alter table "product" add constraint "product_maximum_order_quantity_check" check (maximum_order_quantity is null or maximum_order_quantity >= minimum_order_quantity);',
    );
    this.addSql(
      'alter table "price_list_price" add column if not exists "minimum_order_quantity" int null, add column if not exists "maximum_order_quantity" int null, add column if not exists "quantity_increment" int null;',
    );
    this.addSql(
      `alter table "price_list_price" add constraint "price_list_price_quantity_rules_check" check (
         (minimum_order_quantity is null or minimum_order_quantity >= 1) and (maximum_order_quantity is null or maximum_order_quantity >= 1)
         and (quantity_increment is null or quantity_increment >= 1));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql('alter table "price_list_price" drop constraint if exists "price_list_price_quantity_rules_check";');
    this.addSql('alter table "price_list_price" drop column if exists "minimum_order_quantity", drop column if exists "maximum_order_quantity", drop column if exists "quantity_increment";');
    this.addSql('alter table "product" drop constraint if exists "product_maximum_order_quantity_check";');
    this.addSql('alter table "product" drop column if exists "maximum_order_quantity";');
  }
}
