/**
 * Card payment gateway: the one interface the service uses to talk to a payment provider
 * (ProviderDirect card-on-file charges, refunds, voids; ProviderHosted transaction setups).
 * An adapter: `providerClient(settings)` takes the provider settings it is given (the caller in
 * src/services/integrations/provider-settings.ts `gatewayFor` looks up the organization's
 * Payment integration, else the deployment's PAYMENT_PROVIDER_URL + PAYMENT_PROVIDER_API_KEY);
 * it never reaches up into services.
 *
 * CONTRACT shared by the payments, checkout and invoices work: keep these signatures.
 *
 * Errors: a provider decline (HTTP 402) becomes AppError('payment_required') with
 * `errors.card = [<provider code>]` (card_declined, insufficient_funds, expired_card,
 * invalid_card); a provider 400 becomes a validation AppError; network failures, timeouts
 * and 5xx become a plain Error (`ProviderUnavailableError`, retryable: the idempotency key
 * makes a retry safe). Card numbers and CVVs are sent to the provider once and never logged,
 * stored or put into error messages.
 */
import type { Config } from '../config.js';
import { classifyProviderResponse } from '../domain/payments/provider-errors.js';
import { AppError } from '../errors.js';
import { payments } from '../metrics.js';
import { OutboundError, outboundRequest, type OutboundResponse } from './http-client.js';

export interface CardCharge {
  chargeId: string;
  /** Decimal string, e.g. "99.90". */
  amount: string;
  currency: string;
}

/** A tokenized card as ProviderDirect returns it (never the number). */
export interface CardProfile {
  customerProfileId: string;
  paymentProfileId: string;
  maskedCardNumber: string;
  cardType: string;
  expirationDate: string;
  expMonth: number;
  expYear: number;
  networkTransactionId: string;
}

export interface HostedSetupResult {
  transactionSetupId: string;
  hostedPaymentUrl: string;
  expiresAt: string;
}

/** One charge in the provider's ledger (its settlement report). */
export interface ProviderChargeRecord {
  chargeId: string;
  /** 'approved', 'voided', 'refunded', 'partially_refunded'... as the provider says. */
  status: string;
  amount: string;
  refundedAmount: string;
  currency: string;
  paymentProfileId: string | null;
  reference: string | null;
  idempotencyKey: string;
  createdAt: string;
}

export interface PaymentGateway {
  provider: 'ProviderDirect' | 'ProviderHosted';
  /** The merchant's charges created since `since` (the provider's report; the payment janitor reads it). */
  listCharges(since: Date): Promise<ProviderChargeRecord[]>;
  /** Charges a stored payment profile; the same idempotencyKey never charges twice. Declines throw AppError('payment_required'). */
  chargeProfile(input: { paymentProfileId: string; amount: string; currency: string; idempotencyKey: string; reference?: string }): Promise<CardCharge>;
  /** Tokenizes a card once (never stored) and charges it in one step; used by checkout with a card in the request. */
  chargeCard?(input: {
    customerNumber: string;
    email: string;
    card: { number: string; expMonth: string; expYear: string; cvv: string };
    billingAddress: Record<string, unknown>;
    amount: string;
    currency: string;
    idempotencyKey: string;
    reference?: string;
  }): Promise<CardCharge & { paymentProfileId: string }>;
  /** Refunds part or all of a charge; idempotent per key. */
  refund(input: { chargeId: string; amount: string; idempotencyKey: string }): Promise<{ refundedAmount: string; totalRefundedAmount?: string }>;
  /** Voids a charge (compensation when a later step fails); idempotent per key. */
  void(input: { chargeId: string; idempotencyKey: string }): Promise<void>;
  /** Tokenizes a card (card on file) without charging it. Declines throw AppError('payment_required'). */
  tokenizeCard(input: {
    customerNumber: string;
    email?: string | null;
    card: { number: string; expMonth: string; expYear: string; cvv: string };
    billingAddress?: Record<string, unknown>;
  }): Promise<CardProfile>;
  /** Reads a stored payment profile (masked details, customer profile id, network transaction id). */
  getPaymentProfile(paymentProfileId: string): Promise<CardProfile>;
  /** Creates a hosted-page transaction setup (ProviderHosted protocol). */
  createHostedSetup(input: {
    amount: string;
    currency: string;
    callbackUrl: string;
    returnUrl: string;
    saveCard: boolean;
    customerNumber: string;
    reference?: string | null;
    expiresInSeconds: number;
  }): Promise<HostedSetupResult>;
}

