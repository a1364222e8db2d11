/**
 * The two requests of a hosted payment (ProviderHosted protocol), as the API serves them:
 *
 * - setting up a page (POST /api/payments/hosted/transaction-setup) for a payment, optionally for
 *   an invoice, or a card save; the `hostedPayment` workflow waits for the callback until expiry;
 * - the provider's callback (POST /api/payments/hosted/callback, public): the Signature is
 *   verified with the setup's organization's secret (401 when invalid), the callback is handed
 *   to the workflow as an update, and the workflow's outcome says where the browser goes. After
 *   the setup's timer fired, an approved charge is voided at the provider and the outcome says
 *   Voided (settleLateHostedCallback once hostedPayment has closed); a late card save records
 *   nothing (Expired).
 *
 * The data side (creating the setup, reconciling, expiring) is ./hosted.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { isWorkflowNotFound, runWorkflow, type Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { verifyCallbackSignature, type CallbackFields } from '../../domain/payments/callback-signature.js';
import type { Deps } from '../../deps.js';
import { HostedPaymentSetup } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { log } from '../../logger.js';
import { findVisibleCustomer } from '../customers/visibility.js';
import { hostedCallbackSecret } from '../integrations/provider-settings.js';
import { callbackForWorkflow, hostedWorkflowId, outcomeOf, startHostedSetup } from './hosted.js';
import type { HostedCallback, HostedOutcome } from '../../workflows/hosted-payment-defs.js';
import { customerCurrency } from './methods.js';
import { assertReturnUrlAllowed } from './return-url.js';
import { hostedCallbackUpdate } from '../../workflows/hosted-payment-defs.js';

/** How long the callback waits for the workflow's answer before redirecting with the provider's result. */
const CALLBACK_WAIT_MS = 10_000;

export interface HostedSetupRequest {
  customerNumber: string;
  transactionAmount: number;
  applicationReturnUrl: string;
  marketCode?: string;
  isDefault?: boolean;
  saveCard?: boolean;
  invoiceId?: string | null;
  invoiceNumber?: string | null;
}

/** A hosted page for the customer; for an invoice the amount may not exceed its balance (400 transactionAmount). */
export async function setUpHostedPayment(
  em: EntityManager,
  deps: { config: Config; temporal: Client },
  orgId: string,
  auth: Principal,
  body: HostedSetupRequest,
): Promise<{ transactionSetupId: string; hostedPaymentUrl: string }> {
  await assertReturnUrlAllowed(em, deps.config, orgId, 'applicationReturnUrl', body.applicationReturnUrl);
  const customer = await findVisibleCustomer(em, orgId, auth, body.customerNumber);
  return startHostedSetup(em, deps, {
    organizationId: orgId,
    customerNumber: customer.customerNumber,
    customerId: customer.id,
    amount: body.transactionAmount.toFixed(2),
    currency: await customerCurrency(em, orgId, customer),
    returnUrl: body.applicationReturnUrl,
    marketCode: body.marketCode ?? 'Default',
    isDefault: body.isDefault ?? false,
    saveCard: body.saveCard,
    invoiceId: body.invoiceId ?? null,
    invoiceNumber: body.invoiceNumber ?? null,
  });
}

/** Where the browser goes after a callback: the setup's return URL, with this outcome. */
export interface CallbackAnswer {
  returnUrl: string;
  outcome: HostedOutcome;
}

/**
 * A provider callback (form fields as posted). Callbacks carry no organization: the setup id is
 * the lookup key (unique across organizations). 401 before anything else when the signature is
 * missing or wrong; 404 for an unknown setup.
 */
export async function acceptHostedCallback(deps: Deps, fields: CallbackFields): Promise<CallbackAnswer> {
  const em = deps.orm.em.fork();
  const setup = await em.findOne(HostedPaymentSetup, { transactionSetupId: fields.TransactionSetupID ?? '' }, { populate: ['organization'] });
  const secret = setup ? await hostedCallbackSecret(em, deps.config, setup.organization.id) : deps.config.providerCallbackSecret;
  if (!secret || !verifyCallbackSignature(fields, secret)) throw AppError.unauthorized('The callback signature is missing or invalid.');
  if (!setup) throw AppError.notFound('Transaction setup');
  const callback = callbackForWorkflow(fields);
  // The workflow decides (its timer is the authority on expiry) and answers through the update.
  let outcome: HostedOutcome | null;
  try {
    outcome = await withTimeout(
      deps.temporal.workflow.getHandle(hostedWorkflowId(setup.transactionSetupId)).executeUpdate(hostedCallbackUpdate, { args: [callback] }),
      CALLBACK_WAIT_MS,
    );
  } catch (e) {
    if (e instanceof CallbackTimeout) {
      // Still reconciling: the workflow finishes it; the browser learns the provider's result.
      return { returnUrl: setup.returnUrl, outcome: { ...outcomeOf(setup), result: fields.Result ?? 'Pending', lastFour: fields.LastFour ?? null } };
    }
    if (!isWorkflowNotFound(e)) throw e;
    outcome = await settleClosed(deps, setup, callback);
  }
  if (outcome.status === 'expired') log.warn('hosted callback after expiry', { transactionSetupId: setup.transactionSetupId, result: outcome.result });
  return { returnUrl: setup.returnUrl, outcome };
}

/** The workflow has closed: a duplicate of a reconciled callback (its outcome), or one after the expiry (voided, once). */
async function settleClosed(deps: Deps, setup: HostedPaymentSetup, callback: HostedCallback): Promise<HostedOutcome> {
  const current = (await deps.orm.em.fork().findOne(HostedPaymentSetup, { organization: setup.organization.id, id: setup.id })) ?? setup;
  if (current.status !== 'expired') return outcomeOf(current);
  const orgId = setup.organization.id;
  return runWorkflow<HostedOutcome>(deps.temporal, deps.config, {
    workflowType: 'settleLateHostedCallback',
    workflowId: `hosted-late-${setup.transactionSetupId}`,
    args: [{ organizationId: orgId, transactionSetupId: setup.transactionSetupId, callback }],
    keys: { organizationId: orgId, customerNumber: setup.customerNumber },
    about: { what: `Late hosted-payment callback of setup ${setup.transactionSetupId}` },
    waitMs: CALLBACK_WAIT_MS,
    what: 'The late callback',
  });
}

class CallbackTimeout extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CallbackTimeout('timeout')), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}
