/**
 * The ledger identity of docs/fulfillment.md "Stock", checked against the database after every
 * stock scenario: for each level of the organization, on hand = receipts + adjustments -
 * shipments and reserved = reservations - releases - reservations consumed by shipments; every
 * level within 0 <= reserved <= on hand; a tracked product's quantityOnHand = the sum of its
 * levels. Answers the levels with their sums (for further assertions). Also the order the stock
 * tests place (placeDirectOrder).
 */
import { call, dbQuery, uniq } from './helpers';

export interface LedgerRow {
  product_id: string;
  location_id: string;
  on_hand: number;
  reserved: number;
  ledger_on_hand: number;
  ledger_reserved: number;
}

export async function expectLedgerIdentity(organizationId: string, env: 'production' | 'sandbox' = 'production'): Promise<LedgerRow[]> {
  const rows = await dbQuery<LedgerRow>(
    `select s.product_id, s.location_id, s.on_hand, s.reserved,
            coalesce(sum(case m.kind when 'receipt' then m.quantity when 'adjustment' then m.quantity when 'shipment' then -m.quantity else 0 end), 0)::int as ledger_on_hand,
            coalesce(sum(case m.kind when 'reservation' then m.quantity when 'release' then -m.quantity when 'shipment' then -m.reserved_quantity else 0 end), 0)::int as ledger_reserved
       from stock_level s left join stock_movement m on m.organization_id = s.organization_id and m.product_id = s.product_id and m.location_id = s.location_id
      where s.organization_id = $1
      group by s.product_id, s.location_id, s.on_hand, s.reserved`,
    [organizationId],
    env,
  );
  for (const r of rows) {
    expect({ level: r.product_id + '/' + r.location_id, onHand: r.on_hand, reserved: r.reserved }).toEqual({
      level: r.product_id + '/' + r.location_id,
      onHand: r.ledger_on_hand,
      reserved: r.ledger_reserved,
    });
    expect(r.reserved).toBeGreaterThanOrEqual(0);
    expect(r.reserved).toBeLessThanOrEqual(r.on_hand);
  }
  const orphans = await dbQuery(
    `select m.id from stock_movement m left join stock_level s on s.organization_id = m.organization_id and s.product_id = m.product_id and s.location_id = m.location_id
      where m.organization_id = $1 and s.product_id is null`,
    [organizationId],
    env,
  );
  expect(orphans).toEqual([]);
  const products = await dbQuery<{ sku: string; quantity_on_hand: number; levels: number }>(
    `select p.sku, p.quantity_on_hand, coalesce((select sum(on_hand) from stock_level s where s.organization_id = p.organization_id and s.product_id = p.id), 0)::int as levels
       from product p where p.organization_id = $1 and p.track_inventory`,
    [organizationId],
    env,
  );
  for (const p of products) expect({ sku: p.sku, quantityOnHand: p.quantity_on_hand }).toEqual({ sku: p.sku, quantityOnHand: p.levels });
  return rows;
}

/** An order of `quantity` × sku placed now by an admin (POST /api/orders, Direct, price 10); its buyer's e-mail is unique, its customer `opts.customerNumber` or a new one. Answers the order and the body it was placed with. */
export async function placeDirectOrder(
  as: { base: string; token: string },
  sku: string,
  quantity: number,
  opts: { customerNumber?: string } = {},
): Promise<{ id: string; orderNumber: string; email: string; body: Record<string, unknown> }> {
  const email = `${uniq('buyer')}@backorders.example`;
  const body = {
    customer: { customerNumber: opts.customerNumber ?? uniq('C-BO'), companyName: 'Waiting Co', companyEmail: email },
    orderType: 'Direct',
    poNumber: uniq('PO'),
    priceTier: 'Retail',
    currencyCode: 'USD',
    primarySalesRep: { repNumber: 'R1', firstName: 'Sam', lastName: 'Rep' },
    items: [{ sku, productName: sku, quantity, price: 10 }],
    user: { userId: 'u-1', userType: 'Admin' },
  };
  const res = await call('POST', '/api/orders', { ...as, body });
  expect(res.status).toBe(201);
  return { id: res.body.data.id, orderNumber: res.body.data.orderNumber, email, body };
}
