/**
 * One typed configuration, read from the environment once and validated at start.
 * Every process (API, worker, provider sandbox) reads the same shape; missing
 * required values fail fast with a message naming every missing variable.
 */
import { normalizeOrigin } from './domain/organizations/return-url.js';
import { parseTrustProxy, type TrustProxy } from './domain/network/trust-proxy.js';
import { DEFAULT_SCRYPT_N } from './domain/auth/secrets.js';

export interface Config {
  /** Name printed in logs: "api", "sandbox-api", "worker". */
  serviceName: string;
  port: number;
  /** Public base URL of this API (links, e-mail links, callback URLs). */
  publicBaseUrl: string;
  /** `production` or `sandbox` (ENVIRONMENT): which deployment this process is. */
  environment: 'production' | 'sandbox';
  /**
   * Public base URLs of the deployment's production and sandbox APIs (PRODUCTION_BASE_URL,
   * SANDBOX_BASE_URL), named in the OpenAPI document's `servers`; this process's own is publicBaseUrl.
   */
  environmentUrls: { production?: string; sandbox?: string };
  databaseUrl: string;
  /**
   * A streaming replica of databaseUrl (DATABASE_REPLICA_URL) that the API's list, analytics, statement,
   * timeline and export reads use when it has caught up (src/db/replica.ts); `waitMs`
   * (REPLICA_READ_WAIT_MS) is how long a read waits for it before reading the primary.
   */
  replica?: { url: string; waitMs: number; downMs: number };
  temporal: { address: string; namespace: string; taskQueuePrefix: string };
  s3: {
    endPoint: string;
    port: number;
    useSSL: boolean;
    accessKey: string;
    secretKey: string;
    bucket: string;
    /** Base URL browsers load public objects from (S3_PUBLIC_URL, default S3_ENDPOINT), without trailing slash. */
    publicUrl: string;
  };
  images: {
    /** Largest accepted image (upload or download), bytes; 20 MB by contract. */
    maxBytes: number;
    /** Per-download timeout. */
    fetchTimeoutMs: number;
  };
  smtpUrl: string;
  mailFrom: string;
  /** HMAC key for access tokens (at least 32 characters). */
  jwtSecret: string;
  tokenTtlSeconds: number;
  /** AES-256-GCM keys for secrets at rest, `id:base64key` comma separated; the first one encrypts. */
  encryptionKeys: string;
  /** Storefront origins every organization's hosted payments may return to (ALLOWED_RETURN_ORIGINS, comma-separated), besides publicBaseUrl and the organization's own list. */
  allowedReturnOrigins: string[];
  /** Browser origins allowed to call the API cross-origin (CORS_ORIGINS, comma-separated); none by default. */
  corsOrigins: string[];
  /** How much of X-Forwarded-For to trust (TRUST_PROXY: hop count or proxy addresses); none by default. */
  trustProxy: TrustProxy;
  /** Per minute: logins per ClientId or e-mail, logins per client IP, public calls per IP. */
  rateLimits: { loginPerMinute: number; loginPerIpPerMinute: number; publicPerMinute: number };
  /**
   * Seconds an entry of the read cache (credential versions, claims, API keys, price tiers) may be served at most;
   * entries are dropped at once by NOTIFY when their rows change, this only bounds a missed notification.
   */
  credentialCacheSeconds: number;
  /** scrypt N of new password and ClientSecret hashes (PASSWORD_HASH_COST, a power of two from 2^10 to 2^20; default 2^17). */
  passwordHashCost: number;
  paymentProviderUrl: string;
  /** The deployment's API key at the default payment provider (Bearer); per deployment, never logged. */
  paymentProviderApiKey: string;
  /** Shared secret the provider sandbox uses to sign hosted-payment callbacks. */
  providerCallbackSecret: string;
  workerConcurrency: Record<string, number>;
  /** Hosted-payment setup expiry; 10 minutes by contract, shortened in tests. */
  hostedPaymentExpirySeconds: number;
  /** Test-only: a workflow sleep between the checkout charge and the order write (0 = none). */
  /** How long complete-checkout waits for the checkout workflow's result. */
  checkoutWaitMs: number;
  /**
   * Dunning of unpaid invoices (docs/credit.md): reminder offsets in days from the due date
   * (DUNNING_REMINDER_OFFSETS_DAYS, default -7,0,7,14), the credit hold after DUNNING_HOLD_AFTER_DAYS
   * (30); tests shorten a day (DUNNING_DAY_SECONDS) and put the due date DUNNING_DUE_AFTER_SECONDS
   * after the workflow starts instead of the invoice's due date.
   */
  dunning: { reminderOffsetsDays: number[]; holdAfterDays: number; dayMs: number; dueAfterSeconds: number | null };
  /** Days a Draft commission statement waits before (each) reminder e-mail to the admins (COMMISSION_APPROVAL_REMINDER_DAYS, default 3). */
  commissionApprovalReminderDays: number;
  /** Tests: seconds instead of days between commission approval reminders (COMMISSION_APPROVAL_REMINDER_SECONDS). */
  commissionApprovalReminderSeconds: number | null;
  /** Test-only: a pause inside statement generation before its write (0 = none), to kill a worker mid-generation. */
  commissionGenerationPauseMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Outbound calls (webhooks, integration tests) may reach private, loopback and link-local addresses and plain http (dev, tests). */
  outboundAllowPrivateNetworks: boolean;
  webhooks: {
    /** Multiplies the retry schedule (1 in production; tests shrink it). */
    retryScale: number;
    /** How often the dispatcher's claim looks at the outbox while it is empty. */
    dispatchIntervalMs: number;
    /** How long one claim waits for work inside its activity before it answers none (at most 20 s: the claim's attempt timeout is 30 s). */
    claimWaitMs: number;
  };
  /** Company-document storage quota per organization, bytes (default 5 GiB). */
  documentQuotaBytes: number;
  /** Quotes (docs/quotes.md): validity of an offer without expiresAt, and the reminder to the buyer before expiry (durations, milliseconds). */
  quotes: { defaultValidityMs: number; reminderBeforeMs: number };
  /** Buyer approvals (docs/approvals.md): escalation after no answer, expiry of the request (milliseconds). */
  approvals: { escalationMs: number; expiryMs: number };
  /** Fulfillment (docs/fulfillment.md): how long a Shipped order waits for its deliveries before it completes (FULFILLMENT_AUTO_COMPLETE_DAYS, default 14 days; a duration). */
  fulfillment: {
    autoCompleteMs: number;
    /** The length of one day of an organization's `backorderEscalationDays` (BACKORDER_ESCALATION_DAY, default 1 day; a duration; shortened on the test stack). */
    escalationDayMs: number;
  };
  /** Returns (docs/returns.md "Returns"): how long a Requested return waits before staff get a reminder e-mail (RETURN_REMINDER_AFTER, default 48 hours), and how long Approved goods may take to arrive before the return expires (RETURN_EXPIRY_DAYS, default 30 days; durations). */
  returns: { reminderAfterMs: number; expiryMs: number };
  /**
   * Bounds on every call to a dependency (issue 21): waiting for a pooled PostgreSQL connection,
   * one statement (client-side read timeout and server-side statement_timeout), one Temporal
   * client call, one object-storage request. A call past its bound answers 503 with Retry-After.
   */
  timeouts: { dbAcquireMs: number; dbStatementMs: number; temporalCallMs: number; storageRequestMs: number };
  /** SIGTERM: how long the API drains in-flight requests, and a worker lets running activities finish (shutdownGraceTime). */
  shutdownGraceMs: number;
  /**
   * SIGTERM: how long the API keeps accepting connections before it closes its listening socket.
   * Connections waiting in the kernel's listen backlog (a busy event loop had not accepted them
   * yet) would otherwise be reset; a load balancer also keeps routing for a moment after SIGTERM.
   */
  shutdownAcceptMs: number;
  /**
   * How long an Idempotency-Key claimed by a request that never answered (its API process killed,
   * its database restarted mid-request) blocks the key; after it the next request with the same key
   * and body runs (src/http/idempotency.ts). Longer than any request can take (every dependency call
   * is bounded, see `timeouts`; SIGTERM drains within `shutdownGraceMs`).
   */
  idempotencyClaimLeaseMs: number;
  /**
   * Authenticated requests per minute: per organization (unless the organization has its own limit),
   * split between classes of caller (`shares`, percentages of the organization's limit: buyers =
   * Customer users, staff = Admin and SalesRep users, api = API keys and client tokens), and per
   * credential (at most `credentialShare` percent of the organization's limit and `perCredentialPerMinute`).
   */
  tenantRateLimits: {
    perOrganizationPerMinute: number;
    perCredentialPerMinute: number;
    shares: { buyers: number; staff: number; api: number };
    credentialShare: number;
    /**
     * Pacing inside each API process: an organization's requests may run at once up to this many
     * seconds of its average rate (its per-minute limit / 60, at least 10 requests); beyond that
     * burst they wait for their turn at that rate.
     */
    burstSeconds: number;
    /**
     * The longest a paced request waits for its turn; a request whose turn is further away, or of a
     * caller already over its per-minute limit, is held this long and then answered 429 (a client
     * that ignores Retry-After cannot spend the API's CPU on refusals).
     */
    maxWaitMs: number;
  };
  /** The payment janitor: how many days of provider charges it compares, how old a charge must be, how often the schedule runs. */
  janitor: { lookbackDays: number; minAgeSeconds: number; everyMinutes: number };
  /** AES-256-GCM keys of the Temporal payload codec (PAYLOAD_CODEC_KEYS, `id:base64key,...`); empty = payloads unencrypted. */
  payloadCodecKeys: string;
  /**
   * Operations port (OPS_PORT): /metrics, /health, /ready and the Temporal codec endpoint, for the
   * internal network only (not the public API port); null = not served. The API answers /health and
   * /ready on its public port too.
   */
  opsPort: number | null;
  /** Worker only: where the Temporal SDK's own Prometheus exporter listens (TEMPORAL_METRICS_PORT, 127.0.0.1); the ops /metrics includes it. */
  temporalMetricsPort: number | null;
  /**
   * Address the ops port listens on (OPS_BIND, default 127.0.0.1: the host's own scrapers and probes
   * only). Any other address needs OPS_TOKEN (the process refuses to start without it).
   */
  opsBind: string;
  /** Bearer token every ops path but /health requires when set (OPS_TOKEN, 16+ characters); unset only on a loopback bind. */
  opsToken: string;
  /** Origin allowed to call the ops codec endpoint from a browser (OPS_CORS_ORIGIN, the Temporal Web UI's origin). */
  opsCorsOrigin: string;
}

