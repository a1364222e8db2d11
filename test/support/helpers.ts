/** Test helpers: the running stack's addresses, an HTTP client, and fixtures built through the API. */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createValidator, recordMismatches, validationEnabled, type Validator } from './openapi-validator';

export interface StackInfo {
  urls: Record<string, string>;
  env: Record<'production' | 'sandbox', Record<string, string>>;
  logDir: string;
  /** Each database as the tests' own role (scripts/lib/statement-audit.ts), null when none could be created. */
  inspectorUrls?: Record<'production' | 'sandbox', string> | null;
}

export const stack: StackInfo = JSON.parse(readFileSync(process.env.STACK_FILE ?? '', 'utf8'));

/** The URL the tests read and alter a database with: their own role, so the statement audit leaves their queries out. */
export const inspectorUrl = (env: 'production' | 'sandbox' = 'production'): string => stack.inspectorUrls?.[env] ?? stack.env[env].DATABASE_URL;
export const API = stack.urls.api;
export const SANDBOX_API = stack.urls.sandboxApi;

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/** A random client IP, so public-endpoint rate limits (per IP) do not couple unrelated tests. */
export const randomIp = () => `10.${rnd(255)}.${rnd(255)}.${rnd(254) + 1}`;
const rnd = (n: number) => Math.floor(Math.random() * n);