/** Where and how to reach the provider for one organization. */
export interface PaymentProviderSettings {
  provider: 'ProviderDirect' | 'ProviderHosted';
  baseUrl: string;
  apiKey: string;
  /**
   * True for the deployment's own PAYMENT_PROVIDER_URL (operator configuration: its address is
   * not checked); false for an organization's Payment integration Endpoint, which the outbound
   * client checks like any tenant-supplied URL, link-local and metadata refused whatever the flag.
   */
  operatorConfigured: boolean;
}

export function defaultPaymentSettings(config: Config): PaymentProviderSettings {
  return { provider: 'ProviderDirect', baseUrl: config.paymentProviderUrl, apiKey: config.paymentProviderApiKey, operatorConfigured: true };
}

/** The provider refused the service itself (401/403, unknown answer): a configuration problem that no retry fixes. */
export class ProviderRejectedError extends Error {
  readonly retryable = false;
  constructor(message: string) {
    super(message);
    this.name = 'ProviderRejectedError';
  }
}

/** Network failure, timeout or provider 5xx: safe to retry with the same idempotency key. */
export class ProviderUnavailableError extends Error {
  readonly retryable = true;
  constructor(message: string) {
    super(message);
    this.name = 'ProviderUnavailableError';
  }
}

/** Maps a provider answer to a result or one of the gateway's errors (classification in src/domain/payments/provider-errors.ts). */
export function mapProviderResponse<T>(status: number, body: unknown, what: string): T {
  const f = classifyProviderResponse(status, body);
  if (!f) return body as T;
  switch (f.kind) {
    case 'declined':
      throw new AppError('payment_required', f.message, { card: [f.code] });
    case 'not_found':
      throw new AppError('payment_required', f.message, { card: [f.code] });
    case 'invalid':
      throw AppError.validation(f.fields, `The payment provider rejected the request (${f.code}).`);
    case 'conflict':
      throw AppError.conflict(`The payment provider refused the request (${f.code}).`);
    case 'unavailable':
      throw new ProviderUnavailableError(`Payment provider unavailable (${what}: HTTP ${f.status}).`);
    default:
      // 401/403 and the like: a deployment/configuration problem, not the client's fault.
      throw new ProviderRejectedError(`Payment provider rejected ${what}: HTTP ${f.status} (${f.code}).`);
  }
}

/** payment_provider_calls_total's `operation` label for each call (a fixed set: no ids in labels). */
const OPERATIONS: Record<string, string> = {
  'card tokenization': 'tokenize',
  charge: 'charge',
  refund: 'refund',
  void: 'void',
  'charge report': 'charge_report',
  'payment profile lookup': 'profile_lookup',
  'hosted transaction setup': 'hosted_setup',
};

/**
 * The result label of a provider call: succeeded, declined (the card), refused (the provider refused
 * the request as invalid or conflicting), rejected (our credentials or an unusable answer), error
 * (unreachable, 5xx: retried).
 */
export function providerCallResult(e: unknown): 'declined' | 'refused' | 'rejected' | 'error' {
  if (e instanceof ProviderRejectedError) return 'rejected';
  if (e instanceof AppError) return e.kind === 'payment_required' ? 'declined' : e.status < 500 ? 'refused' : 'error';
  return 'error';
}

/** Counts one provider call by operation and result, in whichever process (API or worker) makes it. */
async function counted<T>(what: string, run: Promise<T>): Promise<T> {
  const operation = OPERATIONS[what] ?? 'other';
  try {
    const r = await run;
    payments.inc({ operation, result: 'succeeded' });
    return r;
  } catch (e) {
    payments.inc({ operation, result: providerCallResult(e) });
    throw e;
  }
}

/**
 * The gateway for `settings`, calling out through the one outbound client (addresses and
 * scheme checked for an organization's endpoint, no redirects, connect and total deadlines).
 */
