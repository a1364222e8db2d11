/**
 * The shapes of identity shared by the HTTP layer and the services, kept here so that neither
 * imports the other for them: roles, and the claims of a user that can change after a token was
 * issued (read again on every request by src/http/auth.ts through an injected loader). Pure types.
 */

export type Role = 'Admin' | 'Customer' | 'SalesRep' | 'Super';

export interface LiveClaims {
  /** False while a membership added for an existing account waits for its owner's acceptance. */
  membershipActive: boolean;
  isAdmin: boolean;
  isSuper: boolean;
  repNumber: string | null;
  repActive: boolean;
  customerNumber: string | null;
  /** The customer's price tier as named on the customer. */
  priceTier: string | null;
  /** The currency of that tier (null when the tier does not exist). */
  currencyCode: string | null;
}

/**
 * Reads a user's live claims in an organization; null when the user is not a member. The
 * composition root passes the PostgreSQL-backed one (src/services/auth/claims.ts) to the app.
 * `db` is the request's EntityManager, typed loosely so this pure module needs no ORM import.
 */
export type ClaimsLoader<Db = unknown> = (db: Db, organizationId: string, userId: string) => Promise<LiveClaims | null>;
