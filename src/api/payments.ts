/**
 * Payment endpoints (SPEC "Payment endpoints"): cards on file and hosted payments. Routes and
 * their schemas only; the use cases are src/services/payments (cards-on-file.ts: saving and
 * listing cards; hosted-pages.ts: hosted setups and the provider's callback; return-url.ts: where
 * a hosted page may return the browser).
 *
 * - POST /api/payments/hosted/callback (public, form-encoded, provider only): 401 when the
 *   Signature is invalid, else 302 to applicationReturnUrl with the workflow's outcome (result,
 *   transactionSetupId, amount, last4).
 *
 * Customer tokens act only for their own customerNumber and sales reps for their customers
 * (others answer 404, like another organization's customer).
 */
import type Koa from 'koa';
import * as yup from 'yup';
import { isExpired, luhnValid, normalizeCardNumber } from '../domain/payments/cards.js';
import type { CallbackFields } from '../domain/payments/callback-signature.js';
import { created, defineRoute, json, ok, type Reply } from '../http/route.js';
import * as out from '../domain/contract.js';

const PAYMENT_METHOD = out.component(
  'PaymentMethod',
  out.obj({
    id: out.uuid(),
    customerNumber: out.str(),
    paymentProfileId: out.str(),
    customerProfileId: out.str(),
    maskedCardNumber: out.str(),
    cardType: out.str(),
    expirationDate: out.str(),
    expMonth: out.int(),
    expYear: out.int(),
    billingAddress: out.extensible(out.objN({})),
    isDefault: out.bool(),
    paymentProvider: out.str(),
    active: out.bool(),
    networkTransactionId: out.strN(),
  }),
);
import { addPaymentMethod, listPaymentMethods, type NewCardResult } from '../services/payments/cards-on-file.js';
import type { HostedOutcome } from '../workflows/hosted-payment-defs.js';
import { acceptHostedCallback, setUpHostedPayment } from '../services/payments/hosted-pages.js';
import { paymentMethodView } from '../services/payments/methods.js';
import { listReconciliation, reconciliationListSpec, runReconciliation } from '../services/payments/reconciliation.js';
import { genericPage } from '../domain/resources.js';
import { email, UUID_RE } from './schemas.js';

const TAG = 'Payments';
const ROLES = ['Admin', 'SalesRep', 'Customer'] as const;

const httpUrl = () =>
  yup
    .string()
    .trim()
    .max(2000)
    .test('http-url', '${path} must be an absolute http(s) URL.', (v) => {
      if (v === undefined || v === null) return true;
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    });

const str = (max: number) => yup.string().typeError('${path} must be a string.').trim().max(max);

const billingAddressSchema = yup
  .object({
    firstName: str(100).required(),
    lastName: str(100).required(),
    company: str(200).nullable(),
    address1: str(200).required(),
    city: str(100).required(),
    state: str(100).nullable(),
    zipCode: str(20).required(),
    country: str(2).required(),
  })
  .typeError('${path} must be an object.');

const isHosted = (provider: unknown) => provider === 'ProviderHosted';

/** Card fields: checked for ProviderDirect (the default); ignored for ProviderHosted. Messages never echo the value. */
const cardField = (rule: (s: yup.StringSchema) => yup.StringSchema) =>
  yup
    .string()
    .typeError('${path} must be a string.')
    .when('paymentProvider', ([provider], s) => (isHosted(provider) ? s.optional() : rule(s.required('${path} is a required field.'))));

