import { checkOrderQuantity, quantityRuleBroken, quantityRuleErrors, rulesInForce } from '../../src/domain/pricing/quantity-rules';

const product = { minimumOrderQuantity: 12, maximumOrderQuantity: 120, quantityIncrement: 6 };

describe('quantity rules: which rules are in force', () => {
  test('when the entry overrides nothing, then the product rules apply', () => {
    expect(rulesInForce(product, null)).toEqual(product);
    expect(rulesInForce(product, { minimumOrderQuantity: null, maximumOrderQuantity: null, quantityIncrement: null })).toEqual(product);
  });
  test('when the entry overrides some rules, then each override replaces only its rule', () => {
    expect(rulesInForce(product, { quantityIncrement: 24 })).toEqual({ minimumOrderQuantity: 12, maximumOrderQuantity: 120, quantityIncrement: 24 });
    expect(rulesInForce({ minimumOrderQuantity: 1, maximumOrderQuantity: null, quantityIncrement: 1 }, { maximumOrderQuantity: 50 })).toEqual({
      minimumOrderQuantity: 1,
      maximumOrderQuantity: 50,
      quantityIncrement: 1,
    });
  });
});

describe('quantity rules: checking a quantity', () => {
  test('when a quantity satisfies minimum, maximum and increment, then it is accepted', () => {
    for (const q of [12, 18, 60, 120]) expect(quantityRuleBroken(q, product)).toBeNull();
  });
  test('when a quantity is below the minimum, then the minimum is the rule named', () => {
    expect(quantityRuleBroken(6, product)).toEqual({ rule: 'minimumOrderQuantity', message: 'quantity must be at least the minimum order quantity of 12 (minimumOrderQuantity).' });
  });
  test('when a quantity is above the maximum, then the maximum is the rule named', () => {
    expect(quantityRuleBroken(126, product)).toEqual({ rule: 'maximumOrderQuantity', message: 'quantity must be at most the maximum order quantity of 120 (maximumOrderQuantity).' });
  });
  test('when a quantity is not a multiple of the increment, then the increment is the rule named', () => {
    expect(quantityRuleBroken(13, product)).toEqual({ rule: 'quantityIncrement', message: 'quantity must be a multiple of 6 (quantityIncrement).' });
  });
  test('when there is no maximum, then any large multiple is accepted', () => {
    expect(checkOrderQuantity(1_000_002, { ...product, maximumOrderQuantity: null })).toBeNull();
  });
  test('when a quantity is not a whole number of at least 1, then it is refused before any rule', () => {
    expect(quantityRuleBroken(0, product)?.rule).toBeNull();
    expect(checkOrderQuantity(2.5, product)).toMatch(/whole number of at least 1/);
  });
});

describe('quantity rules: validating rules as given', () => {
  test('when a product rule is below 1 or fractional, then each field is reported', () => {
    expect(quantityRuleErrors({ minimumOrderQuantity: 0, quantityIncrement: 1.5 })).toEqual({
      minimumOrderQuantity: ['minimumOrderQuantity must be a whole number of at least 1.'],
      quantityIncrement: ['quantityIncrement must be a whole number of at least 1.'],
    });
    expect(quantityRuleErrors({ minimumOrderQuantity: 1, quantityIncrement: 6 })).toEqual({});
  });
  test('when the maximum is below the minimum, then the maximum is reported', () => {
    expect(quantityRuleErrors({ minimumOrderQuantity: 10, maximumOrderQuantity: 5 })).toEqual({
      maximumOrderQuantity: ['maximumOrderQuantity must not be below minimumOrderQuantity (10).'],
    });
    expect(quantityRuleErrors({ maximumOrderQuantity: 5 }, { inheritedMinimum: 10 })).toHaveProperty('maximumOrderQuantity');
  });
  test('when an entry override is null, then it is accepted (inherit) and paths carry the prefix', () => {
    expect(quantityRuleErrors({ minimumOrderQuantity: null, quantityIncrement: null }, { nullable: true, path: 'entries[0].' })).toEqual({});
    expect(quantityRuleErrors({ quantityIncrement: 0 }, { nullable: true, path: 'entries[3].' })).toEqual({
      'entries[3].quantityIncrement': ['quantityIncrement must be a whole number of at least 1.'],
    });
  });
  test('when a product minimum is null, then it is refused (only the maximum may be absent)', () => {
    expect(quantityRuleErrors({ minimumOrderQuantity: null, maximumOrderQuantity: null })).toEqual({
      minimumOrderQuantity: ['minimumOrderQuantity must be a whole number of at least 1.'],
    });
  });
});
