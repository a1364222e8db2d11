/** Which role a user gets in an organization, from membership facts. Pure. */
import type { Role } from '../auth/claims.js';

export interface MembershipFacts {
  isAdmin: boolean;
  /** Active sales rep number in this organization, if any. */
  repNumber?: string | null;
  repActive?: boolean;
  customer?: { customerNumber: string; priceTier: string | null; currencyCode: string | null } | null;
}

export function resolveRole(m: MembershipFacts): { role: Exclude<Role, 'Super'>; allowed: boolean } {
  if (m.isAdmin) return { role: 'Admin', allowed: true };
  if (m.repNumber) return { role: 'SalesRep', allowed: m.repActive !== false };
  return { role: 'Customer', allowed: true };
}
