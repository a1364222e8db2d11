/**
 * The provider sandbox's state, in memory: payment profiles, charges, the idempotent replies, hosted
 * setups and the ledger tests read; the views of them the routes answer with.
 */
import { randomUUID } from 'node:crypto';
import type { CardType } from '../../src/domain/payments/cards.js';
import type { CallbackFields } from '../../src/domain/payments/callback-signature.js';
import { expirationMMYY, formatCents } from './cards.js';
import { digits, HttpError, id } from './http.js';

export interface SandboxOptions {
  callbackSecret: string;
  publicUrl: string;
  log?: (msg: string, fields: Record<string, unknown>) => void;
}

export type Provider = 'ProviderDirect' | 'ProviderHosted';

export interface PaymentProfile {
  customerProfileId: string;
  paymentProfileId: string;
  customerNumber: string | null;
  email: string | null;
  maskedCardNumber: string;
  cardType: CardType;
  lastFour: string;
  expMonth: number;
  expYear: number;
  networkTransactionId: string;
  provider: Provider;
  merchant: string | null;
  createdAt: string;
}

export interface Charge {
  chargeId: string;
  status: 'approved' | 'voided' | 'refunded';
  amountCents: bigint;
  refundedCents: bigint;
  currency: string;
  paymentProfileId: string | null;
  reference: string | null;
  description: string | null;
  idempotencyKey: string;
  provider: Provider;
  merchant: string | null;
  createdAt: string;
}

export interface LedgerEntry {
  id: string;
  kind: 'charge' | 'void' | 'refund';
  provider: Provider;
  chargeId: string;
  amount: string;
  currency: string;
  idempotencyKey: string;
  reference: string | null;
  paymentProfileId: string | null;
  status: string;
  merchant: string | null;
  createdAt: string;
}

export interface StoredReply {
  fingerprint: string;
  status: number;
  body: unknown;
}

export interface CallbackDelivery {
  at: string;
  status: number | null;
  location: string | null;
  error: string | null;
}

export interface HostedSetup {
  transactionSetupId: string;
  amountCents: bigint;
  currency: string;
  reference: string | null;
  customerNumber: string | null;
  returnUrl: string | null;
  callbackUrl: string;
  saveCard: boolean;
  expiresAt: Date;
  createdAt: string;
  merchant: string | null;
  state: 'pending' | 'completed';
  callback: CallbackFields | null;
  deliveries: CallbackDelivery[];
}

export type SandboxState = ReturnType<typeof createSandboxState>;

export function createSandboxState(opts: SandboxOptions) {
  const log = opts.log ?? (() => undefined);
  const publicUrl = opts.publicUrl.replace(/\/+$/, '');
  const profiles = new Map<string, PaymentProfile>();
  const customerProfiles = new Map<string, string>(); // merchant|customerNumber -> customerProfileId
  const charges = new Map<string, Charge>();
  const replies = new Map<string, StoredReply>(); // merchant|operation|idempotencyKey -> first reply
  const setups = new Map<string, HostedSetup>();
  const ledger: LedgerEntry[] = [];

  const addLedger = (e: Omit<LedgerEntry, 'id' | 'createdAt'>) => {
    const entry = { id: id('le'), createdAt: new Date().toISOString(), ...e };
    ledger.push(entry);
    return entry;
  };

  const chargeView = (c: Charge) => ({
    chargeId: c.chargeId,
    status: c.status,
    amount: formatCents(c.amountCents),
    currency: c.currency,
    refundedAmount: formatCents(c.refundedCents),
    paymentProfileId: c.paymentProfileId,
    reference: c.reference,
    idempotencyKey: c.idempotencyKey,
    createdAt: c.createdAt,
  });

  const profileView = (p: PaymentProfile) => ({
    customerProfileId: p.customerProfileId,
    paymentProfileId: p.paymentProfileId,
    maskedCardNumber: p.maskedCardNumber,
    cardType: p.cardType,
    expirationDate: expirationMMYY(p.expMonth, p.expYear),
    expMonth: p.expMonth,
    expYear: p.expYear,
    networkTransactionId: p.networkTransactionId,
  });

  const createProfile = (
    card: { cardType: CardType; lastFour: string; maskedCardNumber: string; expMonth: number; expYear: number },
    extra: { customerNumber: string | null; email: string | null; provider: Provider; merchant: string | null },
  ): PaymentProfile => {
    const custKey = `${extra.merchant ?? ''}|${extra.customerNumber ?? randomUUID()}`;
    let customerProfileId = customerProfiles.get(custKey);
    if (!customerProfileId) {
      customerProfileId = id('cus');
      customerProfiles.set(custKey, customerProfileId);
    }
    const p: PaymentProfile = {
      customerProfileId,
      paymentProfileId: id('pp'),
      ...extra,
      cardType: card.cardType,
      lastFour: card.lastFour,
      maskedCardNumber: card.maskedCardNumber,
      expMonth: card.expMonth,
      expYear: card.expYear,
      networkTransactionId: digits(15),
      createdAt: new Date().toISOString(),
    };
    profiles.set(p.paymentProfileId, p);
    return p;
  };

  /** Replays the first answer for an idempotency key; a different request under the same key is 409. */
  const idempotent = (scope: string, key: string, fingerprint: string, run: () => { status: number; body: unknown }) => {
    const prior = replies.get(scope + '|' + key);
    if (prior) {
      if (prior.fingerprint !== fingerprint) throw new HttpError(409, 'idempotency_conflict', 'This idempotencyKey was already used with a different request.');
      return { status: prior.status === 201 ? 200 : prior.status, body: prior.body };
    }
    const reply = run();
    replies.set(scope + '|' + key, { fingerprint, ...reply });
    return reply;
  };


  return { opts, log, publicUrl, profiles, customerProfiles, charges, replies, setups, ledger, addLedger, chargeView, profileView, createProfile, idempotent };
}
