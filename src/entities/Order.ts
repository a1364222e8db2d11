import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';
import type { OrderStatus } from '../domain/orders/status.js';

/** The address shape of orders and invoices (customer billing and shipping). */
export interface PostalAddress {
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  stateProvince?: string | null;
  zipPostalCode?: string | null;
  country?: string | null;
}

export interface OrderCustomer {
  customerNumber: string;
  companyName: string;
  companyEmail?: string | null;
  companyPhone?: string | null;
  companyFax?: string | null;
  billingAddress?: PostalAddress | null;
  shippingAddress?: PostalAddress | null;
}

export interface OrderSalesRep {
  repNumber?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  fullName?: string | null;
  email?: string | null;
  phoneNumber?: string | null;
}

/**
 * An order of an organization. `orderNumber` is unique per organization (generated from
 * `order_number_counter` by src/services/numbering.ts, or supplied on import); `externalId` and `originationCartId` are
 * unique per organization when set (the latter makes checkout's createOrder exactly-once).
 */
export const Order = defineEntity({
  name: 'Order',
  tableName: 'sales_order',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    orderNumber: p.string().length(50),
    orderDate: p.datetime(),
    orderStatus: p.string().length(20).$type<OrderStatus>().default('Pending'),
    orderType: p.string().length(50),
    poNumber: p.string().length(100).nullable(),
    priceTier: p.string().length(100).nullable(),
    currencyCode: p.string().length(3),
    terms: p.string().length(50).nullable(),
    channel: p.string().length(50).nullable(),
    externalId: p.string().length(200).nullable(),
    notes: p.text().nullable(),
    originationCartId: p.uuid().nullable(),
    customerNumber: p.string(),
    /** The customer record this row belongs to (DESIGN "Security decisions"); null once that customer is deleted. FK (organization_id, customer_id) in the migration. */
    customerId: p.uuid().nullable(),
    /** True once the customer record this row belonged to was deleted: it is never linked to a customer that takes the number later. */
    customerDeleted: p.boolean().default(false),
    customer: p.json<OrderCustomer>(),
    primarySalesRep: p.json<OrderSalesRep>().nullable(),
    takenBySalesRep: p.json<OrderSalesRep>().nullable(),
    /** Rep number of the customer when the order was taken (sales-rep visibility). */
    repNumber: p.string().nullable(),
    shippingDetails: p.json<{ method: string | null; total: number }>().nullable(),
    subtotal: p.decimal().precision(19).scale(4),
    discountAmount: p.decimal().precision(19).scale(4).default('0'),
    tax: p.decimal().precision(19).scale(4).default('0'),
    shippingTotal: p.decimal().precision(19).scale(4).default('0'),
    total: p.decimal().precision(19).scale(4),
    active: p.boolean().default(true),
    paymentChargeId: p.string().length(100).nullable(),
    /** The accepted quote this order was created from (docs/quotes.md); unique per organization. */
    quoteId: p.uuid().nullable(),
    /** 'OnAccount' for an order bought against the customer's credit limit (no charge); null otherwise. */
    paymentMethod: p.string().length(20).nullable(),
    /** True once the order's status follows its fulfillment (a shipment; docs/fulfillment.md): a direct orderStatus write is refused. */
    fulfillmentManaged: p.boolean().default(false),
    /** Set at placement for an on-account order of an organization with `invoiceOn: shipment`: each shipment issues an invoice, the order none (docs/fulfillment.md "Invoicing"). */
    invoicePerShipment: p.boolean().default(false),
    createdByUserId: p.string().length(100).nullable(),
    createdByUserType: p.string().length(50).nullable(),
    items: () => p.oneToMany(OrderItem).mappedBy('order').orphanRemoval(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  uniques: [
    { name: 'order_org_number_unique', properties: ['organization', 'orderNumber'] },
    {
      name: 'order_org_external_id_unique',
      expression: 'create unique index "order_org_external_id_unique" on "sales_order" ("organization_id", "external_id") where "external_id" is not null',
    },
    {
      name: 'order_org_cart_unique',
      expression: 'create unique index "order_org_cart_unique" on "sales_order" ("organization_id", "origination_cart_id") where "origination_cart_id" is not null',
    },
  ],
  indexes: [
    { name: 'order_org_customer_index', properties: ['organization', 'customerNumber'] },
    { name: 'order_org_customer_id_index', properties: ['organization', 'customerId'] },
    { name: 'order_org_date_index', properties: ['organization', 'orderDate'] },
  ],
});
export type Order = InferEntity<typeof Order>;

export const OrderItem = defineEntity({
  name: 'OrderItem',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    /** The order's organization (DESIGN "Scale-out"; FK (organization_id, order_id) in the migration). */
    organization: () => p.manyToOne(Organization).deleteRule('cascade').onCreate((x: { order: { organization: unknown } }) => x.order.organization as never),
    order: () => p.manyToOne(Order).deleteRule('cascade').index('order_item_order_id_index'),
    position: p.integer().default(0),
    sku: p.string().length(100),
    productName: p.string().length(300),
    quantity: p.integer(),
    price: p.decimal().precision(19).scale(4),
    subTotal: p.decimal().precision(19).scale(4),
    /** The price list that priced the line when the order was placed (null: the tier, or a price given as is; docs/pricing.md). */
    priceListId: p.uuid().nullable(),
    /** Units of a tracked product the stock could not serve when the order was placed (docs/fulfillment.md "Reservations"). */
    backorderedQuantity: p.integer().default(0),
    /** Units of this line that shipments carried so far (docs/fulfillment.md). */
    shippedQuantity: p.integer().default(0),
    /** Units cancelled (docs/returns.md "Cancellation"); never more than quantity less shipped units. */
    cancelledQuantity: p.integer().default(0),
  },
});
export type OrderItem = InferEntity<typeof OrderItem>;

/** Last order number issued per organization (src/services/numbering.ts: atomic upsert, no duplicates). */
export const OrderNumberCounter = defineEntity({
  name: 'OrderNumberCounter',
  properties: {
    organizationId: p.uuid().primary(),
    lastValue: p.bigint().default(0),
  },
});
export type OrderNumberCounter = InferEntity<typeof OrderNumberCounter>;
