import { Migration } from '@mikro-orm/migrations';

/**
 * An index on `id` for the tenant tables of price lists, catalogs, stock locations, shipments,
 * credit notes and cancellations whose rows the ORM's unit of work updates or deletes by primary key
 * (the rule and its measurement: Migration20261128110000_tenant_id_indexes). Left without, like the
 * other bulk tables: stock_movement and catalog_selection, written and read only by statements that
 * carry organization_id.
 */
const TABLES = ['catalog', 'catalog_assignment', 'credit_note', 'order_cancellation', 'price_list', 'price_list_assignment', 'shipment', 'stock_location'];

export class Migration20261129170000_id_indexes_new_tables extends Migration {
  override up(): void | Promise<void> {
    for (const t of TABLES) this.addSql(`create index if not exists "${t}_id_index" on "${t}" ("id");`);
  }

  override down(): void | Promise<void> {
    for (const t of TABLES) this.addSql(`drop index if exists "${t}_id_index";`);
  }
}