const paymentMethodSchema = yup.object({
  customerNumber: str(50).required(),
  emailAddress: email().required(),
  cardNumber: cardField((s) =>
    s.test('luhn', '${path} is not a valid card number.', (v) => {
      const digits = typeof v === 'string' ? normalizeCardNumber(v) : null;
      return !!digits && luhnValid(digits);
    }),
  ),
  expirationMonth: cardField((s) => s.matches(/^(0[1-9]|1[0-2])$/, { message: '${path} must be two digits from 01 to 12.' })),
  expirationYear: cardField((s) =>
    s
      .matches(/^\d{4}$/, { message: '${path} must be four digits.' })
      .test('not-expired', 'The card has expired: expirationMonth/expirationYear is in the past.', function (v) {
        const m = (this.parent as { expirationMonth?: unknown }).expirationMonth; // yup types `parent` as any
        if (typeof v !== 'string' || !/^\d{4}$/.test(v) || typeof m !== 'string' || !/^(0[1-9]|1[0-2])$/.test(m)) return true;
        return !isExpired(Number(m), Number(v), new Date());
      }),
  ),
  cardCode: cardField((s) => s.matches(/^\d{3,4}$/, { message: '${path} must be 3 or 4 digits.' })),
  billingAddress: billingAddressSchema.required(),
  isDefault: yup.boolean().default(false),
  paymentProvider: yup.string().oneOf(['ProviderDirect', 'ProviderHosted'], '${path} must be ProviderDirect or ProviderHosted.'),
  appUrl: httpUrl(),
});

const transactionSetupSchema = yup.object({
  customerNumber: str(50).required(),
  transactionAmount: yup
    .number()
    .typeError('${path} must be a number.')
    .required()
    .min(0, '${path} must be 0.00 or more.')
    .max(999999999.99, '${path} is too large.')
    .test('cents', '${path} must have at most two decimals.', (v) => v === undefined || Math.abs(Math.round(v * 100) - v * 100) < 1e-6),
  applicationReturnUrl: httpUrl().required(),
  marketCode: str(50).default('Default'),
  isDefault: yup.boolean().default(false),
  saveCard: yup.boolean(),
  invoiceId: yup.string().matches(UUID_RE, { message: '${path} must be a valid id (UUID).' }).nullable(),
  invoiceNumber: str(100).nullable(),
});

/** Callback fields (documented; the signature is verified over the raw form). */
const callbackSchema = yup.object({
  TransactionSetupID: yup.string(),
  ApprovalCode: yup.string(),
  Result: yup.string(),
  Amount: yup.string(),
  CardType: yup.string(),
  LastFour: yup.string(),
  ExpirationMonth: yup.string(),
  ExpirationYear: yup.string(),
  PaymentProfileId: yup.string(),
  TransactionId: yup.string(),
  Timestamp: yup.string(),
  Signature: yup.string(),
});

