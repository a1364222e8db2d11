/**
 * The checkout workflow's database steps (called by src/activities/checkout.ts). Temporal runs
 * each at least once, so each is idempotent by a key: reserveOrderNumber by the cart (the number
 * is stored on the cart), createOrderFromCart by originationCartId (unique per organization; the
 * order insert and closing the cart are one transaction). The charge and its void are payment
 * activities (src/activities/payments.ts), keyed by the checkout attempt the reservation counted
 * (`checkout-<cartId>` for the first, `checkout-<cartId>-<n>` after; the void `void-` and the
 * charge's key): a run after a voided or declined charge charges anew instead of getting the
 * provider's first answer back. Every read of the cart is readCartForCheckout (./checkout-cart.ts),
 * and what it comes to is cartAmountDue.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { sameCartLines } from '../../domain/approvals/rules.js';
import { Cart, type Invoice, Order } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import type { CheckoutInput } from '../../workflows/checkout-cart-defs.js';
import { reserveCredit } from '../credit/accounts.js';
import { invoiceOrder, writeOrderInvoice, type OrderInvoice, type OrderInvoiceInput } from '../invoices/from-order.js';
import { decideOrderInvoicing } from '../invoices/per-shipment.js';
import { allocateNumber, ORDER_NUMBERS } from '../numbering.js';
import { boundRows, boundSql } from '../../db/orm-sql.js';
import { createOrder, customerFactsSnapshot, repSnapshot, toOrderAddress } from '../orders/create.js';
import { fulfillmentOf } from '../fulfillment/start.js';
import type { FulfillOrderInput } from '../../workflows/fulfill-order-defs.js';
import { cartAmountDue, readCartForCheckout, type CheckoutCartLine } from './checkout-cart.js';

export interface Prepared {
  orderNumber: string;
  amount: string;
  currency: string;
  /** Set when the order already exists (a finished checkout re-run). */
  existingOrderId: string | null;
  /** The provider idempotency key of this run's charge (absent from results recorded before it: `checkout-<cartId>`). */
  chargeKey?: string;
}

/** The provider key of a cart's n-th checkout attempt: the first keeps the key every attempt had before attempts were counted. */
export const chargeKeyOf = (cartId: string, attempt: number): string => (attempt <= 1 ? `checkout-${cartId}` : `checkout-${cartId}-${attempt}`);

/**
 * `amount`: what the run charged (or, on account, reserved against credit) for the cart as the
 * reservation read it; the order is refused when the cart no longer adds up to it (absent from
 * inputs recorded before the check).
 */
export type OrderFromCartInput = CheckoutInput & { orderNumber: string; chargeId: string | null; amount?: string };

export interface CreatedOrder {
  orderId: string;
  orderNumber: string;
  customerEmail: string | null;
  total: string;
  currency: string;
  /** The order has a tracked line: the checkout workflow starts its fulfillOrder as a child with this input (absent from results recorded before: those orders' starts went through the outbox). */
  fulfillment?: FulfillOrderInput | null;
}

/**
 * Reserves the order number of the cart (kept for every later attempt) and counts the attempt, in
 * one transaction under the cart's row lock; answers the amount to charge. A cart with an order
 * already (a finished checkout re-run, or an order posted or imported naming this cart) is never
 * charged again: its order is answered. Refuses (409, nothing charged) a cart that no longer comes
 * to the admitted amount or lines.
 */
