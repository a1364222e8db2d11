/**
 * Creating orders: the one way an order is created (`createOrder`, used by POST /api/orders, the
 * bulk import, checkout and quotes), the drafts it is made from (as given, or priced from the
 * catalog) and the customer and sales-rep snapshots an order stores. Orders posted by Customer and
 * SalesRep tokens are priced from the catalog for the customer's tier and start Pending: the
 * client's prices, totals, status and attribution are ignored (DESIGN "Security decisions").
 * Reads and updates: ./orders.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { parseOrderStatus, type OrderStatus } from '../../domain/orders/status.js';
import { orderTotals } from '../../domain/orders/totals.js';
import type { Amount } from '../../domain/money.js';
import { Customer, Order, OrderItem, OrganizationMember, OrganizationSalesRep, type ApprovalRequest, type PriceTier } from '../../entities/index.js';
import type { CartAddress } from '../../entities/Cart.js';
import type { CustomerAddress } from '../../entities/CustomerAddress.js';
import type { OrderCustomer, OrderSalesRep, PostalAddress } from '../../entities/Order.js';
import type { OrderInput } from '../../domain/orders/schemas.js';
import { AppError, isUniqueViolation, type FieldErrors } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { findPriceTier, priceLines, quantityRuleLineErrors } from '../catalog/pricing.js';
import { catalogLineErrors } from '../catalog/catalog-visibility.js';
import { findVisibleCustomer, mayActFor, visibleCustomerNumbers } from '../customers/visibility.js';
import { visibleProfile } from '../memberships/index.js';
import { allocateNumber, claimNumbers, ORDER_NUMBERS } from '../numbering.js';
import { boundSql } from '../../db/orm-sql.js';
import { reserveOrderStock } from '../stock/ledger.js';
import { keepFulfillmentStart } from '../fulfillment/start.js';
import { emitEventOnce } from '../webhooks/events.js';
import { insertApprovalRequest, orderNeedsApproval, startApproval, type AdmissionDeps, type AdmissionSubject } from './admission.js';

/** The order columns a draft gives as they are stored (no number, status, money or lines). */
export interface OrderHeader {
  orderType: string;
  poNumber: string | null;
  priceTier: string | null;
  currencyCode: string;
  terms: string | null;
  channel: string | null;
  externalId: string | null;
  notes: string | null;
  originationCartId: string | null;
  customer: OrderCustomer;
  /** The stored customer the order belongs to (null: none has this customerNumber). */
  customerId: string | null;
  primarySalesRep: OrderSalesRep | null;
  takenBySalesRep: OrderSalesRep | null;
  repNumber: string | null;
  createdByUserId: string | null;
  createdByUserType: string | null;
}

/** Everything an order is made of, already decided (prices included). */
export interface OrderDraft extends OrderHeader {
  /** Generated from the organization's counter when absent. */
  orderNumber?: string | null;
  orderDate?: Date | null;
  /** Left unchanged on an update when absent; new orders start Pending. */
  orderStatus?: OrderStatus | null;
  shippingDetails: { method: string | null; total: Amount } | null;
  tax: Amount;
  /** priceListId: the price list that priced the line (null or absent: the tier, or a price given as is). */
  items: { sku: string; productName: string; quantity: number; price: Amount; priceListId?: string | null }[];
  active?: boolean | null;
  paymentChargeId?: string | null;
}

/** An order as the API receives it (POST /api/orders and the bulk import): the schema's type. */
export type { OrderInput };

/** The columns and lines an order takes from a draft (totals from src/domain/orders/totals.ts); undefined = keep the stored value. */
export interface OrderValues {
  scalars: OrderHeader & {
    customerNumber: string;
    customerId: string | null;
    shippingDetails: { method: string | null; total: number } | null;
    subtotal: string;
    tax: string;
    shippingTotal: string;
    total: string;
  };
  orderStatus?: OrderStatus;
  orderDate?: Date;
  active?: boolean;
  items: { sku: string; productName: string; quantity: number; price: string; subTotal: string; priceListId: string | null }[];
}

