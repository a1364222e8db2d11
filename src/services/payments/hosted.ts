/**
 * Hosted payments (ProviderHosted protocol): creating a transaction setup, reconciling the
 * provider's signed callback, and expiring setups nobody paid in time. The `hostedPayment`
 * workflow (src/workflows/hosted-payment.ts) owns the timing; these functions own the data.
 *
 * Decisions:
 * - saveCard: the card is saved when the setup says so explicitly (`saveCard`), else when the
 *   amount is 0.00 (a save-card-only setup) or `isDefault` is true (asking for a default card
 *   is opting in to keeping it).
 * - Reconciliation is idempotent: the invoice payment carries the idempotency key
 *   `hosted-<transactionSetupId>`, the saved card is unique per paymentProfileId, and the
 *   setup's status leaves `pending` once (conditional update). A duplicate or late callback
 *   therefore records nothing twice.
 * - An invoice (invoiceId or invoiceNumber) must be a payable invoice of the same customer
 *   (src/services/invoices/invoices.ts `findPayableInvoice`), else 400 naming the field, and the
 *   amount may not exceed its balance (400 transactionAmount).
 * - An approval the invoice refuses when it is recorded (the balance went down meanwhile, the
 *   invoice was voided) is voided at the provider, as card payments are: the setup becomes
 *   `declined` with result `Voided`, nothing is recorded and no card is saved.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import type { Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import type { CallbackFields } from '../../domain/payments/callback-signature.js';
import { HostedPaymentSetup } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import { findPayableInvoice } from '../invoices/invoices.js';
import { recordInvoicePayment } from '../invoices/record-payment.js';
import { log } from '../../logger.js';
import { startOnce } from '../../adapters/temporal.js';
import type { HostedCallback, HostedOutcome, HostedPaymentInput } from '../../workflows/hosted-payment-defs.js';
import { amountText } from '../../workflows/tags-defs.js';
import { gatewayFor } from '../integrations/provider-settings.js';
import type { PaymentGateway } from '../../adapters/payment-gateway.js';
import { saveProfileAsPaymentMethod } from './methods.js';

export const hostedWorkflowId = (transactionSetupId: string) => `hosted-payment-${transactionSetupId}`;

export interface StartHostedInput {
  organizationId: string;
  customerNumber: string;
  /** The customer record paying (its cards and invoices are matched by this id). */
  customerId: string;
  amount: string;
  currency: string;
  returnUrl: string;
  marketCode: string;
  isDefault: boolean;
  saveCard?: boolean;
  invoiceId?: string | null;
  invoiceNumber?: string | null;
  billingAddress?: Record<string, unknown> | null;
}

export async function startHostedSetup(
  em: EntityManager,
  deps: { config: Config; temporal: Client },
  input: StartHostedInput,
): Promise<{ transactionSetupId: string; hostedPaymentUrl: string }> {
  const { config } = deps;
  let invoiceId = input.invoiceId ?? null;
  let invoiceNumber = input.invoiceNumber ?? null;
  let currency = input.currency;
  const amount = new Decimal(input.amount).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  if (invoiceId || invoiceNumber) {
    const field = invoiceId ? 'invoiceId' : 'invoiceNumber';
    const inv = await findPayableInvoice(em, input.organizationId, { invoiceId, invoiceNumber });
    if (!inv || inv.customerId !== input.customerId) throw AppError.field(field, `No payable invoice of customer ${input.customerNumber} has this ${field}.`);
    if (amount.gt(inv.balance))
      throw AppError.field('transactionAmount', `transactionAmount must not be more than the invoice balance (${new Decimal(inv.balance).toFixed(2)} ${inv.currencyCode}).`);
    invoiceId = inv.invoiceId;
    invoiceNumber = inv.invoiceNumber;
    currency = inv.currencyCode;
  }
  const saveCard = input.saveCard ?? (amount.isZero() || input.isDefault);
  const gateway = await gatewayFor(em, config, input.organizationId);
  const expirySeconds = Math.max(1, config.hostedPaymentExpirySeconds);
  const setup = await gateway.createHostedSetup({
    amount: amount.toFixed(2),
    currency,
    callbackUrl: `${config.publicBaseUrl}/api/payments/hosted/callback`,
    returnUrl: input.returnUrl,
    saveCard,
    customerNumber: input.customerNumber,
    reference: invoiceNumber ?? invoiceId,
    expiresInSeconds: expirySeconds,
  });
  const expiresAt = new Date(Date.now() + expirySeconds * 1000);
  em.create(HostedPaymentSetup, {
    organization: input.organizationId,
    transactionSetupId: setup.transactionSetupId,
    customerNumber: input.customerNumber,
    customerId: input.customerId,
    invoiceId,
    invoiceNumber,
    amount: amount.toFixed(2),
    currency,
    returnUrl: input.returnUrl,
    marketCode: input.marketCode,
    saveCard,
    isDefault: input.isDefault,
    billingAddress: input.billingAddress ?? null,
    status: 'pending',
    expiresAt,
  });
  await em.flush();
  const wf: HostedPaymentInput = { organizationId: input.organizationId, transactionSetupId: setup.transactionSetupId, expiresAt: expiresAt.toISOString() };
  await startOnce(deps.temporal, config, {
    workflowType: 'hostedPayment',
    workflowId: hostedWorkflowId(setup.transactionSetupId),
    args: [wf],
    queue: 'commerce',
    keys: { organizationId: input.organizationId, customerNumber: input.customerNumber, invoiceNumber },
    about: { what: `Hosted payment page${invoiceNumber ? ` for invoice ${invoiceNumber}` : ''}`, amount: amountText(amount.toFixed(2), currency) },
  });
  return { transactionSetupId: setup.transactionSetupId, hostedPaymentUrl: setup.hostedPaymentUrl };
}

