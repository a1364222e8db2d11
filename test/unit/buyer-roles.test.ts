import { buyerChangeRefusal, reviseLevels, sameCartLines, type BuyerGrant, type BuyerManager } from '../../src/domain/approvals/rules';

const approver = (orderLimit: number | null, monthlyLimit: number | null = null): BuyerManager => ({ isAdmin: false, userId: 'ann', own: { role: 'Approver', orderLimit, monthlyLimit } });
const admin: BuyerManager = { isAdmin: true, userId: 'adm', own: null };
const buyer = (current: BuyerGrant | null = { role: 'Buyer', orderLimit: 100, monthlyLimit: null }) => ({ userId: 'bea', current });
const grant = (orderLimit: number | null, monthlyLimit: number | null = null, role: BuyerGrant['role'] = 'Buyer'): BuyerGrant => ({ role, orderLimit, monthlyLimit });

describe('who changes a buyer row', () => {
  test('when anyone, an admin or an unlimited Approver included, changes or removes their own row, then refused', () => {
    for (const m of [approver(1000), approver(null), { ...admin, userId: 'bea' }]) {
      expect(buyerChangeRefusal(m, { userId: m.userId!.toUpperCase(), current: m.own }, grant(null))).toMatchObject({ message: expect.stringContaining('own') });
      expect(buyerChangeRefusal(m, { userId: m.userId!, current: m.own }, null)).not.toBeNull();
    }
  });

  test("when an admin changes another user's row (an Approver's too), then allowed", () => {
    expect(buyerChangeRefusal(admin, { userId: 'ann', current: grant(1000, null, 'Approver') }, grant(null, null, 'Approver'))).toBeNull();
    expect(buyerChangeRefusal(admin, { userId: 'ann', current: grant(1000, null, 'Approver') }, null)).toBeNull();
  });

  test("when an Approver changes or removes another Approver's row, then refused", () => {
    const target = { userId: 'max', current: grant(10, null, 'Approver') };
    expect(buyerChangeRefusal(approver(null), target, grant(5, null, 'Approver'))).toMatchObject({ message: expect.stringContaining("Approver's") });
    expect(buyerChangeRefusal(approver(null), target, grant(5))).not.toBeNull();
    expect(buyerChangeRefusal(approver(null), target, null)).not.toBeNull();
  });

  test('when an Approver makes someone an Approver, then refused naming role', () => {
    expect(buyerChangeRefusal(approver(null), buyer(null), grant(5, null, 'Approver'))?.errors).toEqual({ role: [expect.any(String)] });
  });

  test('when an Approver grants at most its own limits, then allowed; above them or no limit where it has one, refused naming each field', () => {
    expect(buyerChangeRefusal(approver(1000, 5000), buyer(), grant(1000, 5000))).toBeNull();
    expect(buyerChangeRefusal(approver(1000), buyer(), grant(999.99, null))).toBeNull();
    expect(buyerChangeRefusal(approver(null), buyer(), grant(null, null))).toBeNull();
    expect(buyerChangeRefusal(approver(1000, 5000), buyer(), grant(1000.01, null))?.errors).toEqual({ orderLimit: [expect.stringContaining('1000.00')], monthlyLimit: [expect.stringContaining('no limit')] });
    expect(buyerChangeRefusal(approver(1000), buyer(null), grant(null))?.errors).toEqual({ orderLimit: [expect.any(String)] });
  });

  test("when an Approver removes a plain buyer's row, then allowed only if the Approver has no limits (the buyer would buy without limits)", () => {
    expect(buyerChangeRefusal(approver(null, null), buyer(), null)).toBeNull();
    expect(buyerChangeRefusal(approver(1000), buyer(), null)).toMatchObject({ message: expect.stringContaining('lifts') });
    expect(buyerChangeRefusal(approver(null, 100), buyer(), null)).not.toBeNull();
  });

  test('when a plain Buyer or someone without a row manages buyers, then refused', () => {
    expect(buyerChangeRefusal({ isAdmin: false, userId: 'x', own: grant(null) }, buyer(), grant(1))).not.toBeNull();
    expect(buyerChangeRefusal({ isAdmin: false, userId: 'x', own: null }, buyer(), grant(1))).not.toBeNull();
  });
});

