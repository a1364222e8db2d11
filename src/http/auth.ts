/**
 * Authentication: signed access tokens (HS256 JWT, TokenType api-key) carried as
 * `Authorization: Bearer` or `x-api-key`, and static API keys in `x-api-key`.
 * Every token carries the organization's credential version; issuing new credentials
 * bumps it, so older tokens and keys stop working (checked per request, cached until a NOTIFY says it changed).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type Koa from 'koa';
import type { Config } from '../config.js';
import { API_KEY_PREFIX, sha256 } from '../domain/auth/secrets.js';
import type { LiveClaims, Role } from '../domain/auth/claims.js';
import { AppError } from '../errors.js';

export type { Role };

export interface Principal {
  /** 'user' for user logins, 'client' for ClientId/ClientSecret logins, 'apikey' for static keys. */
  kind: 'user' | 'client' | 'apikey';
  subject: string;
  userId: string | null;
  organizationId: string;
  role: Exclude<Role, 'Super'>;
  isSuper: boolean;
  customerNumber: string | null;
  priceTier: string | null;
  currencyCode: string | null;
  repNumber: string | null;
}

export interface TokenClaims {
  OrganizationId: string;
  CustomerNumber: string | null;
  PriceTier: string | null;
  CurrencyCode: string | null;
  role: Principal['role'];
  roles: Role[];
  RepNumber?: string | null;
  UserId?: string | null;
  kind: 'user' | 'client';
  cv: number;
  /** User tokens: the user's token version at issue (bumped by a password change); absent means 1. */
  tv?: number;
}

const ISSUER = 'b2b-commerce';

export async function signAccessToken(
  config: Config,
  subject: string,
  claims: TokenClaims,
): Promise<{ AccessToken: string; TokenType: 'api-key'; ExpiresIn: number }> {
  const key = new TextEncoder().encode(config.jwtSecret);
  const token = await new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime(`${config.tokenTtlSeconds}s`)
    .sign(key);
  return { AccessToken: token, TokenType: 'api-key', ExpiresIn: config.tokenTtlSeconds };
}

/** The organization and client of an active static API key. */
export interface ApiKeyOwner {
  organizationId: string;
  clientId: string;
}

/**
 * What authentication reads on every request, through the process's cache (src/services/auth/cache.ts,
 * passed in by the composition root so http does not import services): credential and token versions,
 * live claims and API keys, invalidated through PostgreSQL LISTEN/NOTIFY. `invalidate*` drop this
 * process's entries at once (the NOTIFY does the same for every process).
 */
export interface CredentialVersions {
  get(em: EntityManager, organizationId: string): Promise<number | null>;
  user(em: EntityManager, userId: string): Promise<number | null>;
  claims(em: EntityManager, organizationId: string, userId: string): Promise<LiveClaims | null>;
  apiKey(em: EntityManager, keyHash: string): Promise<ApiKeyOwner | null>;
  invalidate(organizationId: string): void;
  invalidateUser(userId: string): void;
  /** Resolves once every invalidation committed before the call has been applied (after a write request). */
  sync(): Promise<void>;
}

function readPresented(ctx: Koa.Context): string | null {
  const authz = ctx.get('authorization');
  if (authz) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
    if (!m) throw AppError.unauthorized('The Authorization header must be "Bearer <token>".');
    return m[1];
  }
  return ctx.get('x-api-key') || null;
}

/**
 * A user token stays valid only while its role does, and carries the user's claims as they are
 * now (DESIGN "Security decisions"): a user removed from the organization, an admin whose role
 * was taken away, or a deactivated or removed sales rep gets 401 at once; a re-associated user
 * acts for the new customer (and no longer for the old one), a changed rep number or Super flag
 * applies at once. Read through the credential cache (one indexed query when it is cold).
 */