export function outcomeOf(s: HostedPaymentSetup): HostedOutcome {
  return {
    transactionSetupId: s.transactionSetupId,
    status: s.status as HostedOutcome['status'],
    result: s.result ?? (s.status === 'expired' ? 'Expired' : 'Pending'),
    amount: new Decimal(s.amount).toFixed(2),
    lastFour: s.lastFour ?? null,
    paymentMethodId: s.paymentMethodId ?? null,
    invoicePaymentId: s.invoicePaymentId ?? null,
  };
}

export function callbackForWorkflow(fields: CallbackFields): HostedCallback {
  const pick = (k: string) => (typeof fields[k] === 'string' ? fields[k] : '');
  return {
    TransactionSetupID: pick('TransactionSetupID'),
    Result: pick('Result'),
    Amount: pick('Amount'),
    CardType: pick('CardType'),
    LastFour: pick('LastFour').slice(-4),
    ExpirationMonth: pick('ExpirationMonth'),
    ExpirationYear: pick('ExpirationYear'),
    PaymentProfileId: pick('PaymentProfileId'),
    TransactionId: pick('TransactionId'),
    ApprovalCode: pick('ApprovalCode'),
  };
}

/**
 * Applies a verified callback once: records the invoice payment (approved, amount > 0, invoice
 * known), saves the card (approved, saveCard, a PaymentProfileId), then moves the setup out of
 * `pending`. Safe to run again: every step is idempotent, and a setup already out of pending
 * (approved, declined, expired) is returned as it is.
 */
export async function reconcileHosted(
  em: EntityManager,
  config: Config,
  input: { organizationId: string; transactionSetupId: string; callback: HostedCallback },
): Promise<HostedOutcome> {
  const setup = await em.findOne(HostedPaymentSetup, { organization: input.organizationId, transactionSetupId: input.transactionSetupId });
  if (!setup) throw new Error(`hosted setup ${input.transactionSetupId} not found`);
  if (setup.status !== 'pending') return outcomeOf(setup);
  const cb = input.callback;
  const approved = cb.Result === 'Approved';
  let invoicePaymentId: string | null = setup.invoicePaymentId ?? null;
  let paymentMethodId: string | null = setup.paymentMethodId ?? null;
  let voided = false;
  if (approved && setup.invoiceId && new Decimal(setup.amount).gt(0)) {
    try {
      invoicePaymentId = (await recordHostedInvoicePayment(em, input.organizationId, setup, cb)).paymentId;
    } catch (e) {
      // A business refusal (the balance went down or the invoice was voided since the setup) cannot
      // be fixed by retrying: the provider's charge is voided, as a card payment's is, and nothing is recorded.
      if (!(e instanceof AppError)) throw e;
      voided = await voidUnrecordable(em, config, input.organizationId, setup, cb, e);
    }
  }
  // A setup whose customer was deleted meanwhile (customerId set null) saves no card: nobody may charge it.
  if (approved && !voided && setup.saveCard && cb.PaymentProfileId && setup.customerId) {
    const gateway = await gatewayFor(em, config, input.organizationId);
    const profile = await gateway.getPaymentProfile(cb.PaymentProfileId);
    const { method } = await saveProfileAsPaymentMethod(em, input.organizationId, {
      customerNumber: setup.customerNumber,
      customerId: setup.customerId,
      profile,
      billingAddress: setup.billingAddress ?? null,
      isDefault: setup.isDefault,
      paymentProvider: 'ProviderHosted',
    });
    paymentMethodId = method.id;
  }
  await em.nativeUpdate(
    HostedPaymentSetup,
    { organization: setup.organization.id, id: setup.id, status: 'pending' },
    {
      status: approved && !voided ? 'approved' : 'declined',
      result: voided ? 'Voided' : cb.Result || 'Declined',
      cardType: cb.CardType || null,
      lastFour: cb.LastFour || null,
      paymentProfileId: cb.PaymentProfileId || null,
      providerTransactionId: cb.TransactionId || null,
      paymentMethodId,
      invoicePaymentId,
      completedAt: new Date(),
    },
  );
  const fresh = await em.fork().findOneOrFail(HostedPaymentSetup, { organization: setup.organization.id, id: setup.id });
  return outcomeOf(fresh);
}