/** Merges a draft over the order's current externalId and originationCartId: the one rule of what an order stores (POST, bulk, import, checkout). */
export function orderValues(d: OrderDraft, current: { externalId?: string | null; originationCartId?: string | null } | null): OrderValues {
  const t = orderTotals(d.items, d.currencyCode, d.tax, d.shippingDetails?.total ?? 0);
  return {
    scalars: {
      orderType: d.orderType,
      poNumber: d.poNumber,
      priceTier: d.priceTier,
      currencyCode: d.currencyCode,
      terms: d.terms,
      channel: d.channel,
      externalId: d.externalId ?? current?.externalId ?? null,
      notes: d.notes,
      originationCartId: d.originationCartId ?? current?.originationCartId ?? null,
      customerNumber: d.customer.customerNumber,
      customerId: d.customerId,
      customer: d.customer,
      primarySalesRep: d.primarySalesRep,
      takenBySalesRep: d.takenBySalesRep,
      repNumber: d.repNumber,
      shippingDetails: d.shippingDetails ? { method: d.shippingDetails.method, total: Number(t.shipping) } : null,
      subtotal: t.subtotal.toString(),
      tax: t.tax.toString(),
      shippingTotal: t.shipping.toString(),
      total: t.total.toString(),
      createdByUserId: d.createdByUserId,
      createdByUserType: d.createdByUserType,
    },
    orderStatus: d.orderStatus ?? undefined,
    orderDate: d.orderDate ?? undefined,
    active: d.active ?? undefined,
    items: d.items.map((l, i) => ({ sku: l.sku, productName: l.productName, quantity: l.quantity, price: t.lines[i].price.toString(), subTotal: t.lines[i].subTotal.toString(), priceListId: l.priceListId ?? null })),
  };
}

/** Copies a draft onto an order (new or existing) and replaces its lines. */
function applyDraft(em: EntityManager, o: Order, d: OrderDraft): void {
  const v = orderValues(d, o);
  em.assign(o, v.scalars);
  if (d.paymentChargeId !== undefined) o.paymentChargeId = d.paymentChargeId;
  if (v.orderStatus) o.orderStatus = v.orderStatus;
  if (v.orderDate) o.orderDate = v.orderDate;
  if (v.active !== undefined) o.active = v.active;
  o.items.removeAll();
  v.items.forEach((l, position) => o.items.add(em.create(OrderItem, { order: o, position, ...l })));
}

/** The 409 of a unique order column (number, externalId, cart) taken already; any other error as it is. */
export function orderConflict(e: unknown): unknown {
  if (isUniqueViolation(e, 'order_org_number_unique')) return AppError.conflict('An order with this orderNumber already exists.');
  if (isUniqueViolation(e, 'order_org_external_id_unique')) return AppError.conflict('Another order already has this externalId.');
  if (isUniqueViolation(e, 'order_org_cart_unique')) return AppError.conflict('An order for this originationCartId already exists.');
  return e;
}

export interface CreateOrderOptions {
  /**
   * Runs inside the order's transaction before the commit (checkout closes the cart here). `reserve`
   * reserves the order's tracked lines now, before a write that stores the order, so that the order's
   * insert carries `fulfillment_managed` and the lines' backordered quantities; otherwise createOrder
   * reserves after the callback (which may change the order's status, e.g. to PendingApproval).
   */
  withinTransaction?: (tem: EntityManager, order: Order, reserve: () => Promise<void>) => Promise<void> | void;
  /**
   * Who starts the fulfillOrder workflow of an order with a tracked line: the workflow-start outbox
   * in the order's transaction (default), or the caller (the checkout workflow starts it as its child,
   * from CreatedOrder.fulfillment).
   */
  fulfillmentStart?: 'outbox' | 'caller';
  /** When another run already created the order of `originationCartId`, return it instead of a 409. */
  existingForCart?: boolean;
  /**
   * draft.orderNumber came from the order-number allocator (a checkout's reserved number): no claim
   * on the counter (claimNumbers guards numbers written from outside; the allocator never hands a
   * value out twice).
   */
  numberAllocated?: boolean;
}

/**
 * Creates one order in its own transaction: the order number is drawn inside it (src/services/numbering.ts),
 * the totals computed once from the draft's lines, tax and shipping.
 */
