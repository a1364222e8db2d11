/**
 * The claims of a user in an organization that can change after a token was issued: membership
 * and admin flag, the platform Super flag, the sales rep number (and whether it is active), and the
 * customer association with its price tier and currency. Login puts them into the token; every
 * request with a user token reads them again (src/http/auth.ts), so a change takes effect at once.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { LiveClaims } from '../../domain/auth/claims.js';
import { rowsOf } from '../../db/sql.js';

export type { LiveClaims };

export interface ClaimsRow {
  status: string;
  is_admin: boolean;
  is_super: boolean;
  rep_number: string | null;
  rep_active: boolean | null;
  customer_number: string | null;
  pricing: string | null;
  currency_code: string | null;
}

/** One indexed statement ($1 organization, $2 user); no row when the user is not a member. */
export const CLAIMS_SQL = `select m.status, m.is_admin, u.is_super, rep.rep_number, rep.active as rep_active, cust.customer_number, cust.pricing,
        (select pt.currency_code from price_tier pt where pt.organization_id = m.organization_id and lower(pt.name) = lower(cust.pricing)) as currency_code
   from organization_member m
   join app_user u on u.id = m.user_id
   left join lateral (select osr.rep_number, osr.active from organization_sales_rep osr join sales_rep sr on sr.id = osr.sales_rep_id
                       where osr.organization_id = m.organization_id and sr.user_id = m.user_id limit 1) rep on true
   left join lateral (select c.customer_number, c.pricing from user_customer uc join customer c on c.organization_id = uc.organization_id and c.id = uc.customer_id
                       where uc.organization_id = m.organization_id and uc.user_id = m.user_id limit 1) cust on true
  where m.organization_id = $1 and m.user_id = $2`;

export const claimsOfRow = (r: ClaimsRow): LiveClaims => ({
  membershipActive: r.status === 'active',
  isAdmin: r.is_admin,
  isSuper: r.is_super,
  repNumber: r.rep_number,
  repActive: r.rep_active ?? false,
  customerNumber: r.customer_number,
  priceTier: r.pricing,
  currencyCode: r.currency_code,
});

/** One indexed query with bound parameters; null when the user is not a member. */
export async function liveClaims(em: EntityManager, organizationId: string, userId: string): Promise<LiveClaims | null> {
  const rows = await rowsOf<ClaimsRow>(em, CLAIMS_SQL, [organizationId, userId]);
  return rows[0] ? claimsOfRow(rows[0]) : null;
}

/** A user's commerce context in an organization, as login and POST /api/auth/access report it. */
export interface CommerceContext {
  CustomerNumber: string | null;
  PriceTier: string | null;
  CurrencyCode: string | null;
  repNumber: string | null;
  repActive: boolean;
}

export async function commerceContext(em: EntityManager, organizationId: string, userId: string): Promise<CommerceContext> {
  const c = await liveClaims(em, organizationId, userId);
  return {
    CustomerNumber: c?.customerNumber ?? null,
    PriceTier: c?.customerNumber ? c.priceTier : null,
    CurrencyCode: c?.customerNumber ? c.currencyCode : null,
    repNumber: c?.repNumber ?? null,
    repActive: c ? c.repNumber === null || c.repActive : true,
  };
}