export async function call<T = any>(
  method: string,
  path: string,
  opts: { token?: string; apiKey?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; base?: string; ip?: string } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { 'x-forwarded-for': opts.ip ?? randomIp(), ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  let body: string | undefined;
  if (opts.rawBody !== undefined) {
    body = opts.rawBody;
    headers['content-type'] ??= 'application/json';
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const base = opts.base ?? API;
  const res = await fetch(`${base}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  if ((base === API || base === SANDBOX_API) && validationEnabled()) {
    const problems = (await responseValidator()).check(method, path, res.status, res.headers.get('content-type'), parsed, text);
    if (problems.length) {
      recordMismatches(stack.logDir, problems);
      throw new Error(`The response does not match /openapi.json:\n  ${problems.join('\n  ')}\nbody: ${text.slice(0, 500)}`);
    }
  }
  return { status: res.status, body: parsed as T, headers: res.headers, text };
}

let validator: Promise<Validator> | undefined;
/** The validator built from the running API's /openapi.json (once per test file). */
export function responseValidator(): Promise<Validator> {
  validator ??= fetch(`${API}/openapi.json`)
    .then((r) => r.json())
    .then((doc) => createValidator(doc as Record<string, any>));
  return validator;
}

export const uniq = (prefix = 't') => `${prefix}${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;

export interface OrgFixture {
  organizationId: string;
  code: string;
  name: string;
  adminEmail: string;
  adminPassword: string;
  adminUserId: string;
  adminToken: string;
  base: string;
}

/** Creates an organization with an admin who has a password, and logs the admin in. */
export async function createOrg(opts: { base?: string; name?: string } = {}): Promise<OrgFixture> {
  const base = opts.base ?? API;
  const name = opts.name ?? uniq('Org ');
  const adminEmail = `${uniq('admin')}@example.com`;
  const adminPassword = 'correct horse battery';
  const res = await call('POST', '/api/organizations', {
    base,
    body: { Organization: { Name: name, BillingCountry: 'US' }, User: { FirstName: 'Ada', LastName: 'Admin', Email: adminEmail, Password: adminPassword } },
  });
  if (res.status !== 201) throw new Error(`create org failed: ${res.status} ${res.text}`);
  const login = await call('POST', '/api/auth/token', { base, body: { Email: adminEmail, Password: adminPassword } });
  if (login.status !== 200) throw new Error(`admin login failed: ${login.status} ${login.text}`);
  const profile = await call('GET', '/api/users/profile', { base, token: login.body.AccessToken });
  return {
    organizationId: res.body.OrganizationId,
    code: res.body.IdentityOrganizationId,
    name,
    adminEmail,
    adminPassword,
    adminUserId: profile.body.UserId,
    adminToken: login.body.AccessToken,
    base,
  };
}

/** Adds a plain member user (role Customer) with a password and returns a token for them. */
export async function createMemberUser(org: OrgFixture): Promise<{ userId: string; email: string; token: string }> {
  const email = `${uniq('user')}@example.com`;
  const res = await call('POST', '/api/users', { base: org.base, token: org.adminToken, body: { FirstName: 'Uma', LastName: 'User', Email: email, Password: 'member password 1' } });
  if (res.status !== 201) throw new Error(`create user failed: ${res.status} ${res.text}`);
  const login = await call('POST', '/api/auth/token', { base: org.base, body: { Email: email, Password: 'member password 1' } });
  return { userId: res.body.UserId, email, token: login.body.AccessToken };
}

export async function issueApiAccess(org: OrgFixture): Promise<{ ClientId: string; ClientSecret: string; ApiKey: string }> {
  const res = await call('POST', '/api/organizations/api-access', { base: org.base, token: org.adminToken });
  if (res.status !== 201) throw new Error(`api-access failed: ${res.status} ${res.text}`);
  return res.body;
}

export interface Mail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

/** Waits until the SMTP catcher holds a message for `to` matching `pred`. */
export async function waitForMail(to: string, pred: (m: Mail) => boolean = () => true, timeoutMs = 30000): Promise<Mail> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await fetch(`${stack.urls.mailbox}/messages?to=${encodeURIComponent(to)}`);
    const list = (await res.json()) as Mail[];
    const hit = list.find(pred);
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`no mail for ${to} within ${timeoutMs} ms`);
}

export async function mailsFor(to: string): Promise<Mail[]> {
  const res = await fetch(`${stack.urls.mailbox}/messages?to=${encodeURIComponent(to)}`);
  return (await res.json()) as Mail[];
}

/** Signs a token with the production key, for tests of expiry and tampering. */
export function signTestToken(claims: Record<string, unknown>, opts: { secret?: string; expOffsetSeconds?: number } = {}): string {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const payload = { iss: 'b2b-commerce', sub: randomUUID(), iat: now - 100000, exp: now + (opts.expOffsetSeconds ?? 3600), ...claims };
  const head = b64({ alg: 'HS256', typ: 'JWT' });
  const body = b64(payload);
  const sig = createHmac('sha256', opts.secret ?? stack.env.production.JWT_SECRET).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

export function decodeToken(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
}

/** Runs one SQL query against an environment's database (for white-box checks of shared state). */
export async function dbQuery<T = Record<string, any>>(sql: string, params: unknown[] = [], env: 'production' | 'sandbox' = 'production'): Promise<T[]> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Client } = require('pg') as typeof import('pg');
  const client = new Client({ connectionString: inspectorUrl(env) });
  await client.connect();
  try {
    return (await client.query(sql, params as never[])).rows as T[];
  } finally {
    await client.end();
  }
}

/** Extracts the one-time token from a set-password link in an e-mail. */
export function setPasswordToken(mail: Mail): string {
  const m = /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.text) ?? /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.html);
  if (!m) throw new Error(`no set-password link in mail "${mail.subject}"`);
  return m[1];
}

/** Asserts the response is an RFC 7807 problem with the given status and a traceId equal to X-Trace-Id. */
export function expectProblem(res: Res, status: number): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toEqual(expect.objectContaining({ type: expect.any(String), title: expect.any(String), status, traceId: expect.any(String) }));
  expect(res.body.traceId).toBe(res.headers.get('x-trace-id'));
}

