/** A bulk or imported order line may leave its price to the resolver; a single POST /api/orders line may not (docs/imports.md "Order lines without a price"). */
import { bulkOrderSchema, orderSchema } from '../../src/domain/orders/schemas';

const order = (items: Record<string, unknown>[]) => ({
  customer: { customerNumber: 'C-1', companyName: 'Acme' },
  orderType: 'Direct',
  poNumber: 'PO-1',
  priceTier: 'Retail',
  currencyCode: 'USD',
  primarySalesRep: { repNumber: 'R1' },
  items,
  user: { userId: 'u' },
});

describe('order line prices', () => {
  test('a bulk line without a price (or with null) is valid and keeps no price; a negative one is refused', () => {
    const v = bulkOrderSchema.validateSync(order([{ sku: 'A', productName: 'a', quantity: 2 }, { sku: 'B', productName: 'b', quantity: 1, price: null }, { sku: 'C', productName: 'c', quantity: 1, price: 3 }]), { stripUnknown: true });
    expect(v.items.map((i) => i.price ?? null)).toEqual([null, null, 3]);
    expect(() => bulkOrderSchema.validateSync(order([{ sku: 'A', productName: 'a', quantity: 2, price: -1 }]))).toThrow('items[0].price must be at least 0.');
  });

  test('a POST /api/orders line still needs its price', () => {
    expect(() => orderSchema.validateSync(order([{ sku: 'A', productName: 'a', quantity: 2 }]))).toThrow(/items\[0\]\.price/);
  });
});
