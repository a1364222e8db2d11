/**
 * Payment endpoints (SPEC "Payment endpoints"): cards on file and hosted payments.
 *
 * - POST /api/payments/payment-methods: ProviderDirect tokenizes the card at the provider (the
 *   number and CVV go to the provider once, never to the database, logs or workflow inputs);
 *   ProviderHosted answers a hosted page (a 0.00 setup that only saves the card).
 * - GET /api/payments/:customerNumber/profiles: the customer's active cards.
 * - POST /api/payments/hosted/transaction-setup: a hosted page for a payment (optionally for an
 *   invoice) or a card save; the `hostedPayment` workflow waits for the callback until expiry.
 * - POST /api/payments/hosted/callback (public, form-encoded, provider only): verifies the
 *   Signature (401 when invalid), hands the callback to the workflow as an update and answers 302
 *   to applicationReturnUrl with the workflow's outcome (result, transactionSetupId, amount,
 *   last4). After the setup's timer fired, an approved charge is voided at the provider and the
 *   redirect says result=Voided; a late card save records nothing (result=Expired).
 *
 * Customer tokens act only for their own customerNumber and sales reps for their customers
 * (others answer 404, like another organization's customer).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import * as yup from 'yup';
import { checkCard, isExpired, luhnValid, normalizeCardNumber } from '../domain/payments/cards.js';
import { verifyCallbackSignature, type CallbackFields } from '../domain/payments/callback-signature.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { isAllowedReturnUrl, originOf } from '../domain/organizations/return-url.js';
import { HostedPaymentSetup, Organization, PaymentMethod } from '../entities/index.js';
import { AppError } from '../errors.js';
import { created, defineRoute, ok, type Reply } from '../http/route.js';
import { log } from '../logger.js';
import { callbackForWorkflow, hostedWorkflowId, outcomeOf, startHostedSetup, type HostedCallback, type HostedOutcome } from '../services/payments/hosted.js';
import { findVisibleCustomer } from '../services/customers/visibility.js';
import { gatewayFor, hostedCallbackSecret, paymentSettingsFor } from '../services/integrations/provider-settings.js';
import { customerCurrency, paymentMethodView, saveProfileAsPaymentMethod } from '../services/payments/methods.js';
import { runWorkflow } from '../workflow-runs.js';
/** Name of the hostedPayment workflow's callback update (hostedCallbackUpdate in src/workflows/hosted-payment.ts). */
const HOSTED_CALLBACK_UPDATE = 'hostedCallbackUpdate';
/** How long the callback waits for the workflow's answer before redirecting with the provider's result. */
const CALLBACK_WAIT_MS = 10_000;
import { email, UUID_RE } from './schemas.js';

const TAG = 'Payments';
const ROLES = ['Admin', 'SalesRep', 'Customer'] as const;
/** Return URL of the hosted card-save flow when the client gives no appUrl (a local development address). */
const DEFAULT_APP_URL = 'http://localhost:3000/payment-methods/complete';

/** A hosted page returns the browser only to the API's own origin, the deployment's storefronts or the organization's origins (no open redirect). */
async function assertReturnUrlAllowed(em: EntityManager, config: Config, orgId: string, field: string, url: string): Promise<void> {
  const org = await em.findOne(Organization, { id: orgId });
  const own = originOf(config.publicBaseUrl);
  const allowed = [...(own ? [own] : []), ...config.allowedReturnOrigins, ...(org?.allowedReturnOrigins ?? [])];
  if (!isAllowedReturnUrl(url, allowed))
    throw AppError.field(field, `${field} must be on this API's origin or one of the organization's return origins (PUT /api/organizations/return-origins).`);
}

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


