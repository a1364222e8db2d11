/**
 * The scripts' one client of the service's HTTP API (benchmarks, chaos run, restore drill): JSON in
 * and out, a bearer token, an X-Forwarded-For client address, an optional timeout; and the one
 * organization setup they share (sign-up, login, price tiers).
 */

export interface ApiResponse {
  status: number;
  /** The parsed JSON answer; the text when it is not JSON; undefined when empty. */
  body: any;
  bytes: Buffer;
}

export interface CallOptions {
  token?: string;
  /** The client address the API sees (behind TRUST_PROXY): a random one of `clientIp()` by default; null sends none. */
  forwardedFor?: string | null;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** A multipart body instead of JSON. */
  form?: FormData;
}

/** A random client address in `<prefix>.x.y`, so per-address rate limits do not throttle a load run. */
export const clientIp = (prefix = '10.9') => `${prefix}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;

/** One call; never throws on a status (see requestOk). */
export async function request(base: string, method: string, p: string, body?: unknown, opts: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  const forwardedFor = opts.forwardedFor === undefined ? clientIp() : opts.forwardedFor;
  if (forwardedFor) headers['x-forwarded-for'] = forwardedFor;
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  Object.assign(headers, opts.headers);
  const res = await fetch(`${base}${p}`, {
    method,
    headers,
    body: opts.form ?? (body === undefined ? undefined : JSON.stringify(body)),
    ...(opts.timeoutMs ? { signal: AbortSignal.timeout(opts.timeoutMs) } : {}),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  let parsed: any = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, bytes };
}

/** One call that must succeed (2xx): its body, else an error naming the call and the answer. */
export async function requestOk(base: string, method: string, p: string, body?: unknown, opts: CallOptions = {}): Promise<any> {
  const r = await request(base, method, p, body, opts);
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${r.bytes.toString('utf8')}`);
  return r.body;
}

/** Waits for a call and checks its status is one of `ok`. */
export async function expectStatus<R extends { status: number; body: any }>(what: string, r: Promise<R>, ...ok: number[]): Promise<R> {
  const res = await r;
  if (!ok.includes(res.status)) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res;
}

export interface Organization {
  orgId: string;
  token: string;
  email: string;
  password: string;
  tiers: string[];
}

export interface OrganizationOptions {
  /** The organization's name; its owner's e-mail is `<emailPrefix>-<tag>@example.com`. */
  name: string;
  tag: string;
  emailPrefix?: string;
  password?: string;
  user?: { FirstName: string; LastName: string };
  /** Omitted from the sign-up when null. */
  billingCountry?: string | null;
  /** Price tiers to create (USD); each must answer 200 (or 409 with `tierConflictOk`). */
  tiers?: string[];
  tierConflictOk?: boolean;
  call?: CallOptions;
}

/** Signs an organization up, logs its owner in and creates its price tiers. */
export async function setupOrganization(base: string, o: OrganizationOptions): Promise<Organization> {
  const email = `${o.emailPrefix ?? 'bench'}-${o.tag}@example.com`;
  const password = o.password ?? 'bench password 1';
  const user = o.user ?? { FirstName: 'Ben', LastName: 'Chmark' };
  const billingCountry = o.billingCountry === undefined ? 'US' : o.billingCountry;
  const org = await expectStatus(
    'create organization',
    request(base, 'POST', '/api/organizations', { Organization: { Name: o.name, ...(billingCountry ? { BillingCountry: billingCountry } : {}) }, User: { ...user, Email: email, Password: password } }, o.call),
    201,
  );
  const login = await expectStatus('login', request(base, 'POST', '/api/auth/token', { Email: email, Password: password }, o.call), 200);
  const token = login.body.AccessToken as string;
  const tiers = o.tiers ?? ['Retail'];
  for (const t of tiers)
    await expectStatus(`price tier ${t}`, request(base, 'POST', '/api/organizations/price-tiers', { Name: t, CurrencyCode: 'USD' }, { ...o.call, token }), 200, ...(o.tierConflictOk ? [409] : []));
  return { orgId: org.body.OrganizationId as string, token, email, password, tiers };
}