async function currentPrincipal(em: EntityManager, versions: CredentialVersions, claims: TokenClaims & { sub?: string }, userId: string): Promise<Principal> {
  if (!UUID.test(userId)) throw AppError.unauthorized('The token is invalid.');
  const live = await versions.claims(em, claims.OrganizationId, userId);
  if (!live || !live.membershipActive) throw AppError.unauthorized('The user no longer belongs to this organization; log in again.');
  if (claims.role === 'Admin' && !live.isAdmin) throw AppError.unauthorized('The administrator role was removed; log in again.');
  if (claims.role === 'SalesRep' && !(live.repNumber && live.repActive)) throw AppError.unauthorized('This sales rep is inactive or was removed.');
  // Tier and currency stay as issued while the customer is the same one; another customer brings its own.
  const sameCustomer = live.customerNumber !== null && live.customerNumber === (claims.CustomerNumber ?? null);
  return {
    kind: 'user',
    subject: claims.sub ?? '',
    userId,
    organizationId: claims.OrganizationId,
    role: claims.role,
    isSuper: live.isSuper,
    customerNumber: live.customerNumber,
    priceTier: sameCustomer ? (claims.PriceTier ?? live.priceTier) : live.priceTier,
    currencyCode: sameCustomer ? (claims.CurrencyCode ?? live.currencyCode) : live.currencyCode,
    repNumber: live.repNumber,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What authenticate needs besides the request: settings and the credential cache. */
export interface AuthContext {
  config: Config;
  credentialVersions: CredentialVersions;
}

type VerifiedClaims = TokenClaims & { sub?: string; exp?: number };

/**
 * Tokens whose signature and issuer this process already verified, with their claims, until they
 * expire. jose verifies through WebCrypto, which cost more per request than the product read
 * itself; a token's signature cannot change, so it is checked once per process. Only that is
 * cached: the credential, token and membership versions are still checked on every request.
 */
const verified = new Map<string, { claims: VerifiedClaims; secret: string }>();
const VERIFIED_MAX = 10_000;

async function verifiedClaims(token: string, secret: string): Promise<VerifiedClaims> {
  const known = verified.get(token);
  if (known && known.secret === secret && (known.claims.exp === undefined || known.claims.exp > Math.floor(Date.now() / 1000))) return known.claims;
  verified.delete(token);
  let claims: VerifiedClaims;
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), { issuer: ISSUER, algorithms: ['HS256'] });
    // jose types the payload as JWTPayload; the fields are checked by the caller before use.
    claims = payload as unknown as VerifiedClaims;
  } catch (e) {
    if (e instanceof joseErrors.JWTExpired) throw AppError.unauthorized('The token has expired.');
    throw AppError.unauthorized('The token is invalid.');
  }
  // Oldest first out: a Map iterates in insertion order.
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  verified.set(token, { claims, secret });
  return claims;
}

export async function authenticate(ctx: Koa.Context, em: EntityManager, { config, credentialVersions: versions }: AuthContext): Promise<Principal> {
  const presented = readPresented(ctx);
  if (!presented) throw AppError.unauthorized();
  if (presented.startsWith(API_KEY_PREFIX)) {
    const owner = await versions.apiKey(em, sha256(presented));
    if (!owner) throw AppError.unauthorized('The API key is invalid or has been rotated.');
    return {
      kind: 'apikey',
      subject: owner.clientId,
      userId: null,
      organizationId: owner.organizationId,
      role: 'Admin',
      isSuper: false,
      customerNumber: null,
      priceTier: null,
      currencyCode: null,
      repNumber: null,
    };
  }
  const claims = await verifiedClaims(presented, config.jwtSecret);
  if (typeof claims.OrganizationId !== 'string' || !UUID.test(claims.OrganizationId) || typeof claims.cv !== 'number')
    throw AppError.unauthorized('The token is invalid.');
  const current = await versions.get(em, claims.OrganizationId);
  if (current === null || current !== claims.cv) throw AppError.unauthorized('The token was issued before the credentials were rotated.');
  if (claims.kind === 'user' && claims.UserId) {
    if (!UUID.test(claims.UserId)) throw AppError.unauthorized('The token is invalid.');
    const tv = await versions.user(em, claims.UserId);
    if (tv === null || tv !== (typeof claims.tv === 'number' ? claims.tv : 1))
      throw AppError.unauthorized('The password was changed after this token was issued; log in again.');
    return currentPrincipal(em, versions, claims, claims.UserId);
  }
  return {
    kind: claims.kind === 'user' ? 'user' : 'client',
    subject: claims.sub ?? '',
    userId: claims.UserId ?? null,
    organizationId: claims.OrganizationId,
    role: claims.role,
    isSuper: Array.isArray(claims.roles) && claims.roles.includes('Super'),
    customerNumber: claims.CustomerNumber ?? null,
    priceTier: claims.PriceTier ?? null,
    currencyCode: claims.CurrencyCode ?? null,
    repNumber: claims.RepNumber ?? null,
  };
}