export async function reserveOrderNumber(em: EntityManager, input: CheckoutInput): Promise<Prepared> {
  return em.transactional(async (tem) => {
    const cart = await readCartForCheckout(tem, input.organizationId, input.cartId, { lock: true });
    if (!cart) throw AppError.notFound('Cart');
    const due = cartAmountDue(cart);
    if (cart.existingOrderId)
      return { orderNumber: cart.existingOrderNumber!, amount: new Decimal(due).toFixed(2), currency: cart.currencyCode, existingOrderId: cart.existingOrderId };
    if (cart.status !== 'PENDING') throw AppError.badRequest('The cart is closed.');
    if (!cart.items.length) throw AppError.badRequest('The cart is empty.');
    if (input.expectedAmount !== undefined && !new Decimal(due).eq(input.expectedAmount))
      throw AppError.conflict(
        `The cart changed while it was being checked out: the checkout was admitted for ${input.expectedAmount} ${cart.currencyCode} ` +
          `(by the buyer's limits, or an approval) and the cart now comes to ${due} ${cart.currencyCode}. ` +
          'Nothing was charged; review the cart and check out again.',
      );
    if (input.expectedLines && !sameCartLines(cart.items, input.expectedLines))
      throw AppError.conflict(
        'The cart changed while it was being checked out: its lines are no longer those the checkout was admitted for (by the buyer\'s limits, or an approval). ' +
          'Nothing was charged; review the cart and check out again.',
      );
    const orderNumber = cart.reservedOrderNumber ?? (await allocateNumber(boundSql(tem), ORDER_NUMBERS, input.organizationId));
    // The number is kept for every later attempt; the attempt is counted in the same transaction.
    const [{ attempt }] = await boundRows<{ attempt: number }>(
      tem,
      `update cart set reserved_order_number = $1, checkout_attempts = checkout_attempts + 1, updated_at = $2
        where organization_id = $3 and id = $4 returning checkout_attempts as attempt`,
      [orderNumber, new Date(), input.organizationId, input.cartId],
    );
    return { orderNumber, amount: due, currency: cart.currencyCode, existingOrderId: null, chargeKey: chargeKeyOf(input.cartId, attempt) };
  });
}

/**
 * Creates the order from the cart, closes the cart and writes the order's invoice and its card
 * payment, in one transaction; when the order exists already (an earlier attempt) it is returned
 * and its invoice written or found as invoiceOrder does. An on-account order invoiced per shipment
 * (docs/fulfillment.md "Invoicing") gets no invoice here: `invoice` is null.
 */
export async function createOrderFromCart(em: EntityManager, input: OrderFromCartInput & { paymentKey: string }): Promise<CreatedOrder & { invoice: OrderInvoice | null }> {
  const paymentKey = input.paymentKey;
  const invoiceInput = (orderId: string): OrderInvoiceInput => ({
    organizationId: input.organizationId,
    orderId,
    chargeId: input.chargeId,
    paymentKey,
    paymentProfileId: input.paymentProfileId,
  });
  let written: { orderId: string; invoice: Invoice | null } | null = null;
  const order = await orderFromCart(em, input, async (tem, o) => {
    // The order's id is assigned when it is stored; the invoice names it.
    await tem.flush();
    written = { orderId: o.id, invoice: o.invoicePerShipment ? null : await writeOrderInvoice(tem, o, invoiceInput(o.id)) };
  });
  const w = written as { orderId: string; invoice: Invoice | null } | null;
  // Only when the transaction that wrote it is the one whose order came back (not a concurrent attempt's).
  const inv =
    w && w.orderId === order.orderId
      ? w.invoice && { invoiceId: w.invoice.id, invoiceNumber: w.invoice.invoiceNumber, customerNumber: w.invoice.customerNumber }
      : await invoiceOrder(em.fork(), invoiceInput(order.orderId));
  return { ...order, invoice: inv };
}

type Line = Pick<CheckoutCartLine, 'sku' | 'quantity' | 'unitPrice'>;
const sameLines = (a: readonly Line[], b: readonly Line[]) =>
  a.length === b.length && a.every((l, i) => l.sku === b[i].sku && l.quantity === b[i].quantity && Number(l.unitPrice) === Number(b[i].unitPrice));

/** The 409 of a cart edited while its checkout ran (between the reservation that priced the charge and the order). */
const cartChanged = () => AppError.conflict('The cart changed while it was being checked out; any charge was voided. Review the cart and check out again.');