export async function createOrder(em: EntityManager, orgId: string, draft: OrderDraft, opts: CreateOrderOptions = {}): Promise<Order> {
  try {
    return await em.transactional(async (tem) => {
      if (draft.orderNumber && !opts.numberAllocated) await claimNumbers(boundSql(tem), ORDER_NUMBERS, orgId, [draft.orderNumber]);
      const o = tem.create(Order, {
        organization: orgId,
        orderNumber: draft.orderNumber || (await allocateNumber(boundSql(tem), ORDER_NUMBERS, orgId)),
        orderDate: new Date(),
        orderStatus: 'Pending',
        orderType: draft.orderType,
        currencyCode: draft.currencyCode,
        customerNumber: draft.customer.customerNumber,
        customerId: draft.customerId,
        customer: draft.customer,
        subtotal: '0',
        total: '0',
      });
      applyDraft(tem, o, draft);
      let reserved = false;
      const reserve = async () => {
        if (reserved) return;
        reserved = true;
        await reserveForOrder(tem, orgId, o, opts.fulfillmentStart ?? 'outbox');
      };
      await opts.withinTransaction?.(tem, o, reserve);
      await reserve();
      await tem.flush();
      return o;
    });
  } catch (e) {
    if (opts.existingForCart && draft.originationCartId && isUniqueViolation(e, 'order_org_cart_unique')) {
      const existing = await em.fork().findOne(Order, { organization: orgId, originationCartId: draft.originationCartId });
      if (existing) return existing;
    }
    throw orderConflict(e);
  }
}

/** Statuses a new order reserves stock in (docs/fulfillment.md "Reservations"): an order held for approval reserves when approved; a recorded Shipped, Complete or Cancelled order reserves nothing. */
const RESERVING: readonly string[] = ['Pending', 'Processing'];

/**
 * An order released from PendingApproval (src/services/approvals/steps.ts): its tracked lines reserved now, in the approval's transaction.
 * Reserves the order's tracked lines in its transaction (src/services/stock/ledger.ts) and records
 * each line's backordered quantity; an order without tracked lines costs one read.
 */
export async function reserveApprovedOrder(tem: EntityManager, orgId: string, o: Order): Promise<void> {
  await tem.populate(o, ['items']);
  await reserveForOrder(tem, orgId, o, 'outbox');
}

async function reserveForOrder(tem: EntityManager, orgId: string, o: Order, fulfillmentStart: 'outbox' | 'caller'): Promise<void> {
  if (!RESERVING.includes(o.orderStatus)) return;
  const items = o.items.getItems();
  const allocations = await reserveOrderStock(boundSql(tem), orgId, o.id, items.map((i) => ({ sku: i.sku, quantity: i.quantity })));
  for (const a of allocations) items[a.index].backorderedQuantity = a.backordered;
  if (!allocations.length) return;
  // An order with a tracked line follows its fulfillment: its status is no longer a free field (docs/fulfillment.md "Order status"),
  // and its fulfillOrder workflow starts with it (the start outbox, this transaction, unless the caller starts it): backordered lines wait there.
  o.fulfillmentManaged = true;
  if (fulfillmentStart === 'outbox') await keepFulfillmentStart(boundSql(tem), orgId, o);
  const waiting = allocations.filter((a) => a.backordered > 0);
  if (waiting.length)
    await emitEventOnce(
      tem,
      orgId,
      'order.backordered',
      {
        orderId: o.id,
        orderNumber: o.orderNumber,
        customerNumber: o.customerNumber,
        lines: waiting.map((a) => ({ sku: items[a.index].sku, quantity: items[a.index].quantity, backorderedQuantity: a.backordered })),
      },
      `order-${o.id}-backordered`,
    );
}

/** An order address from a customer address or a cart address (SPEC cart shape: line1, state, postalCode). */
export function toOrderAddress(a: CustomerAddress | CartAddress | null | undefined): PostalAddress | null {
  if (!a) return null;
  return {
    address1: a.line1 ?? null,
    address2: a.line2 ?? null,
    city: a.city ?? null,
    stateProvince: a.state ?? null,
    zipPostalCode: a.postalCode ?? null,
    country: a.country ?? null,
  };
}