type Env = Record<string, string | undefined>;

/** Whether an ops bind address reaches only this host (127.0.0.0/8, ::1, localhost). */
export function isLoopbackBind(address: string): boolean {
  const a = address.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return a === 'localhost' || a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

export function loadConfig(env: Env = process.env, serviceName = 'api'): Config {
  const missing: string[] = [];
  const need = (name: string): string => {
    const v = env[name];
    if (v === undefined || v === '') {
      missing.push(name);
      return '';
    }
    return v;
  };
  const int = (name: string, dflt: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) {
      missing.push(`${name} (not a whole number: ${raw})`);
      return dflt;
    }
    return n;
  };
  const offsets = (name: string, dflt: number[]): number[] => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return dflt;
    const list = raw.split(',').map((x) => Number(x.trim()));
    if (list.some((n) => !Number.isInteger(n))) {
      missing.push(`${name} (not a comma-separated list of whole days: ${raw})`);
      return dflt;
    }
    return list;
  };
  /** A whole number of at most `max` (a bound another setting depends on, e.g. an activity's attempt timeout). */
  const intAtMost = (name: string, dflt: number, max: number): number => {
    const n = int(name, dflt);
    if (n <= max) return n;
    missing.push(`${name} (at most ${max}: ${n})`);
    return dflt;
  };
  const positiveNumber = (name: string, dflt: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return dflt;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) {
      missing.push(`${name} (not a positive number: ${raw})`);
      return dflt;
    }
    return n;
  };
  /** A duration: a number in `unit`, or a number with a unit (`500ms`, `5s`, `5 seconds`, `2 minutes`, `3h`, `30 days`). */
  const duration = (name: string, dflt: string, unit: 'hours' | 'days' = 'hours'): number => {
    const parsed = parseDuration(env[name] || dflt, unit);
    if (parsed === null) {
      missing.push(`${name} (not a duration: ${env[name]})`);
      return parseDuration(dflt, unit) ?? 0;
    }
    return parsed;
  };
  /** A whole percentage from 1 to 100. */
  const percent = (name: string, dflt: number): number => {
    const n = int(name, dflt);
    if (n >= 1 && n <= 100) return n;
    missing.push(`${name} (a percentage from 1 to 100: ${n})`);
    return dflt;
  };
  /** scrypt N: a power of two, at least 2^10 (tests) and at most 2^20 (what a stored hash may ask for). */
  const hashCost = (): number => {
    const n = int('PASSWORD_HASH_COST', DEFAULT_SCRYPT_N);
    if (n >= 2 ** 10 && n <= 2 ** 20 && (n & (n - 1)) === 0) return n;
    missing.push(`PASSWORD_HASH_COST (a power of two from 1024 to 1048576: ${n})`);
    return DEFAULT_SCRYPT_N;
  };
  const port = int('PORT', 3000);
  const s3Endpoint = new URL(need('S3_ENDPOINT') || 'http://invalid');
  const config: Config = {
    serviceName,
    port,
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${port}`).replace(/\/$/, ''),
    environment: env.ENVIRONMENT === 'sandbox' ? 'sandbox' : 'production',
    environmentUrls: {
      ...(env.PRODUCTION_BASE_URL ? { production: env.PRODUCTION_BASE_URL.replace(/\/+$/, '') } : {}),
      ...(env.SANDBOX_BASE_URL ? { sandbox: env.SANDBOX_BASE_URL.replace(/\/+$/, '') } : {}),
    },
    databaseUrl: need('DATABASE_URL'),
    ...(env.DATABASE_REPLICA_URL ? { replica: { url: env.DATABASE_REPLICA_URL, waitMs: int('REPLICA_READ_WAIT_MS', 100), downMs: int('REPLICA_RETRY_MS', 5_000) } } : {}),
    temporal: {
      address: need('TEMPORAL_ADDRESS'),
      namespace: env.TEMPORAL_NAMESPACE ?? 'default',
      taskQueuePrefix: env.TEMPORAL_TASK_QUEUE_PREFIX ?? '',
    },
    s3: {
      endPoint: s3Endpoint.hostname,
      port: Number(s3Endpoint.port || (s3Endpoint.protocol === 'https:' ? 443 : 80)),
      useSSL: s3Endpoint.protocol === 'https:',
      accessKey: need('S3_ACCESS_KEY'),
      secretKey: need('S3_SECRET_KEY'),
      bucket: need('S3_BUCKET'),
      publicUrl: (env.S3_PUBLIC_URL || env.S3_ENDPOINT || '').replace(/\/+$/, ''),
    },
    images: {
      maxBytes: int('IMAGE_MAX_BYTES', 20 * 1024 * 1024),
      fetchTimeoutMs: int('IMAGE_FETCH_TIMEOUT_MS', 30_000),
    },
    smtpUrl: need('SMTP_URL'),
    mailFrom: env.MAIL_FROM ?? 'B2B Commerce <no-reply@commerce.local>',
    jwtSecret: need('JWT_SECRET'),
    tokenTtlSeconds: int('TOKEN_TTL_SECONDS', 86400),
    encryptionKeys: need('ENCRYPTION_KEYS'),
    allowedReturnOrigins: [],
    corsOrigins: [],
    trustProxy: { hops: 0 },
    rateLimits: {
      loginPerMinute: int('RATE_LIMIT_LOGIN_PER_MINUTE', 10),
      loginPerIpPerMinute: int('RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE', 30),
      publicPerMinute: int('RATE_LIMIT_PUBLIC_PER_MINUTE', 10),
    },
    credentialCacheSeconds: int('CREDENTIAL_CACHE_SECONDS', 300),
    passwordHashCost: hashCost(),
    paymentProviderUrl: env.PAYMENT_PROVIDER_URL ?? '',
    paymentProviderApiKey: env.PAYMENT_PROVIDER_API_KEY ?? '',
    providerCallbackSecret: env.PROVIDER_CALLBACK_SECRET ?? '',
    workerConcurrency: {
      commerce: int('WORKER_CONCURRENCY_COMMERCE', 20),
      media: int('WORKER_CONCURRENCY_MEDIA', 4),
      imports: int('WORKER_CONCURRENCY_IMPORTS', 2),
      mail: int('WORKER_CONCURRENCY_MAIL', 20),
    },
    hostedPaymentExpirySeconds: int('HOSTED_PAYMENT_EXPIRY_SECONDS', 600),
    checkoutWaitMs: int('CHECKOUT_WAIT_MS', 60_000),
    dunning: {
      reminderOffsetsDays: offsets('DUNNING_REMINDER_OFFSETS_DAYS', [-7, 0, 7, 14]),
      holdAfterDays: int('DUNNING_HOLD_AFTER_DAYS', 30),
      dayMs: Math.round(positiveNumber('DUNNING_DAY_SECONDS', 86_400) * 1000),
      dueAfterSeconds: env.DUNNING_DUE_AFTER_SECONDS ? int('DUNNING_DUE_AFTER_SECONDS', 0) : null,
    },
    commissionApprovalReminderDays: int('COMMISSION_APPROVAL_REMINDER_DAYS', 3),
    commissionApprovalReminderSeconds: env.COMMISSION_APPROVAL_REMINDER_SECONDS ? int('COMMISSION_APPROVAL_REMINDER_SECONDS', 0) : null,
    commissionGenerationPauseMs: int('COMMISSION_GENERATION_PAUSE_MS', 0),
    outboundAllowPrivateNetworks: env.OUTBOUND_ALLOW_PRIVATE_NETWORKS === 'true',
    webhooks: { retryScale: positiveNumber('WEBHOOK_RETRY_SCALE', 1), dispatchIntervalMs: int('WEBHOOK_DISPATCH_INTERVAL_MS', 1000), claimWaitMs: intAtMost('WEBHOOK_CLAIM_WAIT_MS', 20_000, 20_000) },
    documentQuotaBytes: int('DOCUMENT_QUOTA_BYTES', 5 * 1024 * 1024 * 1024),
    quotes: { defaultValidityMs: duration('QUOTE_VALIDITY', '30 days'), reminderBeforeMs: duration('QUOTE_REMINDER_BEFORE', '2 days') },
    approvals: { escalationMs: duration('APPROVAL_ESCALATION_HOURS', '48', 'hours'), expiryMs: duration('APPROVAL_EXPIRY_DAYS', '14', 'days') },
    fulfillment: { autoCompleteMs: duration('FULFILLMENT_AUTO_COMPLETE_DAYS', '14', 'days'), escalationDayMs: duration('BACKORDER_ESCALATION_DAY', '1', 'days') },
    returns: { reminderAfterMs: duration('RETURN_REMINDER_AFTER', '48', 'hours'), expiryMs: duration('RETURN_EXPIRY_DAYS', '30', 'days') },
    timeouts: {
      dbAcquireMs: int('DB_ACQUIRE_TIMEOUT_MS', 5_000),
      dbStatementMs: int('DB_STATEMENT_TIMEOUT_MS', serviceName.endsWith('worker') ? 300_000 : 15_000),
      temporalCallMs: int('TEMPORAL_CALL_TIMEOUT_MS', 10_000),
      storageRequestMs: int('S3_REQUEST_TIMEOUT_MS', 15_000),
    },
    shutdownGraceMs: int('SHUTDOWN_GRACE_MS', 25_000),
    shutdownAcceptMs: int('SHUTDOWN_ACCEPT_MS', 1_000),
    idempotencyClaimLeaseMs: int('IDEMPOTENCY_CLAIM_LEASE_SECONDS', 60) * 1000,
    janitor: {
      lookbackDays: int('JANITOR_LOOKBACK_DAYS', 3),
      minAgeSeconds: int('JANITOR_MIN_AGE_SECONDS', 900),
      everyMinutes: int('JANITOR_EVERY_MINUTES', 60),
    },
    tenantRateLimits: {
      perOrganizationPerMinute: int('RATE_LIMIT_ORGANIZATION_PER_MINUTE', 30_000),
      perCredentialPerMinute: int('RATE_LIMIT_CREDENTIAL_PER_MINUTE', 6_000),
      shares: { buyers: percent('RATE_LIMIT_SHARE_BUYERS', 30), staff: percent('RATE_LIMIT_SHARE_STAFF', 20), api: percent('RATE_LIMIT_SHARE_API', 50) },
      credentialShare: percent('RATE_LIMIT_CREDENTIAL_SHARE', 20),
      burstSeconds: int('RATE_LIMIT_BURST_SECONDS', 2),
      maxWaitMs: int('RATE_LIMIT_MAX_WAIT_MS', 1_000),
    },
    payloadCodecKeys: env.PAYLOAD_CODEC_KEYS ?? '',
    opsPort: env.OPS_PORT ? int('OPS_PORT', 0) : null,
    temporalMetricsPort: env.TEMPORAL_METRICS_PORT ? int('TEMPORAL_METRICS_PORT', 0) : null,
    opsBind: env.OPS_BIND || '127.0.0.1',
    opsToken: env.OPS_TOKEN ?? '',
    opsCorsOrigin: env.OPS_CORS_ORIGIN ?? '',
    logLevel: (['debug', 'info', 'warn', 'error'].includes(env.LOG_LEVEL ?? '') ? env.LOG_LEVEL : 'info') as Config['logLevel'],
  };
  for (const raw of (env.ALLOWED_RETURN_ORIGINS ?? '').split(',').filter((x) => x.trim())) {
    const origin = normalizeOrigin(raw);
    if (origin) config.allowedReturnOrigins.push(origin);
    else missing.push(`ALLOWED_RETURN_ORIGINS (not an http(s) origin: ${raw.trim()})`);
  }
  for (const raw of (env.CORS_ORIGINS ?? '').split(',').filter((x) => x.trim())) {
    const origin = normalizeOrigin(raw);
    if (origin) config.corsOrigins.push(origin);
    else missing.push(`CORS_ORIGINS (not an http(s) origin: ${raw.trim()})`);
  }
  const trust = parseTrustProxy(env.TRUST_PROXY);
  if (typeof trust === 'string') missing.push(trust);
  else config.trustProxy = trust;
  if (config.jwtSecret && config.jwtSecret.length < 32) missing.push('JWT_SECRET (at least 32 characters)');
  const shares = config.tenantRateLimits.shares;
  if (shares.buyers + shares.staff + shares.api > 100) missing.push(`RATE_LIMIT_SHARE_BUYERS + RATE_LIMIT_SHARE_STAFF + RATE_LIMIT_SHARE_API (at most 100: ${shares.buyers + shares.staff + shares.api})`);
  if (config.opsToken && config.opsToken.length < 16) missing.push('OPS_TOKEN (at least 16 characters)');
  if (config.opsPort !== null && !isLoopbackBind(config.opsBind) && !config.opsToken)
    missing.push(`OPS_TOKEN (required when the ops port listens beyond loopback, OPS_BIND=${config.opsBind})`);
  if (missing.length) throw new Error(`Configuration incomplete: ${missing.join(', ')}`);
  return config;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `48` (in `unit`), `5s`, `5 seconds`, `2 minutes`, `3h`, `30 days`, `500ms` -> milliseconds; null when unreadable. */
export function parseDuration(raw: string, unit: 'hours' | 'days' = 'hours'): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)?\s*$/i.exec(raw);
  if (!m) return null;
  const u = (m[2] ?? unit).toLowerCase();
  const key = u.startsWith('ms') || u.startsWith('milli') ? 'ms' : u[0];
  return Math.round(Number(m[1]) * UNIT_MS[key]);
}

/** Task queue names by kind of work; a prefix lets the sandbox share a Temporal cluster. */
export function taskQueue(config: Config, kind: 'commerce' | 'media' | 'imports' | 'mail'): string {
  return `${config.temporal.taskQueuePrefix}${kind}`;
}