export const paymentRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/payments/payment-methods',
    summary: 'Save a card on file: ProviderDirect tokenizes it now; ProviderHosted answers the hosted page where the customer enters it',
    tag: TAG,
    auth: ROLES,
    body: paymentMethodSchema,
    idempotent: true,
    responses: {
      201: '{ requiresRedirect, redirectUrl, provider, paymentMethod }',
      400: 'Validation failed (every bad field named)',
      402: 'The provider declined the card (errors.card holds the provider code)',
      404: 'Customer not found',
    },
    handler: async ({ em, deps, auth, orgId, body }) => {
      const customer = await findVisibleCustomer(em, orgId, auth, body.customerNumber);
      const settings = await paymentSettingsFor(em, deps.config, orgId);
      const provider = (body.paymentProvider as 'ProviderDirect' | 'ProviderHosted' | undefined) ?? settings.provider;
      if (provider === 'ProviderHosted') {
        if (body.appUrl) await assertReturnUrlAllowed(em, deps.config, orgId, 'appUrl', body.appUrl);
        const setup = await startHostedSetup(em, deps, {
          organizationId: orgId,
          customerNumber: customer.customerNumber,
          amount: '0.00',
          currency: await customerCurrency(em, orgId, customer),
          returnUrl: body.appUrl ?? DEFAULT_APP_URL,
          marketCode: 'Default',
          isDefault: body.isDefault ?? false,
          saveCard: true,
          billingAddress: body.billingAddress as Record<string, unknown>,
        });
        return created({ requiresRedirect: true, redirectUrl: setup.hostedPaymentUrl, provider: 'ProviderHosted', paymentMethod: null });
      }
      // The schema required the card fields (the provider was not ProviderHosted in the body);
      // when the organization's default is hosted-only they may be missing: check again.
      const check = checkCard({ number: body.cardNumber, expMonth: body.expirationMonth, expYear: body.expirationYear, cvv: undefined });
      if (!body.cardNumber || !body.expirationMonth || !body.expirationYear || !body.cardCode || check.outcome === 'invalid') {
        throw AppError.field('cardNumber', 'cardNumber, expirationMonth, expirationYear and cardCode must describe a valid card.');
      }
      const gateway = await gatewayFor(em, deps.config, orgId);
      const profile = await gateway.tokenizeCard({
        customerNumber: customer.customerNumber,
        email: body.emailAddress,
        card: { number: body.cardNumber, expMonth: body.expirationMonth, expYear: body.expirationYear, cvv: body.cardCode },
        billingAddress: body.billingAddress as Record<string, unknown>,
      });
      const { method } = await saveProfileAsPaymentMethod(em, orgId, {
        customerNumber: customer.customerNumber,
        profile,
        billingAddress: body.billingAddress as Record<string, unknown>,
        isDefault: body.isDefault ?? false,
        paymentProvider: 'ProviderDirect',
      });
      return created({ requiresRedirect: false, redirectUrl: null, provider: 'ProviderDirect', paymentMethod: paymentMethodView(method) });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/payments/:customerNumber/profiles',
    summary: "A customer's saved cards (active payment methods), default first",
    tag: TAG,
    auth: ROLES,
    responses: { 200: 'Array of payment method', 404: 'Customer not found' },
    handler: async ({ em, auth, orgId, params }) => {
      const customer = await findVisibleCustomer(em, orgId, auth, params.customerNumber);
      const rows = await em.find(
        PaymentMethod,
        { organization: orgId, customerNumber: customer.customerNumber, active: true },
        { orderBy: [{ isDefault: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }] },
      );
      return ok(rows.map(paymentMethodView));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/payments/hosted/transaction-setup',
    summary: 'Create a hosted payment page (valid 10 minutes) for a payment, optionally for an invoice; transactionAmount 0.00 only saves a card',
    tag: TAG,
    auth: ROLES,
    body: transactionSetupSchema,
    idempotent: true,
    responses: { 201: '{ transactionSetupId, hostedPaymentUrl }', 400: 'Validation failed', 404: 'Customer not found' },
    handler: async ({ em, deps, auth, orgId, body }) => {
      await assertReturnUrlAllowed(em, deps.config, orgId, 'applicationReturnUrl', body.applicationReturnUrl);
      const customer = await findVisibleCustomer(em, orgId, auth, body.customerNumber);
      const result = await startHostedSetup(em, deps, {
        organizationId: orgId,
        customerNumber: customer.customerNumber,
        amount: body.transactionAmount.toFixed(2),
        currency: await customerCurrency(em, orgId, customer),
        returnUrl: body.applicationReturnUrl,
        marketCode: body.marketCode ?? 'Default',
        isDefault: body.isDefault ?? false,
        saveCard: body.saveCard,
        invoiceId: body.invoiceId ?? null,
        invoiceNumber: body.invoiceNumber ?? null,
      });
      return created(result);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/payments/hosted/callback',
    summary: "The hosted provider's signed, form-encoded payment callback (provider only); answers 302 to the setup's applicationReturnUrl with the result",
    tag: TAG,
    auth: 'public',
    bodyKind: 'form',
    body: callbackSchema,
    responses: {
      302: 'Redirect to applicationReturnUrl?result=...&transactionSetupId=...&amount=...&last4=...',
      401: 'Missing or invalid Signature',
      404: 'Unknown transaction setup',
    },
    handler: async ({ ctx, deps }) => {
      // The form body as koa-body parsed it (Koa's Request type does not declare `body`); only string fields are kept.
      const raw = ((ctx.request as unknown as { body?: unknown }).body ?? {}) as Record<string, unknown>;
      const fields: CallbackFields = {};
      for (const [k, v] of Object.entries(raw)) if (typeof v === 'string') fields[k] = v;
      // Callbacks carry no organization: the setup id is the lookup key (unique across organizations).
      const em = deps.orm.em.fork();
      const setup = await em.findOne(HostedPaymentSetup, { transactionSetupId: fields.TransactionSetupID ?? '' }, { populate: ['organization'] });
      const secret = setup ? await hostedCallbackSecret(em, deps.config, setup.organization.id) : deps.config.providerCallbackSecret;
      if (!secret || !verifyCallbackSignature(fields, secret)) {
        throw AppError.unauthorized('The callback signature is missing or invalid.');
      }
      if (!setup) throw AppError.notFound('Transaction setup');
      const orgId = setup.organization.id;
      const callback = callbackForWorkflow(fields);
      // The workflow decides (its timer is the authority on expiry) and answers through the update.
      let outcome: HostedOutcome | null = null;
      try {
        outcome = await withTimeout(
          deps.temporal.workflow.getHandle(hostedWorkflowId(setup.transactionSetupId)).executeUpdate<HostedOutcome, [HostedCallback]>(HOSTED_CALLBACK_UPDATE, { args: [callback] }),
          CALLBACK_WAIT_MS,
        );
      } catch (e) {
        if (!(e instanceof WorkflowNotFoundError) && !(e instanceof CallbackTimeout)) throw e;
        if (e instanceof CallbackTimeout) {
          // Still reconciling: the workflow finishes it; the browser learns the provider's result.
          return returnRedirect(setup.returnUrl, { ...outcomeOf(setup), result: fields.Result ?? 'Pending', lastFour: fields.LastFour ?? null });
        }
      }
      if (!outcome) {
        // The workflow has closed: a duplicate of a reconciled callback, or one after the expiry.
        const current = (await deps.orm.em.fork().findOne(HostedPaymentSetup, { id: setup.id })) ?? setup;
        outcome =
          current.status === 'expired'
            ? await runWorkflow<HostedOutcome>(deps.temporal, deps.config, {
                workflowType: 'settleLateHostedCallback',
                workflowId: `hosted-late-${setup.transactionSetupId}`,
                args: [{ organizationId: orgId, transactionSetupId: setup.transactionSetupId, callback }],
                keys: { organizationId: orgId, customerNumber: setup.customerNumber },
                waitMs: CALLBACK_WAIT_MS,
                what: 'The late callback',
              })
            : outcomeOf(current);
      }
      if (outcome.status === 'expired') log.warn('hosted callback after expiry', { transactionSetupId: setup.transactionSetupId, result: outcome.result });
      return returnRedirect(setup.returnUrl, outcome);
    },
  }),
];

class CallbackTimeout extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CallbackTimeout('timeout')), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}
