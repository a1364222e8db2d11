import { cannotShip, completesNow, managedStatusWrite, planShipment, statusAfterShipment } from '../../src/domain/fulfillment/rules';
import { renderEmail } from '../../src/domain/email/templates';

const order = [
  { sku: 'A', quantity: 3, shippedQuantity: 0 },
  { sku: 'B', quantity: 1, shippedQuantity: 0 },
  { sku: 'A', quantity: 2, shippedQuantity: 1 },
];

describe('planShipment', () => {
  test('when a shipment carries part of a SKU on two lines, then the lines fill in order', () => {
    expect(planShipment(order, [{ sku: 'A', quantity: 4 }])).toEqual({ ok: true, shipped: [3, 0, 2] });
  });
  test('when a line asks more than remains, names an unknown SKU or repeats one, then each is named', () => {
    const r = planShipment(order, [{ sku: 'A', quantity: 5 }, { sku: 'ZZ', quantity: 1 }, { sku: 'B', quantity: 1 }, { sku: 'B', quantity: 1 }]);
    expect(r).toEqual({
      ok: false,
      errors: { 'lines[0].quantity': ['At most 4 of A remain to ship.'], 'lines[1].sku': ['ZZ is not a line of the order.'], 'lines[3].sku': ['B appears more than once.'] },
    });
  });
});

describe('order status', () => {
  test('when some units remain, then Processing; when none, then Shipped', () => {
    expect(statusAfterShipment([{ sku: 'A', quantity: 2, shippedQuantity: 1 }])).toBe('Processing');
    expect(statusAfterShipment([{ sku: 'A', quantity: 2, shippedQuantity: 2 }])).toBe('Shipped');
  });
  test('when the order is Cancelled, PendingApproval or fully shipped, then it cannot ship', () => {
    expect(cannotShip('Pending')).toBeNull();
    expect(cannotShip('Processing')).toBeNull();
    for (const s of ['Cancelled', 'PendingApproval', 'Shipped', 'Complete']) expect(cannotShip(s)).toEqual(expect.any(String));
  });
  test('when a managed order gets a direct write, then only its own status passes and the refusal names the allowed transitions', () => {
    expect(managedStatusWrite('Processing', 'processing')).toBeNull();
    expect(managedStatusWrite('Processing', 'Shipped')).toMatch(/from Processing to Shipped is not allowed\. Allowed transitions: Pending -> Processing/);
  });
  test('when every delivery is confirmed or the timer fired, then a Shipped order completes, never another', () => {
    expect(completesNow('Shipped', [{ delivered: true }, { delivered: false }], false)).toBe(false);
    expect(completesNow('Shipped', [{ delivered: true }, { delivered: true }], false)).toBe(true);
    expect(completesNow('Shipped', [{ delivered: false }], true)).toBe(true);
    expect(completesNow('Processing', [{ delivered: true }], true)).toBe(false);
    expect(completesNow('Complete', [{ delivered: true }], true)).toBe(false);
  });
});

describe('shipment e-mail', () => {
  test('when the tracking URL is not http(s), then no link is rendered; markup in the carrier stays text', () => {
    const ok = renderEmail('shipment-notification', { orderNumber: 'SO-1', shipmentNumber: 'SH-1', units: 2, carrier: '<b>UPS</b>', trackingNumber: '1Z', trackingUrl: 'https://t.example/1Z' });
    expect(ok.subject).toBe('Order SO-1: shipment SH-1 is on its way');
    expect(ok.html).toContain('href="https://t.example/1Z"');
    expect(ok.html).not.toContain('<b>UPS</b>');
    const bad = renderEmail('shipment-notification', { orderNumber: 'SO-1', shipmentNumber: 'SH-1', units: 2, trackingUrl: 'javascript:alert(1)' });
    expect(bad.html).not.toContain('javascript:');
  });
});
