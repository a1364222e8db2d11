/** Sales rep rules: what removing an assignment deletes, and the business keys of rep e-mails. Pure. */

export interface RemovalFacts {
  /** Assignments of the rep in organizations other than this one. */
  otherAssignments: number;
  /** Whether the rep's user is an admin of this organization. */
  adminHere: boolean;
  /** Memberships of the rep's user in organizations other than this one. */
  otherMemberships: number;
  /** Platform operator flag of the rep's user. */
  isSuper: boolean;
}

export interface RemovalPlan {
  /** Remove the user's membership in this organization (an admin keeps it). */
  removeMembership: boolean;
  /** Delete the global rep record (it has no other assignment). */
  removeSalesRep: boolean;
  /** Delete the user account (nothing else uses it). */
  removeUser: boolean;
}

/**
 * Removing a rep from an organization: with other assignments only this organization's
 * access goes; otherwise the rep record goes, and the user account too unless the user is
 * still an admin here, a member elsewhere, or a platform operator.
 */
export function planRemoval(f: RemovalFacts): RemovalPlan {
  const removeMembership = !f.adminHere;
  const removeSalesRep = f.otherAssignments === 0;
  const removeUser = removeSalesRep && removeMembership && f.otherMemberships === 0 && !f.isSuper;
  return { removeMembership, removeSalesRep, removeUser };
}

/** E-mail business keys: one welcome/invitation per assignment, one re-invitation per reactivation. */
export const repEmailIds = {
  welcome: (organizationSalesRepId: string) => `welcome-sales-rep-${organizationSalesRepId}`,
  invite: (organizationSalesRepId: string) => `invite-sales-rep-${organizationSalesRepId}`,
  reinvite: (organizationSalesRepId: string, activationCount: number) => `reinvite-sales-rep-${organizationSalesRepId}-${activationCount}`,
};

/** Roles stored on an assignment: the given ones, de-duplicated, or SalesRep when none are given. */
export function normalizeRoles(roles: readonly (string | undefined)[] | undefined | null): string[] {
  const out = [...new Set((roles ?? []).filter((r): r is string => typeof r === 'string' && r.trim() !== '').map((r) => r.trim()))];
  return out.length ? out : ['SalesRep'];
}
