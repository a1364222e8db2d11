import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** A place stock is kept (migration 20261129140000; docs/fulfillment.md "Stock"): one default per organization, served by priority. */
export const StockLocation = defineEntity({
  name: 'StockLocation',
  properties: {
    organizationId: p.uuid().primary(),
    id: p.uuid().primary(),
    name: p.string().length(200),
    code: p.string().length(50),
    priority: p.integer().default(100),
    isDefault: p.boolean().default(false),
    active: p.boolean().default(true),
    address: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});
export type StockLocation = InferEntity<typeof StockLocation>;

/** On hand and reserved of one product at one location; written only with its movement (src/services/stock/ledger.ts). */
export const StockLevel = defineEntity({
  name: 'StockLevel',
  properties: {
    organizationId: p.uuid().primary(),
    productId: p.uuid().primary(),
    locationId: p.uuid().primary(),
    onHand: p.integer().default(0),
    reserved: p.integer().default(0),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});
export type StockLevel = InferEntity<typeof StockLevel>;

/** One change of a level: receipt, adjustment (with a reason), reservation, release, shipment. */
export const StockMovement = defineEntity({
  name: 'StockMovement',
  properties: {
    organizationId: p.uuid().primary(),
    id: p.uuid().primary(),
    productId: p.uuid(),
    locationId: p.uuid(),
    kind: p.string().length(20),
    quantity: p.integer(),
    reservedQuantity: p.integer().default(0),
    reason: p.string().length(500).nullable(),
    orderId: p.uuid().nullable(),
    reference: p.string().length(200).nullable(),
    createdBy: p.string().length(100).nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type StockMovement = InferEntity<typeof StockMovement>;
