/**
 * One typed configuration, read from the environment once and validated at start.
 * Every process (API, worker, provider sandbox) reads the same shape; missing
 * required values fail fast with a message naming every missing variable.
 */
import { normalizeOrigin } from './domain/organizations/return-url.js';
import { parseTrustProxy, type TrustProxy } from './http/client-ip.js';

export interface Config {
  /** Name printed in logs: "api", "sandbox-api", "worker". */
  serviceName: string;
  port: number;
  /** Public base URL of this API (links, e-mail links, callback URLs). */
  publicBaseUrl: string;
  databaseUrl: string;
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
  /** How much of X-Forwarded-For to trust (TRUST_PROXY: hop count or proxy addresses); none by default. */
  trustProxy: TrustProxy;
  /** Per minute: logins per ClientId or e-mail, logins per client IP, public calls per IP. */
  rateLimits: { loginPerMinute: number; loginPerIpPerMinute: number; publicPerMinute: number };
  /** Seconds a credential-version lookup may be served from the in-process cache. */
  credentialCacheSeconds: number;
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
  /** When set, the issuance workflow waits this long before the reminder instead of until the due date (tests). */
  invoiceReminderDelayOverrideSeconds: number | null;
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
    /** How long the dispatcher sleeps when the outbox is empty. */
    dispatchIntervalMs: number;
  };
  /** Company-document storage quota per organization, bytes (default 5 GiB). */
  documentQuotaBytes: number;
}

type Env = Record<string, string | undefined>;

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
  const port = int('PORT', 3000);
  const s3Endpoint = new URL(need('S3_ENDPOINT') || 'http://invalid');
  const config: Config = {
    serviceName,
    port,
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${port}`).replace(/\/$/, ''),
    databaseUrl: need('DATABASE_URL'),
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
    trustProxy: { hops: 0 },
    rateLimits: {
      loginPerMinute: int('RATE_LIMIT_LOGIN_PER_MINUTE', 10),
      loginPerIpPerMinute: int('RATE_LIMIT_LOGIN_PER_IP_PER_MINUTE', 30),
      publicPerMinute: int('RATE_LIMIT_PUBLIC_PER_MINUTE', 10),
    },
    credentialCacheSeconds: int('CREDENTIAL_CACHE_SECONDS', 5),
    paymentProviderUrl: env.PAYMENT_PROVIDER_URL ?? '',
    paymentProviderApiKey: env.PAYMENT_PROVIDER_API_KEY ?? '',
    providerCallbackSecret: env.PROVIDER_CALLBACK_SECRET ?? '',
    workerConcurrency: {
      commerce: int('WORKER_CONCURRENCY_COMMERCE', 20),
      media: int('WORKER_CONCURRENCY_MEDIA', 4),
      imports: int('WORKER_CONCURRENCY_IMPORTS', 2),
    },
    hostedPaymentExpirySeconds: int('HOSTED_PAYMENT_EXPIRY_SECONDS', 600),
    checkoutWaitMs: int('CHECKOUT_WAIT_MS', 60_000),
    invoiceReminderDelayOverrideSeconds: env.INVOICE_REMINDER_DELAY_OVERRIDE_SECONDS ? int('INVOICE_REMINDER_DELAY_OVERRIDE_SECONDS', 0) : null,
    commissionApprovalReminderDays: int('COMMISSION_APPROVAL_REMINDER_DAYS', 3),
    commissionApprovalReminderSeconds: env.COMMISSION_APPROVAL_REMINDER_SECONDS ? int('COMMISSION_APPROVAL_REMINDER_SECONDS', 0) : null,
    commissionGenerationPauseMs: int('COMMISSION_GENERATION_PAUSE_MS', 0),
    outboundAllowPrivateNetworks: env.OUTBOUND_ALLOW_PRIVATE_NETWORKS === 'true',
    webhooks: { retryScale: positiveNumber('WEBHOOK_RETRY_SCALE', 1), dispatchIntervalMs: int('WEBHOOK_DISPATCH_INTERVAL_MS', 1000) },
    documentQuotaBytes: int('DOCUMENT_QUOTA_BYTES', 5 * 1024 * 1024 * 1024),
    logLevel: (['debug', 'info', 'warn', 'error'].includes(env.LOG_LEVEL ?? '') ? env.LOG_LEVEL : 'info') as Config['logLevel'],
  };
  for (const raw of (env.ALLOWED_RETURN_ORIGINS ?? '').split(',').filter((x) => x.trim())) {
    const origin = normalizeOrigin(raw);
    if (origin) config.allowedReturnOrigins.push(origin);
    else missing.push(`ALLOWED_RETURN_ORIGINS (not an http(s) origin: ${raw.trim()})`);
  }
  const trust = parseTrustProxy(env.TRUST_PROXY);
  if (typeof trust === 'string') missing.push(trust);
  else config.trustProxy = trust;
  if (config.jwtSecret && config.jwtSecret.length < 32) missing.push('JWT_SECRET (at least 32 characters)');
  if (missing.length) throw new Error(`Configuration incomplete: ${missing.join(', ')}`);
  return config;
}

/** Task queue names by kind of work; a prefix lets the sandbox share a Temporal cluster. */
export function taskQueue(config: Config, kind: 'commerce' | 'media' | 'imports'): string {
  return `${config.temporal.taskQueuePrefix}${kind}`;
}
