import { normalizeRoles, planRemoval, repEmailIds } from '../../src/domain/salesreps/rules';

describe('sales rep rules', () => {
  const base = { otherAssignments: 0, adminHere: false, otherMemberships: 0, isSuper: false };

  test('when the rep has no other organization and the user nothing else, then rep and user are deleted', () => {
    expect(planRemoval(base)).toEqual({ removeMembership: true, removeSalesRep: true, removeUser: true });
  });

  test('when the rep belongs to another organization, then only this access is removed', () => {
    expect(planRemoval({ ...base, otherAssignments: 1, otherMemberships: 1 })).toEqual({ removeMembership: true, removeSalesRep: false, removeUser: false });
  });

  test('when the user is a member elsewhere, then the rep record goes but the user stays', () => {
    expect(planRemoval({ ...base, otherMemberships: 1 })).toEqual({ removeMembership: true, removeSalesRep: true, removeUser: false });
  });

  test('when the user is an admin here, then the membership and user stay', () => {
    expect(planRemoval({ ...base, adminHere: true })).toEqual({ removeMembership: false, removeSalesRep: true, removeUser: false });
  });

  test('when the user is a platform operator, then the user stays', () => {
    expect(planRemoval({ ...base, isSuper: true }).removeUser).toBe(false);
  });

  test('when reactivated several times, then each re-invitation has its own e-mail id', () => {
    expect(repEmailIds.reinvite('a', 1)).toBe('reinvite-sales-rep-a-1');
    expect(repEmailIds.reinvite('a', 2)).not.toBe(repEmailIds.reinvite('a', 1));
    expect(repEmailIds.welcome('a')).toBe('welcome-sales-rep-a');
    expect(repEmailIds.invite('a')).toBe('invite-sales-rep-a');
  });

  test('when roles are missing, empty or repeated, then SalesRep or the de-duplicated list is stored', () => {
    expect(normalizeRoles(undefined)).toEqual(['SalesRep']);
    expect(normalizeRoles([])).toEqual(['SalesRep']);
    expect(normalizeRoles(['SalesRep', 'Manager', 'SalesRep'])).toEqual(['SalesRep', 'Manager']);
  });
});