async function orderFromCart(em0: EntityManager, input: OrderFromCartInput, alsoWithin?: (tem: EntityManager, o: Order) => Promise<void>): Promise<CreatedOrder> {
  const em = em0.fork();
  const found = async () => {
    const o = await em.fork().findOne(Order, { organization: input.organizationId, originationCartId: input.cartId });
    return o ? createdOrder(input.organizationId, o) : null;
  };
  // What the order is made of: the cart, its lines, its customer record, and whether an order for it exists.
  const cart = await readCartForCheckout(em, input.organizationId, input.cartId);
  // An order for the cart exists (or the cart is gone): return that order. A concurrent attempt that
  // writes it after this read loses on the unique index order_org_cart_unique (createOrder's existingForCart).
  if (!cart || cart.existingOrderId) {
    const already = await found();
    if (already) return already;
    if (!cart) throw new Error(`Cart ${input.cartId} of organization ${input.organizationId} not found.`);
  }
  const customer = cart.customer;
  const shippingAddress = toOrderAddress(cart.shippingAddress);
  const order = await createOrder(
    em,
    input.organizationId,
    {
      orderNumber: input.orderNumber,
      orderType: cart.orderType,
      poNumber: cart.poNumber ?? null,
      priceTier: cart.pricingTier,
      currencyCode: cart.currencyCode,
      terms: customer?.terms ?? null,
      channel: input.channel,
      externalId: null,
      notes: cart.specialInstructions ?? null,
      originationCartId: cart.id,
      customer: customer
        ? customerFactsSnapshot(customer, shippingAddress)
        : { customerNumber: cart.customerNumber, companyName: cart.companyName, shippingAddress },
      customerId: customer?.id ?? null,
      primarySalesRep: await repSnapshot(em, input.organizationId, customer?.repNumber),
      takenBySalesRep: null,
      repNumber: customer?.repNumber ?? null,
      shippingDetails: null,
      tax: 0,
      items: cart.items.map((l) => ({ sku: l.sku, productName: l.name, quantity: l.quantity, price: l.unitPrice, priceListId: l.priceListId })),
      paymentChargeId: input.chargeId,
      createdByUserId: input.userId,
      createdByUserType: null,
    },
    {
      existingForCart: true,
      // Reserved by reserveOrderNumber through the allocator.
      numberAllocated: true,
      // The checkout workflow starts the order's fulfillOrder as its child (CreatedOrder.fulfillment).
      fulfillmentStart: 'caller',
      withinTransaction: async (tem: EntityManager, o, reserve) => {
        // Closing the cart takes its row lock. The charge (or the credit reserved) is for the cart the
        // reservation read: an edit since then, committed before the lock, refuses the order and the
        // workflow voids the charge; a later edit waits for the lock and finds the cart closed.
        await tem.nativeUpdate(Cart, { organization: input.organizationId, id: input.cartId }, { status: 'CLOSED', updatedAt: new Date() });
        // The lines as this transaction sees them once it holds the lock, read in a statement of its own
        // (a statement that waited for the lock would still read the lines of its own, older snapshot). An
        // edit of the cart (src/services/carts/carts.ts, editOpenCart) takes the same lock and refuses a
        // closed cart, so these are the lines the cart is closed with.
        const locked = await readCartForCheckout(tem, input.organizationId, input.cartId);
        if (!locked || !sameLines(locked.items, cart.items)) throw cartChanged();
        // Exactly the lines admitted (an approval is for these lines, not for a total).
        if (input.expectedLines && !sameCartLines(locked.items, input.expectedLines)) throw cartChanged();
        if (input.amount !== undefined && cartAmountDue(cart) !== input.amount) throw cartChanged();
        // Tracked lines are reserved before the invoice's write stores the order (one insert with fulfillment_managed).
        await reserve();
        if (input.paymentMethod === 'OnAccount') {
          await reserveCredit(tem, input.organizationId, o);
          await decideOrderInvoicing(tem, input.organizationId, o);
        }
        await alsoWithin?.(tem, o);
      },
    },
  );
  return createdOrder(input.organizationId, order);
}

function createdOrder(orgId: string, o: Order): CreatedOrder {
  return {
    orderId: o.id,
    orderNumber: o.orderNumber,
    customerEmail: o.customer.companyEmail ?? null,
    total: o.total,
    currency: o.currencyCode,
    fulfillment: fulfillmentOf(orgId, o),
  };
}
