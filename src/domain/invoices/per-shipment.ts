/**
 * The invoice of one shipment of an order invoiced per shipment (pure; docs/fulfillment.md
 * "Invoicing"). Lines: the units this shipment took of each order line, at the order line's price.
 * The order's discount, tax and total are shared pro rata to the shipped merchandise; the shipment
 * that leaves nothing to ship takes what the earlier invoices (and cancellations) left of them, so
 * the invoices of a fully shipped order add up to the order's total exactly.
 */
import { Decimal } from 'decimal.js';
import { roundMoney, type Amount } from '../money.js';

export interface ShippedOrderLine {
  sku: string;
  productName: string;
  price: Amount;
  /** Ordered units. */
  quantity: number;
  cancelledQuantity: number;
  /** Units shipped before this shipment. */
  shippedBefore: number;
  /** Units this shipment takes. */
  shippedNow: number;
}

export interface OrderAmounts {
  subtotal: Amount;
  discountAmount: Amount;
  tax: Amount;
  total: Amount;
}

export interface ShipmentInvoiceAmounts {
  items: { sku: string; productName: string; quantity: number; price: string }[];
  subtotal: Decimal;
  discountAmount: Decimal;
  tax: Decimal;
  total: Decimal;
  /** True when this shipment leaves no unit of the order to ship: it took the remainders. */
  last: boolean;
}

const sum = (xs: readonly Amount[]) => xs.reduce<Decimal>((s, x) => s.plus(x), new Decimal(0));

/**
 * `before`: the amounts of the order's earlier shipment invoices; `cancelled`: what cancellations of
 * the order took (their amounts), which no shipment invoices.
 */
export function shipmentInvoice(
  lines: readonly ShippedOrderLine[],
  order: OrderAmounts,
  before: readonly OrderAmounts[],
  cancelled: Amount,
  currency: string,
): ShipmentInvoiceAmounts {
  const shipped = lines.filter((l) => l.shippedNow > 0);
  const items = shipped.map((l) => ({ sku: l.sku, productName: l.productName, quantity: l.shippedNow, price: new Decimal(l.price).toFixed() }));
  const subtotal = sum(shipped.map((l) => roundMoney(new Decimal(l.price).times(l.shippedNow), currency)));
  const last = lines.every((l) => l.shippedBefore + l.shippedNow + l.cancelledQuantity >= l.quantity);
  const orderSubtotal = new Decimal(order.subtotal);
  const share = (x: Amount) => (orderSubtotal.isZero() ? new Decimal(0) : roundMoney(new Decimal(x).times(subtotal).dividedBy(orderSubtotal), currency));
  if (!last) return { items, subtotal, discountAmount: share(order.discountAmount), tax: share(order.tax), total: share(order.total), last };
  const rest = (x: Amount, taken: Amount[]) => Decimal.max(0, new Decimal(x).minus(sum(taken)));
  return {
    items,
    subtotal,
    discountAmount: rest(order.discountAmount, before.map((b) => b.discountAmount)),
    tax: rest(order.tax, before.map((b) => b.tax)),
    total: rest(order.total, [...before.map((b) => b.total), cancelled]),
    last,
  };
}