function withQuery(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

const redirect = (url: string): Reply => ({ status: 302, redirect: url, headers: { 'cache-control': 'no-store' } });

function returnRedirect(returnUrl: string, o: HostedOutcome): Reply {
  const params: Record<string, string> = { result: o.result, transactionSetupId: o.transactionSetupId, amount: o.amount };
  if (o.lastFour) params.last4 = o.lastFour;
  return redirect(withQuery(returnUrl, params));
}

/** The callback form as koa-body parsed it (the signature covers the raw fields; Koa's Request type does not declare `body`); only string fields are kept. */
function callbackFields(ctx: Koa.Context): CallbackFields {
  const raw = ((ctx.request as unknown as { body?: unknown }).body ?? {}) as Record<string, unknown>;
  const fields: CallbackFields = {};
  for (const [k, v] of Object.entries(raw)) if (typeof v === 'string') fields[k] = v;
  return fields;
}

const newCardReply = (r: NewCardResult) =>
  r.provider === 'ProviderHosted'
    ? { requiresRedirect: true, redirectUrl: r.hostedPaymentUrl, provider: r.provider, paymentMethod: null }
    : { requiresRedirect: false, redirectUrl: null, provider: r.provider, paymentMethod: paymentMethodView(r.method) };

export const paymentRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/payments/reconciliation/run',
    operationId: 'runPaymentReconciliation',
    summary: "Run the payment janitor now for this organization: provider charges no payment recorded are recorded on their invoice, else voided",
    tag: TAG,
    auth: ['Admin'],
    responses: {
      200: json(
        out.component('PaymentReconciliationRun', out.obj({ examined: out.int(), alreadyRecorded: out.int(), recorded: out.int(), voided: out.int(), refunded: out.int(), unattributed: out.int() })),
        'What the pass found: charges examined, already recorded, recorded now, voided, refunded, and not attributable to this organization',
      ),
      401: 'Unauthenticated', 403: 'Not Admin', 503: 'Still running or Temporal unavailable' },
    async handler({ deps, orgId }) {
      return ok(await runReconciliation(deps, orgId));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/payments/reconciliation',
    operationId: 'listPaymentReconciliations',
    summary: "The payment janitor's actions on this organization's charges, newest first (finance report)",
    tag: TAG,
    auth: ['Admin'],
    paged: reconciliationListSpec,
    responses: {
      200: json(
        genericPage(
          'PaymentReconciliationPage',
          out.component(
            'PaymentReconciliation',
            out.obj({
              ChargeId: out.str(),
              Action: out.oneOf(['Recorded', 'Voided', 'Refunded'] as const),
              Amount: out.num(),
              CurrencyCode: out.str(),
              InvoiceId: out.uuidN(),
              PaymentProfileId: out.strN(),
              Reference: out.strN(),
              Reason: out.str(),
              CreatedAt: out.dateTime(),
            }),
          ),
        ),
        "A page of the janitor's actions, newest first",
      ),
      401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query }) {
      return ok(await listReconciliation(em, orgId, query));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/payments/payment-methods',
    operationId: 'savePaymentMethod',
    summary: 'Save a card on file: ProviderDirect tokenizes it now; ProviderHosted answers the hosted page where the customer enters it',
    tag: TAG,
    auth: ROLES,
    body: paymentMethodSchema,
    responses: {
      201: json(
        out.obj({ requiresRedirect: out.bool(), redirectUrl: out.uriN(), provider: out.str(), paymentMethod: PAYMENT_METHOD.nullable() }),
        'ProviderDirect: the saved card; ProviderHosted: the page to redirect the customer to',
      ),
      400: 'Validation failed (every bad field named)',
      402: 'The provider declined the card (errors.card holds the provider code)',
      404: 'Customer not found',
    },
    handler: async ({ em, deps, auth, orgId, body }) => {
      return created(newCardReply(await addPaymentMethod(em, deps, orgId, auth, body)), `/api/payments/${encodeURIComponent(body.customerNumber)}/profiles`);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/payments/:customerNumber/profiles',
    operationId: 'listPaymentProfiles',
    summary: "A customer's saved cards (active payment methods), default first",
    tag: TAG,
    auth: ROLES,
    responses: { 200: json(out.arr(PAYMENT_METHOD), 'The saved cards of the customer'), 404: 'Customer not found' },
    handler: async ({ em, auth, orgId, params }) => {
      return ok((await listPaymentMethods(em, orgId, auth, params.customerNumber)).map(paymentMethodView));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/payments/hosted/transaction-setup',
    operationId: 'createHostedTransactionSetup',
    summary: 'Create a hosted payment page (valid 10 minutes) for a payment, optionally for an invoice; transactionAmount 0.00 only saves a card',
    tag: TAG,
    auth: ROLES,
    body: transactionSetupSchema,
    responses: { 201: json(out.obj({ transactionSetupId: out.str(), hostedPaymentUrl: out.uri() }), 'The hosted payment page to send the customer to'), 400: 'Validation failed, or transactionAmount above the invoice balance', 404: 'Customer not found' },
    handler: async ({ em, deps, auth, orgId, body }) => {
      const setup = await setUpHostedPayment(em, deps, orgId, auth, body);
      return created(setup, setup.hostedPaymentUrl);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/payments/hosted/callback',
    operationId: 'handleHostedPaymentCallback',
    summary: "The hosted provider's signed, form-encoded payment callback (provider only); answers 302 to the setup's applicationReturnUrl with the result",
    tag: TAG,
    auth: 'public',
    bodyKind: 'form',
    body: callbackSchema,
    responses: {
      302: {
        description: 'Redirect to applicationReturnUrl?result=...&transactionSetupId=...&amount=...&last4=...',
        mediaType: 'text/plain',
        alsoMediaTypes: ['text/html'],
        headers: { Location: { description: 'applicationReturnUrl with the result', schema: { type: 'string', format: 'uri' } } },
      },
      401: 'Missing or invalid Signature',
      404: 'Unknown transaction setup',
    },
    handler: async ({ ctx, deps }) => {
      const { returnUrl, outcome } = await acceptHostedCallback(deps, callbackFields(ctx));
      return returnRedirect(returnUrl, outcome);
    },
  }),
];