function recordHostedInvoicePayment(em: EntityManager, organizationId: string, setup: HostedPaymentSetup, cb: HostedCallback) {
  return recordInvoicePayment(em, {
    organizationId,
    invoiceId: setup.invoiceId!,
    amount: new Decimal(setup.amount).toFixed(2),
    currencyCode: setup.currency,
    method: 'Card',
    paymentDate: new Date(),
    reference: cb.TransactionId || setup.transactionSetupId,
    notes: `Hosted payment ${setup.transactionSetupId}`,
    paymentProfileId: cb.PaymentProfileId || null,
    cardType: cb.CardType || null,
    last4Digits: cb.LastFour || null,
    providerChargeId: cb.TransactionId || null,
    idempotencyKey: `hosted-${setup.transactionSetupId}`,
  });
}

/**
 * Gives back an approved hosted charge the invoice refused (provider key `hosted-void-<setupId>`,
 * so a retried reconciliation voids once). Answers whether it was voided: without the provider's
 * transaction id there is nothing to void, and the refusal is logged for follow-up.
 */
async function voidUnrecordable(em: EntityManager, config: Config, organizationId: string, setup: HostedPaymentSetup, cb: HostedCallback, refusal: AppError): Promise<boolean> {
  const ref = { transactionSetupId: setup.transactionSetupId, invoiceId: setup.invoiceId, error: refusal.message };
  if (!cb.TransactionId) {
    log.error('hosted payment could not be recorded on the invoice and has no transaction id to void', ref);
    return false;
  }
  const gateway = await gatewayFor(em, config, organizationId);
  await gateway.void({ chargeId: cb.TransactionId, idempotencyKey: `hosted-void-${setup.transactionSetupId}` });
  log.warn('hosted payment could not be recorded on the invoice; the charge was voided at the provider', ref);
  return true;
}

/** Marks a setup nobody paid in time as expired (no-op when it was reconciled first). */
export async function expireHosted(em: EntityManager, input: { organizationId: string; transactionSetupId: string }): Promise<HostedOutcome> {
  await em.nativeUpdate(
    HostedPaymentSetup,
    { organization: input.organizationId, transactionSetupId: input.transactionSetupId, status: 'pending' },
    { status: 'expired', result: 'Expired', completedAt: new Date() },
  );
  const s = await em.findOneOrFail(HostedPaymentSetup, { organization: input.organizationId, transactionSetupId: input.transactionSetupId });
  return outcomeOf(s);
}

/**
 * An approval that arrived after the setup's timer fired: the charge is voided at the provider
 * (key `hosted-late-<setupId>`) and the setup records it (result `Voided`, the provider's
 * transaction id). A zero-amount approval (card save) has nothing to void and only stays Expired.
 */
export async function voidLateHosted(
  em: EntityManager,
  gateway: () => Promise<PaymentGateway>,
  input: { organizationId: string; transactionSetupId: string; callback: HostedCallback },
): Promise<HostedOutcome> {
  const cb = input.callback;
  const money = cb.Result === 'Approved' && Boolean(cb.TransactionId) && Number(cb.Amount) > 0;
  if (money) {
    await (await gateway()).void({ chargeId: cb.TransactionId, idempotencyKey: `hosted-late-${input.transactionSetupId}` });
    await em.nativeUpdate(
      HostedPaymentSetup,
      { organization: input.organizationId, transactionSetupId: input.transactionSetupId, status: 'expired' },
      { result: 'Voided', providerTransactionId: cb.TransactionId, lastFour: cb.LastFour || null, cardType: cb.CardType || null },
    );
    log.warn('late hosted approval voided at the provider', { transactionSetupId: input.transactionSetupId });
  }
  const setup = await em.findOneOrFail(HostedPaymentSetup, { organization: input.organizationId, transactionSetupId: input.transactionSetupId });
  return outcomeOf(setup);
}
