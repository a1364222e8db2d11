import { allocateLines, levelFromMovements, shortageErrors, type LevelFact } from '../../src/domain/stock/allocate';

const fact = (over: Partial<LevelFact>): LevelFact => ({
  productId: 'p1',
  sku: 'A',
  allowBackorder: false,
  leadTimeDays: null,
  locationId: 'L1',
  onHand: 0,
  reserved: 0,
  priority: 100,
  isDefault: false,
  code: 'L1',
  ...over,
});

describe('allocateLines (which location serves a line)', () => {
  test('when locations have stock, then the lower priority number serves first and a line may span locations', () => {
    const facts = [fact({ locationId: 'MAIN', code: 'MAIN', priority: 20, onHand: 5, isDefault: true }), fact({ locationId: 'EAST', code: 'EAST', priority: 10, onHand: 3, reserved: 1 })];
    const { allocations, shortages } = allocateLines([{ sku: 'A', quantity: 4 }], facts);
    expect(shortages).toEqual([]);
    expect(allocations).toEqual([{ index: 0, sku: 'A', productId: 'p1', takes: [{ locationId: 'EAST', quantity: 2 }, { locationId: 'MAIN', quantity: 2 }], backordered: 0, leadTimeDays: null }]);
  });

  test('when priorities tie, then the default location serves first', () => {
    const facts = [fact({ locationId: 'B', code: 'B', onHand: 5 }), fact({ locationId: 'A', code: 'A', onHand: 5, isDefault: true })];
    expect(allocateLines([{ sku: 'A', quantity: 1 }], facts).allocations[0].takes).toEqual([{ locationId: 'A', quantity: 1 }]);
  });

  test('when stock is short, then the line is a shortage naming what is available, unless the product allows backorders', () => {
    const short = allocateLines([{ sku: 'X', quantity: 1 }, { sku: 'A', quantity: 4 }], [fact({ onHand: 3 })]);
    expect(short.shortages).toEqual([{ index: 1, sku: 'A', requested: 4, available: 3 }]);
    expect(shortageErrors(short.shortages)).toEqual({ 'items[1]': ['A: 4 requested, 3 available (the product does not allow backorders).'] });
    const bo = allocateLines([{ sku: 'A', quantity: 4 }], [fact({ onHand: 3, allowBackorder: true, leadTimeDays: 7 })]);
    expect(bo.allocations[0]).toMatchObject({ takes: [{ locationId: 'L1', quantity: 3 }], backordered: 1, leadTimeDays: 7 });
  });

  test('when two lines name the same SKU, then the second draws on what the first left; a product without levels has nothing', () => {
    const { shortages, allocations } = allocateLines([{ sku: 'A', quantity: 2 }, { sku: 'A', quantity: 2 }, { sku: 'N', quantity: 1 }], [fact({ onHand: 3 }), fact({ sku: 'N', productId: 'p2', locationId: null })]);
    expect(allocations.map((a) => a.index)).toEqual([0]);
    expect(shortages).toEqual([
      { index: 1, sku: 'A', requested: 2, available: 1 },
      { index: 2, sku: 'N', requested: 1, available: 0 },
    ]);
  });
});

describe('levelFromMovements (the ledger identity)', () => {
  test('on hand = receipts + adjustments - shipments; reserved = reservations - releases - reservations shipped', () => {
    expect(
      levelFromMovements([
        { kind: 'receipt', quantity: 10, reservedQuantity: 0 },
        { kind: 'adjustment', quantity: -2, reservedQuantity: 0 },
        { kind: 'reservation', quantity: 5, reservedQuantity: 0 },
        { kind: 'release', quantity: 1, reservedQuantity: 0 },
        { kind: 'shipment', quantity: 3, reservedQuantity: 3 },
      ]),
    ).toEqual({ onHand: 5, reserved: 1 });
  });
});