describe('an approval is for exact lines', () => {
  const l = (sku: string, quantity: number, unitPrice: number | string) => ({ sku, quantity, unitPrice });
  test('when the same SKUs, quantities and unit prices come in another order or spelling, then the same lines', () => {
    expect(sameCartLines([l('A', 1, 100), l('b', 2, '50.0000')], [l('B', 2, 50), l('a', 1, '100')])).toBe(true);
  });
  test('when lines were swapped for others of the same total, a quantity or a unit price differs, or a line is added, then not the same', () => {
    expect(sameCartLines([l('A', 2, 100)], [l('C', 1, 200)])).toBe(false);
    expect(sameCartLines([l('A', 2, 100)], [l('A', 1, 200)])).toBe(false);
    expect(sameCartLines([l('A', 2, 100)], [l('A', 2, 100), l('B', 1, 0)])).toBe(false);
  });
});

describe('the chain of an open request when Approvers change', () => {
  const lvl = (level: number, kind: 'Approvers' | 'Admins', ...userIds: string[]) => ({ level, kind, userIds, emails: userIds.map((u) => `${u}@x`) });
  const before = [lvl(1, 'Approvers', 'ann', 'amy'), lvl(2, 'Approvers', 'max'), lvl(3, 'Admins', 'adm')];

  test('when every Approver asked at the current level is gone, then the next level is asked at once', () => {
    const r = reviseLevels(before, 0, [lvl(1, 'Approvers', 'max'), lvl(2, 'Admins', 'adm')]);
    expect(r.skip).toBe(true);
    expect(r.levels).toEqual([lvl(1, 'Approvers'), lvl(2, 'Approvers', 'max'), lvl(3, 'Admins', 'adm')]);
  });

  test('when one of two asked Approvers is gone, then the other still decides and no later level names the one gone', () => {
    const r = reviseLevels(before, 0, [lvl(1, 'Approvers', 'amy'), lvl(2, 'Approvers', 'max'), lvl(3, 'Admins', 'adm')]);
    expect(r).toEqual({ skip: false, levels: [lvl(1, 'Approvers', 'amy'), lvl(2, 'Approvers', 'max'), lvl(3, 'Admins', 'adm')] });
  });

  test('when an Approver of a later level is gone, then that level is dropped; levels passed stay as asked', () => {
    const r = reviseLevels(before, 1, [lvl(1, 'Approvers', 'ann', 'amy'), lvl(2, 'Admins', 'adm')]);
    expect(r.skip).toBe(true);
    expect(r.levels).toEqual([lvl(1, 'Approvers', 'ann', 'amy'), lvl(2, 'Approvers'), lvl(3, 'Admins', 'adm')]);
    expect(reviseLevels(before, 0, [lvl(1, 'Approvers', 'ann', 'amy'), lvl(2, 'Admins', 'adm')])).toEqual({ skip: false, levels: [lvl(1, 'Approvers', 'ann', 'amy'), lvl(2, 'Admins', 'adm')] });
  });

  test('when nothing was asked yet, then the fresh chain; when the admins are being asked, then they stay', () => {
    expect(reviseLevels(before, -1, [lvl(1, 'Admins', 'adm')])).toEqual({ skip: false, levels: [lvl(1, 'Admins', 'adm')] });
    expect(reviseLevels(before, 2, [lvl(1, 'Admins', 'adm', 'adm2')])).toEqual({ skip: false, levels: [lvl(1, 'Approvers', 'ann', 'amy'), lvl(2, 'Approvers', 'max'), lvl(3, 'Admins', 'adm')] });
  });
});
