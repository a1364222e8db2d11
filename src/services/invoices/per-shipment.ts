/**
 * Invoicing on-account orders per shipment (docs/fulfillment.md "Invoicing"). Whether an order is
 * invoiced per shipment is decided once, when it is placed on account (`decideOrderInvoicing`, in
 * the order's transaction): the organization's `invoiceOn` then. Such an order gets no invoice at
 * placement; each of its shipments writes, in the shipment's transaction, an Issued invoice for the
 * units it took (`invoiceShipment`, keyed by externalId `shipment-<shipmentId>`) and the start of
 * that invoice's issueInvoice workflow to the workflow-start outbox, so the PDF, the e-mail, the
 * dunning process, the `invoice.issued` webhook, the statement of account and commissions follow
 * as for any issued invoice.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { boundRows, boundSql } from '../../db/orm-sql.js';
import { shipmentInvoice } from '../../domain/invoices/per-shipment.js';
import { Invoice, Order, Organization } from '../../entities/index.js';
import { summaryOf, amountText, type BusinessKeys } from '../../workflows/tags-defs.js';
import type { IssueInvoiceInput } from '../../workflows/issue-invoice-defs.js';
import { onAccountTerms } from '../credit/accounts.js';
import { allocateNumber, INVOICE_NUMBERS } from '../numbering.js';
import { invoiceCustomer } from './from-order.js';
import { invoiceWorkflowId } from './signal.js';

/** The commerce task queue of this deployment (TEMPORAL_TASK_QUEUE_PREFIX, as src/config.ts `taskQueue` builds it). */
const commerceQueue = () => `${process.env.TEMPORAL_TASK_QUEUE_PREFIX ?? ''}commerce`;

/** Marks an on-account order being placed as invoiced per shipment when its organization says so (in the order's transaction). */
export async function decideOrderInvoicing(tem: EntityManager, orgId: string, order: Pick<Order, 'paymentMethod' | 'invoicePerShipment'>): Promise<void> {
  if (order.paymentMethod !== 'OnAccount') return;
  const org = await tem.findOne(Organization, { id: orgId }, { fields: ['id', 'invoiceOn'] });
  order.invoicePerShipment = org?.invoiceOn === 'shipment';
}

export interface ShipmentLineDelta {
  orderItemId: string;
  shippedBefore: number;
  shippedNow: number;
}

/**
 * The invoice of one shipment of an order invoiced per shipment, in the shipment's transaction
 * (the order row is locked by the caller); its issuance starts through the workflow-start outbox.
 */
export async function invoiceShipment(
  tx: EntityManager,
  orgId: string,
  orderId: string,
  shipment: { id: string; shipmentNumber: string },
  deltas: readonly ShipmentLineDelta[],
): Promise<Invoice | null> {
  if (!deltas.some((d) => d.shippedNow > 0)) return null;
  const order = await tx.findOneOrFail(Order, { organization: orgId, id: orderId }, { populate: ['items'] });
  const byId = new Map(deltas.map((d) => [d.orderItemId, d]));
  const lines = order.items
    .getItems()
    .sort((a, b) => a.position - b.position)
    .map((i) => ({
      sku: i.sku,
      productName: i.productName,
      price: i.price,
      quantity: i.quantity,
      cancelledQuantity: i.cancelledQuantity,
      shippedBefore: byId.get(i.id)?.shippedBefore ?? i.shippedQuantity,
      shippedNow: byId.get(i.id)?.shippedNow ?? 0,
    }));
  const [earlier] = await boundRows<{ before: { subtotal: string; discountAmount: string; tax: string; total: string }[]; cancelled: string }>(
    tx,
    `select coalesce((select json_agg(json_build_object('subtotal', i.subtotal::text, 'discountAmount', i.discount_amount::text, 'tax', i.tax::text, 'total', i.total::text))
                        from invoice i where i.organization_id = $1 and i.order_id = $2 and i.external_id like 'shipment-%'), '[]'::json) as before,
            (select coalesce(sum(x.amount), 0)::text from order_cancellation x where x.organization_id = $1 and x.order_id = $2) as cancelled`,
    [orgId, orderId],
  );
  const amounts = shipmentInvoice(lines, order, earlier.before, earlier.cancelled, order.currencyCode);
  const now = new Date();
  const due = await onAccountTerms(tx, orgId, order.customerId ?? null, now);
  const inv = tx.create(Invoice, {
    organization: orgId,
    orderId: order.id,
    orderNumber: order.orderNumber,
    invoiceNumber: await allocateNumber(boundSql(tx), INVOICE_NUMBERS, orgId),
    externalId: `shipment-${shipment.id}`,
    status: 'Issued',
    invoiceDate: now,
    dueDate: due.dueDate,
    terms: due.terms,
    currencyCode: order.currencyCode,
    poNumber: order.poNumber ?? null,
    notes: `On account (order ${order.orderNumber}, shipment ${shipment.shipmentNumber}).`,
    customerNumber: order.customerNumber,
    customerId: order.customerId ?? null,
    customer: invoiceCustomer(order),
    primarySalesRep: { ...(order.primarySalesRep ?? {}) },
    items: amounts.items,
    taxInput: amounts.tax.toFixed(),
    subtotal: amounts.subtotal.toFixed(),
    discountAmount: amounts.discountAmount.toFixed(),
    tax: amounts.tax.toFixed(),
    total: amounts.total.toFixed(),
    importedPaid: '0',
    amountPaid: '0',
    active: true,
    createdAt: now,
    updatedAt: now,
  });
  await tx.flush();
  const input: IssueInvoiceInput = { organizationId: orgId, invoiceId: inv.id };
  const keys: BusinessKeys = { organizationId: orgId, customerNumber: inv.customerNumber, invoiceNumber: inv.invoiceNumber, orderNumber: order.orderNumber };
  await boundRows(
    tx,
    `insert into workflow_start_outbox (organization_id, workflow_id, workflow_type, task_queue, args, keys, summary)
     values ($1, $2, 'issueInvoice', $3, $4::jsonb, $5::jsonb, $6) on conflict do nothing`,
    [
      orgId,
      invoiceWorkflowId(inv.id),
      commerceQueue(),
      JSON.stringify([input]),
      JSON.stringify(keys),
      summaryOf(keys, { what: `Issue invoice ${inv.invoiceNumber} of shipment ${shipment.shipmentNumber} (order ${order.orderNumber})`, amount: amountText(new Decimal(inv.total).toFixed(), inv.currencyCode) }),
    ],
  );
  return inv;
}