/** The customer record's fields an order's customer block is made of (an entity's, or one SQL row's). */
export interface CustomerFacts {
  customerNumber: string;
  companyName: string;
  companyEmail?: string | null;
  companyPhone?: string | null;
  companyFax?: string | null;
  addresses: readonly (Pick<CustomerAddress, 'addressType' | 'isPrimary'> & CartAddress)[];
}

/** The customer block of an order, from the customer record (billing: its primary billing address). */
export function customerSnapshot(customer: Customer, shippingAddress: PostalAddress | null): OrderCustomer {
  const addresses = customer.addresses.isInitialized() ? customer.addresses.getItems() : [];
  return customerFactsSnapshot({ ...customerFields(customer), addresses }, shippingAddress);
}

const customerFields = (c: Customer) => ({ customerNumber: c.customerNumber, companyName: c.companyName, companyEmail: c.companyEmail, companyPhone: c.companyPhone, companyFax: c.companyFax });

/** customerSnapshot from the record's fields and addresses as plain values. */
export function customerFactsSnapshot(customer: CustomerFacts, shippingAddress: PostalAddress | null): OrderCustomer {
  const addresses = customer.addresses;
  const billing = addresses.find((a) => a.addressType === 'Billing' && a.isPrimary) ?? addresses.find((a) => a.addressType === 'Billing');
  return {
    customerNumber: customer.customerNumber,
    companyName: customer.companyName,
    companyEmail: customer.companyEmail ?? null,
    companyPhone: customer.companyPhone ?? null,
    companyFax: customer.companyFax ?? null,
    billingAddress: toOrderAddress(billing),
    shippingAddress,
  };
}

/** The order's view of the sales rep with this number, or null when the organization has none. */
export async function repSnapshot(em: EntityManager, orgId: string, repNumber: string | null | undefined): Promise<OrderSalesRep | null> {
  if (!repNumber) return null;
  const rep = await em.findOne(OrganizationSalesRep, { organization: orgId, repNumber }, { populate: ['salesRep'] });
  if (!rep) return null;
  // A rep who has not accepted this organization yet is shown as the organization entered them.
  const p = visibleProfile(await em.findOne(OrganizationMember, { organization: orgId, user: rep.salesRep.user.id }), rep.salesRep);
  return {
    repNumber: rep.repNumber,
    firstName: p.firstName,
    lastName: p.lastName,
    fullName: [p.firstName, p.lastName].filter(Boolean).join(' ') || null,
    email: rep.salesRep.email,
    phoneNumber: p.phoneNumber,
  };
}

/** The stored customer an order names (its id and rep number), if any. */
export interface StoredCustomer {
  id: string;
  repNumber: string | null;
  /** The customer's price tier (the quantity rules of its price lists apply to its orders). */
  pricing?: string | null;
}

async function storedCustomer(em: EntityManager, orgId: string, customerNumber: string): Promise<StoredCustomer | null> {
  const c = await em.findOne(Customer, { organization: orgId, customerNumber }, { fields: ['id', 'repNumber', 'pricing'] });
  return c ? { id: c.id, repNumber: c.repNumber ?? null, pricing: c.pricing ?? null } : null;
}

/** An Admin's (or an import's) order: taken as given; `stored` is the stored customer with its customerNumber, if any (the order belongs to it). */
export function draftFromInput(input: OrderInput, stored: StoredCustomer | null): OrderDraft {
  return {
    orderNumber: input.orderNumber ?? null,
    orderDate: input.orderDate ? new Date(input.orderDate) : null,
    orderStatus: input.orderStatus ? parseOrderStatus(input.orderStatus) : null,
    orderType: input.orderType,
    poNumber: input.poNumber ?? null,
    priceTier: input.priceTier,
    currencyCode: input.currencyCode,
    terms: input.terms ?? null,
    channel: input.channel ?? null,
    externalId: input.externalId ?? null,
    notes: input.notes ?? null,
    originationCartId: input.originationCartId ?? null,
    customer: input.customer,
    customerId: stored?.id ?? null,
    primarySalesRep: input.primarySalesRep,
    takenBySalesRep: input.takenBySalesRep ?? null,
    repNumber: stored?.repNumber ?? input.primarySalesRep.repNumber ?? null,
    shippingDetails: input.shippingDetails ? { method: input.shippingDetails.method ?? null, total: input.shippingDetails.total } : null,
    tax: input.tax ?? 0,
    items: input.items,
    active: input.active,
    createdByUserId: input.user.userId ?? null,
    createdByUserType: input.user.userType ?? null,
  };
}

