import { Migration } from '@mikro-orm/migrations';

/**
 * How on-account orders are invoiced (issue 41 item 4; docs/fulfillment.md "Invoicing"): the
 * organization's `invoice_on` ('order': one invoice when the order is placed; 'shipment': one per
 * shipment), and per order the decision taken when it was placed (`invoice_per_shipment`).
 */
export class Migration20261129201000_invoice_on_shipment extends Migration {
  override name = 'Migration20261129201000_invoice_on_shipment';

  override up(): void | Promise<void> {
    this.addSql(`alter table "organization" add column "invoice_on" varchar(10) not null default 'order';`);
    this.addSql(`alter table "sales_order" add column "invoice_per_shipment" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sales_order" drop column "invoice_per_shipment";`);
    this.addSql(`alter table "organization" drop column "invoice_on";`);
  }
}
