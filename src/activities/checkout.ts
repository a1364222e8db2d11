/**
 * Checkout activities. Temporal runs each at least once, so each is idempotent by a key:
 * reserveOrderNumber by the cart (the number is stored on the cart), createOrder by
 * originationCartId (unique per organization; the order insert and closing the cart are one
 * transaction). The charge and its void are payment activities (src/activities/payments.ts),
 * keyed by the checkout attempt the reservation counted (`checkout-<cartId>` for the first,
 * `checkout-<cartId>-<n>` after; the void `void-` and the charge's key): a run after a voided or
 * declined charge charges anew instead of getting the provider's first answer back.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { invoiceCheckoutOrder, writeCheckoutInvoice, type CheckoutInvoiceInput } from '../services/invoices/from-order.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { amountDue, orderTotals } from '../domain/orders/totals.js';
import { minorUnitDigits } from '../domain/money.js';
import { sameCartLines } from '../domain/approvals/rules.js';
import { Cart, Invoice, Order } from '../entities/index.js';
import type { CartAddress } from '../entities/Cart.js';
import { AppError } from '../errors.js';
import { allocateNumber, emSql, ORDER_NUMBERS } from '../services/numbering.js';
import { reserveCredit } from '../services/credit/accounts.js';
import { createOrder, customerFactsSnapshot, repSnapshot, toOrderAddress, type CustomerFacts } from '../services/orders/create.js';
import { boundRows } from '../services/db/bound.js';
import type { CheckoutInput } from '../workflows/checkout-cart-defs.js';
import { mapped } from './failures.js';

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
type OrderInput = CheckoutInput & { orderNumber: string; chargeId: string | null; amount?: string };

export interface CreatedOrder {
  orderId: string;
  orderNumber: string;
  customerEmail: string | null;
  total: string;
  currency: string;
}

export interface CheckoutInvoice {
  invoiceId: string;
  invoiceNumber: string;
  customerNumber: string;
  reminderDelaySeconds: number | null;
}

/**
 * The reservation's read, one statement in its transaction: the cart locked (a concurrent
 * reservation waits, so one number is allocated per cart), its lines for the amount, and the order
 * already written for it (a finished checkout re-run, or an order posted or imported naming this
 * cart), whatever the cart's status: such an order is never charged again.
 */
const RESERVATION_SQL = `select k.status, k.currency_code as "currencyCode", k.reserved_order_number as "reservedOrderNumber",
    o.id as "existingOrderId", o.order_number as "existingOrderNumber",
    coalesce((select json_agg(json_build_object('sku', i.sku, 'price', i.unit_price::text, 'quantity', i.quantity))
                from cart_item i where i.organization_id = k.organization_id and i.cart_id = k.id), '[]') as items
  from cart k
  left join lateral (select s.id, s.order_number from sales_order s
                      where s.organization_id = k.organization_id and s.origination_cart_id = k.id) o on true
 where k.organization_id = $1 and k.id = $2
   for update of k`;

interface ReservationRow {
  status: string;
  currencyCode: string;
  reservedOrderNumber: string | null;
  existingOrderId: string | null;
  existingOrderNumber: string | null;
  items: { sku: string; price: string; quantity: number }[];
}

/**
 * What the order is made of, one statement: the cart, its lines in the order they were added, its
 * customer record (by id: a customer who took a deleted customer's number is another record) with
 * its addresses, and whether an order for the cart exists already (an earlier attempt of this
 * activity, or an order posted or imported naming this cart).
 */
const ORDER_SOURCE_SQL = `select k.id, k.customer_number as "customerNumber", k.company_name as "companyName", k.pricing_tier as "pricingTier",
    k.currency_code as "currencyCode", k.order_type as "orderType", k.special_instructions as "specialInstructions",
    k.po_number as "poNumber", k.shipping_address as "shippingAddress",
    exists (select 1 from sales_order s where s.organization_id = k.organization_id and s.origination_cart_id = k.id) as "hasOrder",
    coalesce((select json_agg(json_build_object('sku', i.sku, 'name', i.name, 'quantity', i.quantity, 'unitPrice', i.unit_price::text) order by i.created_at, i.id)
                from cart_item i where i.organization_id = k.organization_id and i.cart_id = k.id), '[]') as items,
    (select json_build_object('id', c.id, 'customerNumber', c.customer_number, 'companyName', c.company_name, 'companyEmail', c.company_email,
                              'companyPhone', c.company_phone, 'companyFax', c.company_fax, 'terms', c.terms, 'repNumber', c.rep_number,
                              'addresses', coalesce((select json_agg(json_build_object('addressType', a.address_type, 'isPrimary', a.is_primary, 'line1', a.line1,
                                                                                       'line2', a.line2, 'city', a.city, 'state', a.state, 'postalCode', a.postal_code,
                                                                                       'country', a.country) order by a.position, a.id)
                                                       from customer_address a where a.organization_id = c.organization_id and a.customer_id = c.id), '[]'))
       from customer c where c.organization_id = k.organization_id and c.id = k.customer_id) as customer
  from cart k
 where k.organization_id = $1 and k.id = $2`;

