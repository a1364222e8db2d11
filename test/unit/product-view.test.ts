import { priceContext, productView, type ProductFields } from '../../src/domain/products/view';

const tiers = [
  { name: 'Retail', currencyCode: 'USD' },
  { name: 'Trade', currencyCode: 'EUR' },
];
const prices = [
  { tier: 'Trade', price: '8.5', atQuantity: 1 },
  { tier: 'Retail', price: '9.50', atQuantity: 10 },
  { tier: 'Retail', price: '10', atQuantity: 1 },
];
const product: ProductFields = {
  id: 'p1',
  organizationId: 'o1',
  sku: 'S-1',
  name: 'Hammer',
  description: null,
  categoryName: 'Tools',
  quantityOnHand: 3,
  minimumOrderQuantity: 1,
  quantityIncrement: 1,
  weight: '1.2500',
  weightUnit: 'lb',
  dimensions: null,
  dimensionsUnit: null,
  upc: null,
  active: true,
  productAttributes: null,
  externalId: null,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-02T00:00:00Z'),
};
const caller = (role: string, priceTier: string | null = null, currencyCode: string | null = null) => ({ role, isSuper: false, priceTier, currencyCode });

describe('product view: who sees which prices', () => {
  test('when an admin without a tier claim reads, then every tier is listed and price uses the first tier by name', () => {
    const v = productView(product, prices, priceContext(tiers, caller('Admin')));
    expect(v.price).toBe(10);
    expect(v.currencyCode).toBe('USD');
    expect(v.prices).toEqual([
      { tier: 'Retail', price: 10, priceFormatted: '$10.00', atQuantity: 1 },
      { tier: 'Retail', price: 9.5, priceFormatted: '$9.50', atQuantity: 10 },
      { tier: 'Trade', price: 8.5, priceFormatted: '€8.50', atQuantity: 1 },
    ]);
  });

  test('when a customer of a tier reads (claim in another case), then only its tier shows, in the tier currency', () => {
    const ctx = priceContext(tiers, caller('Customer', 'trade'));
    expect(ctx).toMatchObject({ customer: true, tier: 'Trade', currency: 'EUR', activeOnly: true });
    const v = productView(product, prices, ctx);
    expect(v.price).toBe(8.5);
    expect(v.prices).toEqual([{ tier: 'Trade', price: 8.5, priceFormatted: '€8.50', atQuantity: 1 }]);
  });

  test('when a customer has no tier claim, then there is no price and no prices', () => {
    const v = productView(product, prices, priceContext(tiers, caller('Customer')));
    expect(v.price).toBeNull();
    expect(v.currencyCode).toBeNull();
    expect(v.prices).toEqual([]);
  });

  test('when the organization has no tiers, then an admin sees null price and currency; sales reps see active products only', () => {
    const v = productView(product, prices, priceContext([], caller('Admin')));
    expect(v.price).toBeNull();
    expect(v.currencyCode).toBeNull();
    expect(priceContext([], caller('SalesRep')).activeOnly).toBe(true);
    expect(priceContext([], caller('Admin')).activeOnly).toBe(false);
  });

  test('stored fields map to the SPEC names', () => {
    const v = productView(product, [], priceContext(tiers, caller('Admin')));
    expect(v).toMatchObject({ productId: 'p1', category: 'Tools', weight: 1.25, productAttributes: {}, images: [], updatedAt: '2026-01-02T00:00:00.000Z' });
  });
});
