import { Migration } from '@mikro-orm/migrations';
import { ANALYTICS_TRIGGERS_SQL } from './Migration20261123130822_analytics.js';

/**
 * The analytics trigger of order updates (Migration20261123130822_analytics) found the orders whose
 * relevant columns changed by joining its two transition tables, which have no statistics: a
 * nested loop, quadratic in the orders one statement updates (a backorder allocation moving
 * 10,000 orders to Processing spent 45 s there; docs/fulfillment.md "Backorders"). The same set is
 * found with EXCEPT (hashed, linear; NULLs compare equal as `is distinct from` does), and a status
 * change counts only when it moves the order into or out of Cancelled (the only status the
 * contribution reads), so moving many orders to Processing touches no analytics row; the rest of
 * the function is unchanged.
 */
// The status counts only as cancelled or not (the contribution's rule): Pending -> Processing moves nothing.
const COLUMNS = "id, organization_id, currency_code, order_date, customer_number, lower(order_status) = 'cancelled', active, primary_sales_rep, customer";
const original = ANALYTICS_TRIGGERS_SQL.find((s) => s.includes('function analytics_order_update()'))!;
const linear = original.replace(
  /with changed as \(select n\.id from analytics_new n join analytics_old o on o\.id = n\.id where [^\n]*\),/,
  `with changed as (select x.id from (select ${COLUMNS} from analytics_new except select ${COLUMNS} from analytics_old) x),`,
);

export class Migration20261129182500_analytics_order_update_linear extends Migration {
  override name = 'Migration20261129182500_analytics_order_update_linear';

  override up(): void | Promise<void> {
    if (linear === original) throw new Error('analytics_order_update: the changed-rows join was not found');
    this.addSql(linear);
  }

  override down(): void | Promise<void> {
    this.addSql(original);
  }
}
