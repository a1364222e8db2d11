/**
 * Orders once they exist: who may see which order, the reads (one order, the list, the view) and
 * the status and shipping updates. Creating one: ./create.ts.
 */
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { checkStatusTransition, parseOrderStatus } from '../../domain/orders/status.js';
import { managedStatusWrite } from '../../domain/fulfillment/rules.js';
import { formatMoney, moneyNumber, roundMoney, type Amount } from '../../domain/money.js';
import { Order, type OrderItem } from '../../entities/index.js';
import type { PostalAddress } from '../../entities/Order.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { dataEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { byVisibleCustomer, customerNumberFiltersById, readVisibleRow, visibleCustomerSql } from '../customers/visibility.js';
import { UUID_RE } from '../../domain/ids.js';
import type { Out } from '../../domain/contract.js';
import type { order } from '../../domain/resources.js';
import { orderConflict } from './create.js';
import { boundSql } from '../../db/orm-sql.js';
import { releaseOrderStock } from '../stock/ledger.js';

async function flushOrder(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (e) {
    throw orderConflict(e);
  }
}

/** Orders the principal may see. */
export async function orderScope(em: EntityManager, orgId: string, auth: Principal): Promise<FilterQuery<Order>> {
  return byVisibleCustomer(em, orgId, auth);
}

export async function findOrder(em: EntityManager, orgId: string, auth: Principal, orderId: string): Promise<Order> {
  if (!UUID_RE.test(orderId)) throw AppError.notFound('Order');
  const o = await em.findOne(Order, { $and: [{ organization: orgId, id: orderId }, await orderScope(em, orgId, auth)] }, { populate: ['items'] });
  if (!o) throw AppError.notFound('Order');
  return o;
}

/**
 * GET /api/orders/:orderId in one statement with bound parameters (issue 18): the order, its lines
 * and the visibility rule of byVisibleCustomer (Admin every order; a rep the orders of customers of
 * its rep number; a customer its own), without hydrating entities. 404 when absent or not visible.
 */
const ORDER_VIEW_SQL = `select o.id, o.organization_id as "organizationId", o.order_number as "orderNumber", o.order_date as "orderDate",
    o.order_status as "orderStatus", o.order_type as "orderType", o.po_number as "poNumber", o.price_tier as "priceTier",
    o.currency_code as "currencyCode", o.terms, o.channel, o.external_id as "externalId", o.notes,
    o.origination_cart_id as "originationCartId", o.quote_id as "quoteId", o.active, o.customer,
    o.primary_sales_rep as "primarySalesRep", o.taken_by_sales_rep as "takenBySalesRep", o.shipping_details as "shippingDetails",
    o.subtotal::text as subtotal, o.discount_amount::text as "discountAmount", o.tax::text as tax,
    o.shipping_total::text as "shippingTotal", o.total::text as total, o.created_at as "createdAt", o.updated_at as "updatedAt",
    coalesce((select json_agg(json_build_object('position', i.position, 'sku', i.sku, 'productName', i.product_name, 'quantity', i.quantity,
                                                'price', i.price::text, 'subTotal', i.sub_total::text, 'priceListId', i.price_list_id,
                                                'backorderedQuantity', i.backordered_quantity, 'shippedQuantity', i.shipped_quantity,
                                                'cancelledQuantity', i.cancelled_quantity))
                from order_item i where i.organization_id = o.organization_id and i.order_id = o.id), '[]') as items
  from sales_order o
 where o.organization_id = $1 and o.id = $2
   and ${visibleCustomerSql('o.customer_id', '$1', '$3', '$4')}`;

export async function readOrderView(em: EntityManager, orgId: string, auth: Principal, orderId: string): Promise<Out<typeof order>> {
  return orderRowView(await readVisibleRow<OrderRow>(em, ORDER_VIEW_SQL, orgId, auth, orderId, 'Order'));
}

