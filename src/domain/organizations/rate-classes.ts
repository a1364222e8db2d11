/** How an organization's per-minute request budget is split between classes of caller (pure; docs/operations.md "Our integration gets 429s"). */

/**
 * The classes of caller an organization's budget is split between (issue 38): its storefront's
 * buyers (Customer users), its staff (Admin and SalesRep users) and its integrations (API keys and
 * client-credential tokens). Each class has its own share of the organization's per-minute limit and
 * its own pacing burst, so one class using up its share never refuses the others.
 */
export type CallerClass = 'buyers' | 'staff' | 'api';

/** The class of a caller: API credentials, Customer users (buyers), other users (staff). */
export function callerClassOf(p: { kind: 'user' | 'client' | 'apikey'; role: string }): CallerClass {
  if (p.kind !== 'user') return 'api';
  return p.role === 'Customer' ? 'buyers' : 'staff';
}

/** How an organization's per-minute limit is split: each class's percentage, and the most one credential may use (a percentage, and at most `perCredentialPerMinute`). */
export interface TenantShares {
  shares: Record<CallerClass, number>;
  credentialShare: number;
  perCredentialPerMinute: number;
}

/** The per-minute limits of one class of an organization whose limit is `orgLimit`, and of one credential in it. */
export function classBudget(orgLimit: number, cls: CallerClass, cfg: TenantShares): { classLimit: number; credentialLimit: number } {
  return {
    classLimit: Math.max(1, Math.floor((orgLimit * cfg.shares[cls]) / 100)),
    credentialLimit: Math.max(1, Math.min(cfg.perCredentialPerMinute, Math.floor((orgLimit * cfg.credentialShare) / 100))),
  };
}