/**
 * The cart's lines as the order's transaction sees them once it holds the cart's row lock (taken by
 * closing the cart). Read in a statement of their own after the lock: a statement that waited for the
 * lock would still read the lines of its own, older snapshot. An edit of the cart
 * (src/services/carts/carts.ts, editOpenCart) takes the same lock and refuses a closed cart, so these
 * are the lines the cart is closed with.
 */
const LOCKED_LINES_SQL = `select coalesce(json_agg(json_build_object('sku', i.sku, 'quantity', i.quantity, 'unitPrice', i.unit_price::text) order by i.created_at, i.id), '[]') as items
  from cart_item i where i.organization_id = $1 and i.cart_id = $2`;

type Line = { sku: string; quantity: number; unitPrice: string };
const sameLines = (a: readonly Line[], b: readonly Line[]) =>
  a.length === b.length && a.every((l, i) => l.sku === b[i].sku && l.quantity === b[i].quantity && Number(l.unitPrice) === Number(b[i].unitPrice));

/** The 409 of a cart edited while its checkout ran (between the reservation that priced the charge and the order). */
const cartChanged = () => AppError.conflict('The cart changed while it was being checked out; any charge was voided. Review the cart and check out again.');

interface OrderSourceRow {
  id: string;
  customerNumber: string;
  companyName: string;
  pricingTier: string;
  currencyCode: string;
  orderType: string;
  specialInstructions: string | null;
  poNumber: string | null;
  shippingAddress: CartAddress | null;
  hasOrder: boolean;
  items: { sku: string; name: string; quantity: number; unitPrice: string }[];
  customer: (CustomerFacts & { id: string; terms: string | null; repNumber: string | null }) | null;
}

