import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/**
 * A shipment of an order (docs/fulfillment.md): numbered SH-000001 per organization
 * (src/services/numbering.ts SHIPMENT_NUMBERS), Shipped until its delivery is confirmed.
 * Written and read by src/services/fulfillment with SQL; FK (organization_id, order_id) in the migration.
 */
export const Shipment = defineEntity({
  name: 'Shipment',
  properties: {
    organizationId: p.uuid().primary(),
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    orderId: p.uuid(),
    shipmentNumber: p.string().length(50),
    status: p.string().length(20).default('Shipped'),
    locationId: p.uuid().nullable(),
    carrier: p.string().length(100).nullable(),
    trackingNumber: p.string().length(200).nullable(),
    trackingUrl: p.string().length(2000).nullable(),
    shippedAt: p.datetime(),
    deliveredAt: p.datetime().nullable(),
    createdByUserId: p.string().length(100).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ name: 'shipment_org_number_unique', properties: ['organizationId', 'shipmentNumber'] }],
  indexes: [{ name: 'shipment_org_order_index', properties: ['organizationId', 'orderId', 'shippedAt'] }],
});
export type Shipment = InferEntity<typeof Shipment>;

/** One line of a shipment: a SKU of the order and how many units left with it. */
export const ShipmentLine = defineEntity({
  name: 'ShipmentLine',
  properties: {
    organizationId: p.uuid().primary(),
    shipmentId: p.uuid().primary(),
    position: p.integer().primary(),
    sku: p.string().length(100),
    quantity: p.integer(),
  },
});
export type ShipmentLine = InferEntity<typeof ShipmentLine>;

/** Last shipment number issued per organization (src/services/numbering.ts). */
export const ShipmentNumberCounter = defineEntity({
  name: 'ShipmentNumberCounter',
  properties: {
    organizationId: p.uuid().primary(),
    lastValue: p.bigint().default(0),
  },
});
export type ShipmentNumberCounter = InferEntity<typeof ShipmentNumberCounter>;
