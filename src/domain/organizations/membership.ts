/**
 * Membership rules (DESIGN "Security decisions"): an organization that adds an e-mail which
 * already has an account gets a pending membership; only the e-mail's owner, through the
 * e-mailed single-use link, makes it active. Signing in to an organization needs an active
 * membership. Pure.
 */
/** A membership is active, or pending until the owner of an account that already existed accepts it. */
export type MembershipStatus = 'active' | 'pending';

/** How long an acceptance link stays valid. */
export const ACCEPT_LINK_TTL_MS = 7 * 24 * 3600 * 1000;

/** A membership created in the same request as its user is active; one for an account that already existed waits for its owner. */
export function initialMembershipStatus(userExisted: boolean): MembershipStatus {
  return userExisted ? 'pending' : 'active';
}

/** Whether a membership lets its user sign in to the organization. */
export const canSignIn = (status: MembershipStatus): boolean => status === 'active';