async function draftAsGiven(em: EntityManager, orgId: string, input: OrderInput): Promise<OrderDraft> {
  const stored = await storedCustomer(em, orgId, input.customer.customerNumber);
  // Prices as given, but only SKUs the customer's catalogs hold, in quantities the rules in force for it allow (docs/pricing.md).
  const errors: FieldErrors = {
    ...(await catalogLineErrors(em, orgId, stored?.id ?? null, input.items, (i) => `items[${i}].sku`)),
    ...(await quantityRuleLineErrors(em, orgId, { customerId: stored?.id ?? null, tier: stored?.pricing ?? input.priceTier ?? '', currency: input.currencyCode }, input.items)),
  };
  if (Object.keys(errors).length) throw AppError.validation(errors, 'Some lines cannot be ordered.');
  return draftFromInput(input, stored);
}

/** A Customer's or SalesRep's lines as the catalog prices them, with the customer record they were priced for. */
export interface CatalogPricing {
  customer: Customer;
  tier: PriceTier;
  /** priceListId: the price list that priced the line (null: the tier). */
  items: { sku: string; productName: string; quantity: number; price: Decimal; priceListId: string | null }[];
  /** The customer's rep (from the records), who is credited with the sale. */
  primarySalesRep: OrderSalesRep | null;
}

/**
 * The one pricing rule for lines a Customer or SalesRep token sends (orders and invoices, DESIGN
 * "Security decisions"): the customer record (404 unless the caller may see it), its price tier,
 * each line priced by the one resolver (a price list in force for the customer, else its tier with
 * quantity breaks; the catalog's product name replaces the client's) and the customer's rep. A bad line is a 400 naming `items[i].<field>`.
 */
export async function catalogPricing(em: EntityManager, orgId: string, auth: Principal, customerNumber: string, lines: readonly { sku: string; quantity: number }[]): Promise<CatalogPricing> {
  const customer = await findVisibleCustomer(em, orgId, auth, customerNumber, ['addresses']);
  const tier = await findPriceTier(em, orgId, customer.pricing);
  if (!tier) throw AppError.field('priceTier', `The customer's price tier "${customer.pricing}" does not exist.`);
  // Lines outside the customer's catalog are refused alike whether the SKU exists or not (docs/catalogs.md).
  const errors: FieldErrors = await catalogLineErrors(em, orgId, customer.id, lines, (i) => `items[${i}].sku`);
  const outside = new Set(Object.keys(errors).map((k) => /^items\[(\d+)\]/.exec(k)?.[1]));
  let priced: Awaited<ReturnType<typeof priceLines>> = [];
  try {
    // The one resolver, every line in one statement (src/services/pricing/resolve.ts); a bad line is a 400 naming items[i].<field>.
    priced = await priceLines(em, orgId, { customerId: customer.id, tier: tier.name, currency: tier.currencyCode }, lines);
  } catch (e) {
    if (!(e instanceof AppError) || !e.errors) throw e;
    for (const [field, messages] of Object.entries(e.errors)) if (!outside.has(/^items\[(\d+)\]/.exec(field)?.[1])) errors[field] = messages;
  }
  if (Object.keys(errors).length) throw AppError.validation(errors);
  const items: CatalogPricing['items'] = priced.map((p, i) => ({
    sku: p.product.sku,
    productName: p.product.name,
    quantity: lines[i].quantity,
    price: p.unitPrice,
    priceListId: p.priceListId,
  }));
  return { customer, tier, items, primarySalesRep: await repSnapshot(em, orgId, customer.repNumber) };
}

/**
 * A Customer's or SalesRep's order: lines priced from the catalog in the customer's tier, no tax
 * or shipping charge, status Pending, customer and reps from the records, the caller as creator.
 */
