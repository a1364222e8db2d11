/** Response schemas of shipments (docs/fulfillment.md). */
import { arr, component, dateTime, dateTimeN, doc, int, obj, oneOf, str, strN, uuid, uuidN } from '../contract.js';
import { genericPage } from '../resources.js';

export const SHIPMENT_STATUSES = ['Shipped', 'Delivered'] as const;

export const shipment = component(
  'Shipment',
  obj({
    id: uuid(),
    orderId: uuid(),
    orderNumber: str(),
    shipmentNumber: doc(str(), 'SH-000001, gapless per organization', 'SH-000001'),
    status: oneOf(SHIPMENT_STATUSES),
    locationId: uuidN(),
    carrier: strN(),
    trackingNumber: strN(),
    trackingUrl: strN(),
    shippedAt: dateTime(),
    deliveredAt: dateTimeN(),
    lines: arr(obj({ sku: str(), quantity: int() })),
    orderStatus: doc(str(), "The order's status after this shipment (Processing, Shipped or Complete)"),
  }),
);

export const shipmentPage = genericPage('ShipmentPage', shipment);