export function providerClient(settings: PaymentProviderSettings, network: { allowPrivateNetworks: boolean }, timeoutMs = 15_000): PaymentGateway {
  const base = settings.baseUrl.replace(/\/+$/, '');
  const send = <T>(method: 'GET' | 'POST', path: string, body: unknown, what: string): Promise<T> => counted(what, call<T>(method, path, body, what));
  const call = async <T>(method: 'GET' | 'POST', path: string, body: unknown, what: string): Promise<T> => {
    if (!base) throw new ProviderUnavailableError('No payment provider is configured (PAYMENT_PROVIDER_URL).');
    let res: OutboundResponse;
    try {
      res = await outboundRequest(`${base}${path}`, {
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${settings.apiKey}` },
        body: method === 'POST' ? JSON.stringify(body) : undefined,
        timeoutMs,
        maxBytes: 256 * 1024,
        allowPrivateNetworks: network.allowPrivateNetworks,
        operatorConfigured: settings.operatorConfigured,
      });
    } catch (e) {
      // Never include the request (it may hold a card number) nor anything the remote side said.
      if (e instanceof OutboundError) throw new ProviderUnavailableError(`Payment provider unreachable (${what}).`);
      throw e;
    }
    const text = res.body.toString('utf8');
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      if (res.status >= 200 && res.status < 300) throw new ProviderUnavailableError(`Payment provider answered ${what} with a non-JSON body.`);
    }
    return mapProviderResponse<T>(res.status, parsed, what);
  };
  const post = <T>(path: string, body: unknown, what: string) => send<T>('POST', path, body, what);

  const tokenizeCard: PaymentGateway['tokenizeCard'] = (input) =>
    post<CardProfile>(
      '/direct/customer-profiles',
      {
        customerNumber: input.customerNumber,
        email: input.email ?? null,
        card: { number: input.card.number, expMonth: input.card.expMonth, expYear: input.card.expYear, cvv: input.card.cvv },
        billingAddress: input.billingAddress ?? null,
      },
      'card tokenization',
    );

  const chargeProfile: PaymentGateway['chargeProfile'] = async (input) => {
    const r = await post<{ chargeId: string; amount: string; currency: string }>(
      '/direct/charges',
      {
        paymentProfileId: input.paymentProfileId,
        amount: input.amount,
        currency: input.currency,
        idempotencyKey: input.idempotencyKey,
        reference: input.reference ?? null,
      },
      'charge',
    );
    return { chargeId: r.chargeId, amount: r.amount, currency: r.currency };
  };

  return {
    provider: settings.provider,
    tokenizeCard,
    chargeProfile,
    async listCharges(since) {
      const r = await send<{ charges: ProviderChargeRecord[] }>('GET', `/direct/charges?since=${encodeURIComponent(since.toISOString())}`, undefined, 'charge report');
      return r.charges;
    },
    async chargeCard(input) {
      const profile = await tokenizeCard({ customerNumber: input.customerNumber, email: input.email, card: input.card, billingAddress: input.billingAddress });
      const charge = await chargeProfile({
        paymentProfileId: profile.paymentProfileId,
        amount: input.amount,
        currency: input.currency,
        idempotencyKey: input.idempotencyKey,
        reference: input.reference,
      });
      return { ...charge, paymentProfileId: profile.paymentProfileId };
    },
    async refund(input) {
      const r = await post<{ refundedAmount: string }>(
        `/direct/charges/${encodeURIComponent(input.chargeId)}/refund`,
        { amount: input.amount, idempotencyKey: input.idempotencyKey },
        'refund',
      );
      // refundedAmount: this refund; totalRefundedAmount: the provider's running total for the charge.
      return { refundedAmount: input.amount, totalRefundedAmount: r.refundedAmount };
    },
    async void(input) {
      await post(`/direct/charges/${encodeURIComponent(input.chargeId)}/void`, { idempotencyKey: input.idempotencyKey }, 'void');
    },
    getPaymentProfile: (paymentProfileId) =>
      send<CardProfile>('GET', `/direct/payment-profiles/${encodeURIComponent(paymentProfileId)}`, undefined, 'payment profile lookup'),
    createHostedSetup: async (input) =>
      hostedPageChecked(await post<HostedSetupResult>(
        '/hosted/transaction-setup',
        {
          amount: input.amount,
          currency: input.currency,
          callbackUrl: input.callbackUrl,
          returnUrl: input.returnUrl,
          saveCard: input.saveCard,
          customerNumber: input.customerNumber,
          reference: input.reference ?? null,
          expiresInSeconds: input.expiresInSeconds,
        },
        'hosted transaction setup',
      )),
  };
}

/** The hosted page URL goes back to the caller as a redirect: only an http(s) URL is passed on. */
function hostedPageChecked(r: HostedSetupResult): HostedSetupResult {
  let ok = false;
  try {
    ok = ['https:', 'http:'].includes(new URL(r.hostedPaymentUrl).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw new ProviderRejectedError('Payment provider answered the hosted transaction setup without a usable page URL.');
  return r;
}