async function draftFromCatalog(em: EntityManager, orgId: string, auth: Principal, input: OrderInput): Promise<OrderDraft> {
  const { customer, tier, items, primarySalesRep } = await catalogPricing(em, orgId, auth, input.customer.customerNumber, input.items);
  return {
    orderStatus: 'Pending',
    orderType: input.orderType,
    poNumber: input.poNumber ?? null,
    priceTier: tier.name,
    currencyCode: tier.currencyCode,
    terms: customer.terms ?? null,
    channel: input.channel ?? null,
    externalId: input.externalId ?? null,
    notes: input.notes ?? null,
    originationCartId: null,
    customer: customerSnapshot(customer, input.customer.shippingAddress ?? null),
    customerId: customer.id,
    primarySalesRep,
    takenBySalesRep: auth.role === 'SalesRep' ? await repSnapshot(em, orgId, auth.repNumber) : null,
    repNumber: customer.repNumber ?? null,
    shippingDetails: input.shippingDetails ? { method: input.shippingDetails.method ?? null, total: 0 } : null,
    tax: 0,
    items,
    createdByUserId: auth.userId,
    createdByUserType: auth.role,
  };
}

/** An order placed through POST /api/orders, and the approval request it waits for (null when it was admitted at once). */
export interface PlacedOrder {
  order: Order;
  approvalId: string | null;
}

/**
 * POST /api/orders: Admins place orders as given; customers (for themselves) and reps (for their
 * customers) at catalog prices. A customer user's order goes through the one admission of orders
 * (src/services/orders/admission.ts): above the buyer's spending limits it is stored
 * `PendingApproval` with its approval request in the same transaction (neither fulfilled nor
 * invoiced until approved; a reject or expiry cancels it).
 */
export async function placeOrder(deps: AdmissionDeps, orgId: string, auth: Principal, input: OrderInput): Promise<PlacedOrder> {
  const { em } = deps;
  if (auth.isSuper || auth.role === 'Admin') return { order: await createOrder(em, orgId, await draftAsGiven(em, orgId, input)), approvalId: null };
  if (!(await mayActFor(em, orgId, auth, input.customer.customerNumber)))
    throw AppError.forbidden(auth.role === 'Customer' ? 'A customer can only place orders for itself.' : 'This customer is not assigned to your rep number.');
  // DESIGN "Security decisions": an externalId held by an order the caller may not see is a 404, not a 409.
  if (input.externalId && (await em.count(Order, { organization: orgId, externalId: input.externalId, customerNumber: { $nin: (await visibleCustomerNumbers(em, orgId, auth)) ?? [] } })))
    throw new AppError('not_found', 'The externalId names an order that is not visible to you; nothing was changed.', { externalId: ['No order with this externalId is visible to you.'] });
  const draft = await draftFromCatalog(em, orgId, auth, input);
  const values = orderValues(draft, null);
  const total = new Decimal(values.scalars.total);
  let held: { row: ApprovalRequest; subject: AdmissionSubject } | null = null;
  // The admission runs in the order's transaction under the buyer row's lock: concurrent orders of one buyer are admitted one at a time, each counting the ones before.
  const order = await createOrder(em, orgId, draft, {
    withinTransaction: async (tem, o) => {
      const reason = await orderNeedsApproval(tem, orgId, auth, draft.customerId, total);
      if (!reason) return;
      o.orderStatus = 'PendingApproval';
      const subject: AdmissionSubject = {
        subject: 'Order',
        customerId: draft.customerId,
        customerNumber: draft.customer.customerNumber,
        currencyCode: draft.currencyCode,
        total,
        lines: values.items.map((l) => ({ sku: l.sku, name: l.productName, quantity: l.quantity, unitPrice: l.price, lineTotal: l.subTotal })),
        orderId: o.id,
      };
      await tem.flush();
      held = { row: await insertApprovalRequest(tem, deps.config, orgId, auth, subject, reason), subject };
      held.row.orderNumber = o.orderNumber;
    },
  });
  const h = held as { row: ApprovalRequest; subject: AdmissionSubject } | null;
  if (!h) return { order, approvalId: null };
  await startApproval(deps, orgId, h.row, h.subject);
  return { order, approvalId: h.row.id };
}