export const orderListSpec: ListSpec = {
  filters: {
    orderNumber: { prop: 'orderNumber', type: 'string' },
    customerNumber: { prop: 'customerNumber', type: 'string' },
    orderStatus: { prop: 'orderStatus', type: 'string' },
    poNumber: { prop: 'poNumber', type: 'string' },
    orderDate: { prop: 'orderDate', type: 'date' },
  },
  sorts: { OrderDate: 'orderDate', OrderNumber: 'orderNumber', CustomerNumber: 'customerNumber', OrderStatus: 'orderStatus', Total: 'total' },
  defaultSort: 'OrderDate',
  comparisons: true,
};

export async function listOrders(em: EntityManager, orgId: string, auth: Principal, query: Record<string, unknown>) {
  const q = parseList(query, orderListSpec);
  const [rows, total] = await em.findAndCount(
    Order,
    { $and: [{ organization: orgId, active: true }, await orderScope(em, orgId, auth), (await customerNumberFiltersById(em, orgId, q.where, { unlinked: true })) as FilterQuery<Order>] },
    { populate: ['items'], orderBy: [q.orderBy, { orderNumber: 'asc' }], limit: q.pageSize, offset: q.offset },
  );
  return dataEnvelope(rows.map(orderView), total, q);
}

export interface OrderUpdate {
  orderStatus?: string | null;
  poNumber?: string | null;
  notes?: string | null;
  terms?: string | null;
  channel?: string | null;
  orderType?: string;
}

export async function updateOrder(em: EntityManager, orgId: string, auth: Principal, orderId: string, body: OrderUpdate): Promise<Order> {
  const o = await findOrder(em, orgId, auth, orderId);
  const before = o.orderStatus;
  if (body.orderStatus) {
    // An order with shipments: its status follows its fulfillment (docs/fulfillment.md "Order status").
    const why = o.fulfillmentManaged ? managedStatusWrite(o.orderStatus, body.orderStatus) : checkStatusTransition(o.orderStatus, body.orderStatus);
    if (why) throw AppError.field('orderStatus', why);
    o.orderStatus = parseOrderStatus(body.orderStatus) ?? o.orderStatus;
  }
  const cancelled = o.orderStatus === 'Cancelled' && before !== 'Cancelled';
  if (body.poNumber !== undefined) o.poNumber = body.poNumber;
  if (body.notes !== undefined) o.notes = body.notes;
  if (body.terms !== undefined) o.terms = body.terms;
  if (body.channel !== undefined) o.channel = body.channel;
  if (body.orderType !== undefined) o.orderType = body.orderType;
  o.updatedAt = new Date();
  // A cancelled order gives back what it held reserved, in the transaction that cancels it (exactly once: docs/fulfillment.md "Reservations").
  if (cancelled)
    await em.transactional(async (tem) => {
      await releaseOrderStock(boundSql(tem), orgId, o.id);
      await flushOrder(tem);
    });
  else await flushOrder(em);
  return o;
}

export interface ShippingUpdate {
  method?: string | null;
  total?: number;
  shippingAddress?: PostalAddress | null;
}

/** Shipping method, charge and address of a Pending or Processing order; the total is recomputed. */
export async function updateShipping(em: EntityManager, orgId: string, auth: Principal, orderId: string, body: ShippingUpdate): Promise<Order> {
  const o = await findOrder(em, orgId, auth, orderId);
  if (!['Pending', 'Processing'].includes(o.orderStatus)) throw AppError.badRequest(`Shipping cannot change once the order is ${o.orderStatus}.`);
  const shipping = body.total !== undefined ? roundMoney(body.total, o.currencyCode) : new Decimal(o.shippingTotal);
  o.shippingDetails = { method: body.method !== undefined ? (body.method ?? null) : (o.shippingDetails?.method ?? null), total: Number(shipping) };
  o.shippingTotal = shipping.toString();
  o.total = new Decimal(o.subtotal).minus(o.discountAmount).plus(o.tax).plus(shipping).toString();
  if (body.shippingAddress !== undefined) o.customer = { ...o.customer, shippingAddress: body.shippingAddress };
  o.updatedAt = new Date();
  await flushOrder(em);
  return o;
}