/** A SalesRep token for a real rep (created through the API) with `repNumber`; the org must never have rotated credentials. */
export async function repToken(org: OrgFixture, repNumber: string): Promise<string> {
  const email = `${uniq('rep')}@example.com`;
  const res = await call('PUT', '/api/organizations/salesreps', { base: org.base, token: org.adminToken, body: { firstName: 'Rita', lastName: 'Rep', email, repNumber } });
  if (res.status !== 201) throw new Error(`create rep failed: ${res.status} ${res.text}`);
  return signTestToken({ OrganizationId: org.organizationId, role: 'SalesRep', roles: ['SalesRep'], RepNumber: repNumber, kind: 'user', cv: 1, UserId: res.body.identityProviderUserId });
}

/** Associates a member user with customer `customerNumber`, creating the customer (and its price tier) when missing. */
export async function associateCustomer(org: OrgFixture, userId: string, customerNumber: string, tier = 'Retail', currencyCode = 'USD'): Promise<void> {
  const opts = { base: org.base, token: org.adminToken };
  await ensureCustomer(org, customerNumber, tier, currencyCode);
  const a = await call('POST', '/api/organizations/users/associate-customer', { ...opts, body: { UserId: userId, CustomerNumber: customerNumber } });
  if (a.status !== 200) throw new Error(`associate customer failed: ${a.status} ${a.text}`);
}

/** Creates customer `customerNumber` (and its price tier) unless it exists. */
export async function ensureCustomer(org: OrgFixture, customerNumber: string, tier = 'Retail', currencyCode = 'USD'): Promise<void> {
  const opts = { base: org.base, token: org.adminToken };
  if ((await call('GET', `/api/customers/${encodeURIComponent(customerNumber)}`, opts)).status === 404) {
    const t = await call('POST', '/api/organizations/price-tiers', { ...opts, body: { Name: tier, CurrencyCode: currencyCode } });
    if (t.status !== 200 && t.status !== 409) throw new Error(`create price tier failed: ${t.status} ${t.text}`);
    const body = { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${uniq('c')}@example.com`, pricing: tier };
    const c = await call('PUT', '/api/customers', { ...opts, body });
    if (c.status !== 201 && c.status !== 200) throw new Error(`create customer failed: ${c.status} ${c.text}`);
  }
}

/** Saves a card on file for the customer through the API (ProviderDirect) and returns its paymentProfileId. */
export async function saveCard(org: OrgFixture, customerNumber: string, cardNumber = '4111111111111111'): Promise<string> {
  const res = await call('POST', '/api/payments/payment-methods', {
    base: org.base,
    token: org.adminToken,
    body: {
      customerNumber,
      emailAddress: 'buyer@example.com',
      cardNumber,
      expirationMonth: '12',
      expirationYear: String(new Date().getFullYear() + 2),
      cardCode: '123',
      paymentProvider: 'ProviderDirect',
      billingAddress: { firstName: 'Ada', lastName: 'Buyer', address1: '1 Main St', city: 'Springfield', zipCode: '62701', country: 'US' },
    },
  });
  if (res.status !== 201) throw new Error(`save card failed: ${res.status} ${res.text}`);
  return res.body.paymentMethod.paymentProfileId;
}

/**
 * A Customer-role token for a real member user carrying the given commerce claims; the org must
 * never have rotated credentials. Claims are re-checked per request, so the user is really
 * associated with the customer (created when missing, in the claimed tier).
 */
export async function customerToken(org: OrgFixture, claims: { CustomerNumber?: string | null; PriceTier?: string | null; CurrencyCode?: string | null }): Promise<string> {
  const user = await createMemberUser(org);
  if (claims.CustomerNumber) await associateCustomer(org, user.userId, claims.CustomerNumber, claims.PriceTier ?? 'Retail', claims.CurrencyCode ?? 'USD');
  return signTestToken({ OrganizationId: org.organizationId, role: 'Customer', roles: ['Customer'], kind: 'user', cv: 1, UserId: user.userId, CustomerNumber: null, PriceTier: null, CurrencyCode: null, ...claims });
}