export function createCheckoutActivities(deps: { orm: MikroORM; config: Config }) {
  return {
    /** The order's invoice, Issued and paid by the checkout charge (idempotent; see src/services/invoices/from-order.ts). */
    async invoiceCheckoutOrder(input: CheckoutInvoiceInput): Promise<CheckoutInvoice> {
      const res = await invoiceCheckoutOrder(deps.orm.em.fork(), input);
      return { ...res, reminderDelaySeconds: deps.config.invoiceReminderDelayOverrideSeconds };
    },

    async reserveOrderNumber(input: CheckoutInput): Promise<Prepared> {
      return mapped(async () => {
        const em = deps.orm.em.fork();
        return em.transactional(async (tem) => {
          const [cart] = await boundRows<ReservationRow>(tem, RESERVATION_SQL, [input.organizationId, input.cartId]);
          if (!cart) throw AppError.notFound('Cart');
          const amount = orderTotals(cart.items, cart.currencyCode).total;
          if (cart.existingOrderId)
            return { orderNumber: cart.existingOrderNumber!, amount: amount.toFixed(2), currency: cart.currencyCode, existingOrderId: cart.existingOrderId };
          if (cart.status !== 'PENDING') throw AppError.badRequest('The cart is closed.');
          if (!cart.items.length) throw AppError.badRequest('The cart is empty.');
          const due = amount.toFixed(minorUnitDigits(cart.currencyCode));
          if (input.expectedAmount !== undefined && !amount.eq(input.expectedAmount))
            throw AppError.conflict(
              `The cart changed while it was being checked out: the checkout was admitted for ${input.expectedAmount} ${cart.currencyCode} ` +
                `(by the buyer's limits, or an approval) and the cart now comes to ${due} ${cart.currencyCode}. ` +
                'Nothing was charged; review the cart and check out again.',
            );
          if (input.expectedLines && !sameCartLines(cart.items.map((i) => ({ sku: i.sku, quantity: i.quantity, unitPrice: i.price })), input.expectedLines))
            throw AppError.conflict(
              'The cart changed while it was being checked out: its lines are no longer those the checkout was admitted for (by the buyer\'s limits, or an approval). ' +
                'Nothing was charged; review the cart and check out again.',
            );
          const orderNumber = cart.reservedOrderNumber ?? (await allocateNumber(emSql(tem), ORDER_NUMBERS, input.organizationId));
          // The number is kept for every later attempt; the attempt is counted in the same transaction.
          const [{ attempt }] = await boundRows<{ attempt: number }>(
            tem,
            `update cart set reserved_order_number = $1, checkout_attempts = checkout_attempts + 1, updated_at = $2
              where organization_id = $3 and id = $4 returning checkout_attempts as attempt`,
            [orderNumber, new Date(), input.organizationId, input.cartId],
          );
          return {
            orderNumber,
            amount: due,
            currency: cart.currencyCode,
            existingOrderId: null,
            chargeKey: chargeKeyOf(input.cartId, attempt),
          };
        });
      });
    },

    /**
     * Creates the order from the cart and closes the cart, in one transaction; an existing order for
     * the cart is returned. With `paymentKey` (workflow patch `order-with-invoice`) the order's invoice
     * and its card payment are written in the same transaction and returned; when the order exists
     * already (an earlier attempt, or a run from before the patch) its invoice is written or found as
     * invoiceCheckoutOrder does. Without it, the order alone (histories from before the patch).
     */
    async createOrderFromCart(input: OrderInput & { paymentKey?: string }): Promise<CreatedOrder & { invoice?: CheckoutInvoice }> {
      const paymentKey = input.paymentKey;
      if (!paymentKey) return mapped(() => orderFromCart(input));
      return mapped(async () => {
        const invoiceInput = (orderId: string): CheckoutInvoiceInput => ({
          organizationId: input.organizationId,
          orderId,
          chargeId: input.chargeId,
          paymentKey,
          paymentProfileId: input.paymentProfileId,
        });
        let written: { orderId: string; invoice: Invoice } | null = null;
        const order = await orderFromCart(input, async (tem, o) => {
          // The order's id is assigned when it is stored; the invoice names it.
          await tem.flush();
          written = { orderId: o.id, invoice: await writeCheckoutInvoice(tem, o, invoiceInput(o.id)) };
        });
        const w = written as { orderId: string; invoice: Invoice } | null;
        // Only when the transaction that wrote it is the one whose order came back (not a concurrent attempt's).
        const inv =
          w && w.orderId === order.orderId
            ? { invoiceId: w.invoice.id, invoiceNumber: w.invoice.invoiceNumber, customerNumber: w.invoice.customerNumber }
            : await invoiceCheckoutOrder(deps.orm.em.fork(), invoiceInput(order.orderId));
        return { ...order, invoice: { ...inv, reminderDelaySeconds: deps.config.invoiceReminderDelayOverrideSeconds } };
      });
    },
  };

  async function orderFromCart(input: OrderInput, alsoWithin?: (tem: EntityManager, o: Order) => Promise<void>): Promise<CreatedOrder> {
    const em = deps.orm.em.fork();
    const found = async () => {
      const o = await em.fork().findOne(Order, { organization: input.organizationId, originationCartId: input.cartId });
      return o ? { orderId: o.id, orderNumber: o.orderNumber, customerEmail: o.customer.companyEmail ?? null, total: o.total, currency: o.currencyCode } : null;
    };
    const [cart] = await boundRows<OrderSourceRow>(em, ORDER_SOURCE_SQL, [input.organizationId, input.cartId]);
    // An order for the cart exists (or the cart is gone): return that order. A concurrent attempt that
    // writes it after this read loses on the unique index order_org_cart_unique (createOrder's existingForCart).
    if (!cart || cart.hasOrder) {
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
        items: cart.items.map((l) => ({ sku: l.sku, productName: l.name, quantity: l.quantity, price: l.unitPrice })),
        paymentChargeId: input.chargeId,
        createdByUserId: input.userId,
        createdByUserType: null,
      },
      {
        existingForCart: true,
        // Reserved by reserveOrderNumber through the allocator.
        numberAllocated: true,
        withinTransaction: async (tem: EntityManager, o) => {
          // Closing the cart takes its row lock. The charge (or the credit reserved) is for the cart the
          // reservation read: an edit since then, committed before the lock, refuses the order and the
          // workflow voids the charge; a later edit waits for the lock and finds the cart closed.
          await tem.nativeUpdate(Cart, { organization: input.organizationId, id: input.cartId }, { status: 'CLOSED', updatedAt: new Date() });
          const [locked] = await boundRows<{ items: Line[] }>(tem, LOCKED_LINES_SQL, [input.organizationId, input.cartId]);
          if (!sameLines(locked.items, cart.items)) throw cartChanged();
          // Exactly the lines admitted (an approval is for these lines, not for a total).
          if (input.expectedLines && !sameCartLines(locked.items, input.expectedLines)) throw cartChanged();
          if (
            input.amount !== undefined &&
            amountDue(
              cart.items.map((l) => ({ price: l.unitPrice, quantity: l.quantity })),
              cart.currencyCode,
            ) !== input.amount
          )
            throw cartChanged();
          if (input.paymentMethod === 'OnAccount') await reserveCredit(tem, input.organizationId, o);
          await alsoWithin?.(tem, o);
        },
      },
    );
    return {
      orderId: order.id,
      orderNumber: order.orderNumber,
      customerEmail: order.customer.companyEmail ?? null,
      total: order.total,
      currency: order.currencyCode,
    };
  }
}