const money = (v: Amount, cur: string) => ({ n: moneyNumber(v, cur), f: formatMoney(v, cur) });

/** An order as the view needs it: the entity's stored fields with its lines (from the ORM or one SQL row). */
export type OrderRow = Pick<
  Order,
  | 'id' | 'orderNumber' | 'orderDate' | 'orderStatus' | 'orderType' | 'poNumber' | 'priceTier' | 'currencyCode' | 'terms' | 'channel'
  | 'externalId' | 'notes' | 'originationCartId' | 'quoteId' | 'active' | 'customer' | 'primarySalesRep' | 'takenBySalesRep'
  | 'shippingDetails' | 'subtotal' | 'discountAmount' | 'tax' | 'shippingTotal' | 'total' | 'createdAt' | 'updatedAt'
> & { organizationId: string; items: readonly (Pick<OrderItem, 'position' | 'sku' | 'productName' | 'quantity' | 'price' | 'subTotal'> & { backorderedQuantity?: number; shippedQuantity?: number | null; cancelledQuantity?: number | null; priceListId?: string | null })[] };

export function orderView(o: Order): Out<typeof order> {
  return orderRowView({ ...o, organizationId: o.organization.id, items: o.items.getItems() });
}

export function orderRowView(o: OrderRow): Out<typeof order> {
  const cur = o.currencyCode;
  const items = [...o.items].sort((a, b) => a.position - b.position);
  const m = (v: Amount) => money(v, cur);
  return {
    id: o.id,
    organizationId: o.organizationId,
    orderNumber: o.orderNumber,
    orderDate: o.orderDate.toISOString(),
    orderStatus: o.orderStatus,
    orderType: o.orderType,
    poNumber: o.poNumber ?? null,
    priceTier: o.priceTier ?? null,
    currencyCode: cur,
    terms: o.terms ?? null,
    channel: o.channel ?? null,
    externalId: o.externalId ?? null,
    notes: o.notes ?? null,
    originationCartId: o.originationCartId ?? null,
    quoteId: o.quoteId ?? null,
    active: o.active,
    customer: o.customer,
    primarySalesRep: o.primarySalesRep ?? null,
    takenBySalesRep: o.takenBySalesRep ?? null,
    shippingDetails: o.shippingDetails ?? null,
    items: items.map((i) => ({
      sku: i.sku,
      productName: i.productName,
      quantity: i.quantity,
      price: m(i.price).n,
      priceFormatted: m(i.price).f,
      subTotal: m(i.subTotal).n,
      subTotalFormatted: m(i.subTotal).f,
      shippedQuantity: i.shippedQuantity ?? 0,
      ...(i.priceListId ? { priceListId: i.priceListId } : {}),
      // Only on a line the stock could not serve when the order was placed (docs/fulfillment.md "Reservations").
      ...(i.backorderedQuantity ? { backorderedQuantity: i.backorderedQuantity } : {}),
      // Only on a line with cancelled units (docs/returns.md "Cancellation"): a cancel changes the order's read, so its ETag.
      ...(i.cancelledQuantity ? { cancelledQuantity: i.cancelledQuantity } : {}),
    })),
    subtotal: m(o.subtotal).n,
    subtotalFormatted: m(o.subtotal).f,
    discountAmount: m(o.discountAmount).n,
    discountAmountFormatted: m(o.discountAmount).f,
    tax: m(o.tax).n,
    taxFormatted: m(o.tax).f,
    shippingTotal: m(o.shippingTotal).n,
    shippingTotalFormatted: m(o.shippingTotal).f,
    total: m(o.total).n,
    totalFormatted: m(o.total).f,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}
