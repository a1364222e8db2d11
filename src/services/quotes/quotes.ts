/**
 * Quotes (docs/quotes.md): request one (the row, its gapless number and workflow
 * `negotiateQuote`), read and list them, and take the negotiation's steps (offer, counter, accept,
 * reject) as updates of the quote's workflow, which serializes them and answers the new state.
 * Visibility: a Customer sees its own customer's quotes, a SalesRep its customers', an Admin all;
 * any other quote is a 404. Offers are priced here (the customer's tier price at the quantity,
 * quantity breaks applied, unless the seller names a unitPrice); a buyer never sets a quoted price.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import type { Config } from '../../config.js';
import { formatMoney, moneyNumber, roundMoney } from '../../domain/money.js';
import { checkQuoteLines, offerTotals, quoteMove, QUOTE_STATUSES, type QuoteAction, type QuoteSide, type QuoteStatus } from '../../domain/quotes/rules.js';
import { Customer, Quote } from '../../entities/index.js';
import type { Out } from '../../domain/contract.js';
import type { quote } from '../../domain/resources.js';
import type { QuoteVersion, QuoteVersionLine } from '../../entities/Quote.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { UUID_RE } from '../../domain/ids.js';
import { isWorkflowNotFound, startOnce, updateAppError, updateRefusal, type Client } from '../../adapters/temporal.js';
import {
  acceptQuoteUpdate,
  counterQuoteUpdate,
  offerQuoteUpdate,
  QUOTE_WRONG_STATE,
  rejectQuoteUpdate,
  type NegotiateQuoteInput,
  type QuoteActor,
  type QuoteState,
} from '../../workflows/negotiate-quote-defs.js';
import { findCart } from '../carts/carts.js';
import { byVisibleCustomer, customerNumberFiltersById } from '../customers/visibility.js';
import { allocateNumber, QUOTE_NUMBERS } from '../numbering.js';
import { boundSql } from '../../db/orm-sql.js';
import { catalogPricing } from '../orders/create.js';
import { emitEventOnce } from '../webhooks/events.js';
import type { PendingApproval } from '../approvals/approvals.js';
import { gatewayFor, type IntegrationSettingsCache } from '../integrations/provider-settings.js';
import { admitSpending } from '../orders/admission.js';
import { findActivePaymentMethod } from '../payments/methods.js';

export interface QuoteDeps {
  em: EntityManager;
  temporal: Client;
  config: Config;
  /** The integration settings cache (a card accept's provider), when the caller has it. */
  readCache?: IntegrationSettingsCache;
}

export const quoteWorkflowId = (quoteId: string) => `quote-${quoteId}`;

export interface BuyerLine {
  sku: string;
  quantity: number;
  targetPrice?: number | null;
}
export interface SellerLine {
  sku: string;
  quantity: number;
  unitPrice?: number | null;
}

export interface QuoteRequest {
  customerNumber: string;
  items?: BuyerLine[] | null;
  notes?: string | null;
  cartId?: string | null;
}
export interface OfferRequest {
  items?: SellerLine[] | null;
  discountPercent?: number | null;
  expiresAt?: string | null;
  message?: string | null;
}
export interface CounterRequest {
  items: BuyerLine[];
  message?: string | null;
}

const actorOf = (auth: Principal): QuoteActor => ({ userId: auth.userId ?? auth.subject, role: auth.isSuper ? 'Super' : auth.role, repNumber: auth.role === 'SalesRep' ? auth.repNumber : null });

/** Buyer lines (a request or a counter) as the catalog prices them for the customer: names, list prices, the buyer's targets. */
async function buyerVersion(em: EntityManager, orgId: string, auth: Principal, customerNumber: string, items: BuyerLine[], kind: 'Request' | 'Counter', message: string | null) {
  const errors = checkQuoteLines(items);
  if (Object.keys(errors).length) throw AppError.validation(errors);
  const priced = await catalogPricing(em, orgId, auth, customerNumber, items);
  const cur = priced.tier.currencyCode;
  const lines: QuoteVersionLine[] = priced.items.map((p, i) => ({
    sku: p.sku,
    productName: p.productName,
    quantity: p.quantity,
    targetPrice: items[i].targetPrice === undefined || items[i].targetPrice === null ? null : roundMoney(items[i].targetPrice, cur).toFixed(),
    listPrice: p.price.toFixed(),
    priceListId: p.priceListId,
    unitPrice: null,
    netUnitPrice: null,
    lineTotal: null,
  }));
  const subtotal = lines.reduce((s, l) => s.plus(roundMoney(new Decimal(l.listPrice!).times(l.quantity), cur)), new Decimal(0));
  // The buyer's wish: target prices where given, list prices elsewhere.
  const total = lines.reduce((s, l) => s.plus(roundMoney(new Decimal(l.targetPrice ?? l.listPrice!).times(l.quantity), cur)), new Decimal(0));
  const version: Omit<QuoteVersion, 'version' | 'key'> = {
    kind,
    by: actorOf(auth),
    at: new Date().toISOString(),
    message,
    lines,
    discountPercent: null,
    subtotal: subtotal.toFixed(),
    discountAmount: null,
    total: total.toFixed(),
    expiresAt: null,
  };
  return { priced, version };
}

/** POST /api/quotes: the quote (Requested, version 1 = the buyer's request), then its workflow. */
export async function requestQuote(deps: QuoteDeps, orgId: string, auth: Principal, body: QuoteRequest) {
  const { em } = deps;
  let items = body.items ?? [];
  let cartId: string | null = null;
  if (body.cartId) {
    const cart = await findCart(em, orgId, auth, body.cartId, body.customerNumber);
    cartId = cart.id;
    if (!items.length) items = cart.items.getItems().map((i) => ({ sku: i.sku, quantity: i.quantity, targetPrice: null }));
  }
  if (!items.length) throw AppError.field('items', 'items is required (or a cartId whose cart has lines).');
  const { priced, version } = await buyerVersion(em, orgId, auth, body.customerNumber, items, 'Request', body.notes ?? null);
  const id = randomUUID();
  const quote = await em.fork().transactional(async (tx) => {
    const quoteNumber = await allocateNumber(boundSql(tx), QUOTE_NUMBERS, orgId);
    const q = tx.create(Quote, {
      organizationId: orgId,
      id,
      quoteNumber,
      status: 'Requested',
      customerId: priced.customer.id,
      customerNumber: priced.customer.customerNumber,
      companyName: priced.customer.companyName,
      priceTier: priced.tier.name,
      currencyCode: priced.tier.currencyCode,
      notes: body.notes ?? null,
      cartId,
      requestedByUserId: auth.userId ?? auth.subject,
      requestedByRole: auth.isSuper ? 'Super' : auth.role,
      versions: [{ ...version, version: 1, key: 'request' }],
      expiresAt: null,
      orderId: null,
      orderNumber: null,
      rejectionReason: null,
    });
    await tx.flush();
    await emitEventOnce(tx, orgId, 'quote.requested', quoteEvent(q), `quote-${id}-requested`);
    return q;
  });
  const input: NegotiateQuoteInput = {
    organizationId: orgId,
    quoteId: id,
    quoteNumber: quote.quoteNumber,
    customerNumber: quote.customerNumber,
    reminderBeforeMs: deps.config.quotes.reminderBeforeMs,
  };
  await startOnce(deps.temporal, deps.config, {
    workflowType: 'negotiateQuote',
    workflowId: quoteWorkflowId(id),
    args: [input],
    keys: { organizationId: orgId, customerNumber: quote.customerNumber, quoteNumber: quote.quoteNumber },
    about: { what: `Quote ${quote.quoteNumber}` },
  });
  return quoteView(quote);
}

/** The quote with this id if the principal may see it (404 otherwise). */
export async function findQuote(em: EntityManager, orgId: string, auth: Principal, quoteId: string): Promise<Quote> {
  if (!UUID_RE.test(quoteId)) throw AppError.notFound('Quote');
  const q = await em.findOne(Quote, { $and: [{ organizationId: orgId, id: quoteId }, (await byVisibleCustomer(em, orgId, auth)) as FilterQuery<Quote>] });
  if (!q) throw AppError.notFound('Quote');
  return q;
}

export async function readQuote(em: EntityManager, orgId: string, auth: Principal, quoteId: string) {
  return quoteView(await findQuote(em, orgId, auth, quoteId));
}

export const quoteListSpec: ListSpec = {
  filters: {
    status: { prop: 'status', type: 'string' },
    customerNumber: { prop: 'customerNumber', type: 'string' },
    quoteNumber: { prop: 'quoteNumber', type: 'string' },
    createdAt: { prop: 'createdAt', type: 'date' },
  },
  sorts: { CreatedAt: 'createdAt', QuoteNumber: 'quoteNumber', Status: 'status', CustomerNumber: 'customerNumber', ExpiresAt: 'expiresAt' },
  defaultSort: 'CreatedAt',
  comparisons: true,
};

/** GET /api/quotes: the quotes the principal may see, paged (generic envelope), filters status, customerNumber, quoteNumber, createdAt. */
export async function listQuotes(em: EntityManager, orgId: string, auth: Principal, query: Record<string, unknown>) {
  const q = parseList(query, quoteListSpec);
  const shortcuts: FilterQuery<Quote>[] = [];
  if (typeof query.status === 'string' && query.status) {
    if (!(QUOTE_STATUSES as readonly string[]).includes(query.status)) throw AppError.field('status', `status must be one of: ${QUOTE_STATUSES.join(', ')}.`);
    shortcuts.push({ status: query.status as QuoteStatus });
  }
  const where = await customerNumberFiltersById(em, orgId, typeof query.customerNumber === 'string' && query.customerNumber ? { $and: [...((q.where.$and as unknown[]) ?? []), { customerNumber: query.customerNumber }] } : q.where);
  const [rows, total] = await em.findAndCount(
    Quote,
    { $and: [{ organizationId: orgId }, (await byVisibleCustomer(em, orgId, auth)) as FilterQuery<Quote>, where as FilterQuery<Quote>, ...shortcuts] },
    { orderBy: [q.orderBy, { quoteNumber: 'asc' }], limit: q.pageSize, offset: q.offset },
  );
  return genericEnvelope(rows.map(quoteView), total, q);
}

/** The seller's offer: lines (default: the latest buyer version's), each at the given unitPrice or the customer's tier price at its quantity. */
export async function offerQuote(deps: QuoteDeps, orgId: string, auth: Principal, quoteId: string, body: OfferRequest) {
  const q = await findQuote(deps.em, orgId, auth, quoteId);
  precheck(q, 'offer', null);
  const latestBuyer = [...q.versions].reverse().find((v) => v.kind !== 'Offer') ?? q.versions[0];
  const items: SellerLine[] = body.items?.length ? body.items : latestBuyer.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, unitPrice: null }));
  const errors = checkQuoteLines(items);
  const expiresAt = body.expiresAt ? new Date(body.expiresAt) : new Date(Date.now() + deps.config.quotes.defaultValidityMs);
  if (expiresAt.getTime() <= Date.now()) errors.expiresAt = ['expiresAt must be in the future.'];
  if (Object.keys(errors).length) throw AppError.validation(errors);
  const priced = await catalogPricing(deps.em, orgId, auth, q.customerNumber, items);
  const cur = priced.tier.currencyCode;
  if (cur !== q.currencyCode) throw AppError.conflict(`The customer's price tier is now in ${cur}; the quote is in ${q.currencyCode}. Request a new quote.`);
  const unit = priced.items.map((p, i) => (items[i].unitPrice === undefined || items[i].unitPrice === null ? p.price : roundMoney(items[i].unitPrice, cur)));
  const t = offerTotals(
    priced.items.map((p, i) => ({ sku: p.sku, quantity: p.quantity, unitPrice: unit[i] })),
    cur,
    body.discountPercent ?? 0,
  );
  const lines: QuoteVersionLine[] = priced.items.map((p, i) => ({
    sku: p.sku,
    productName: p.productName,
    quantity: p.quantity,
    targetPrice: latestBuyer.lines.find((l) => l.sku.toLowerCase() === p.sku.toLowerCase())?.targetPrice ?? null,
    listPrice: p.price.toFixed(),
    priceListId: p.priceListId,
    unitPrice: t.lines[i].unitPrice.toFixed(),
    netUnitPrice: t.lines[i].netUnitPrice.toFixed(),
    lineTotal: t.lines[i].lineTotal.toFixed(),
  }));
  const version: Omit<QuoteVersion, 'version' | 'key'> = {
    kind: 'Offer',
    by: actorOf(auth),
    at: new Date().toISOString(),
    message: body.message ?? null,
    lines,
    discountPercent: body.discountPercent ?? null,
    subtotal: t.subtotal.toFixed(),
    discountAmount: t.discountAmount.toFixed(),
    total: t.total.toFixed(),
    expiresAt: expiresAt.toISOString(),
  };
  await step(deps, q, (h) => h.executeUpdate(offerQuoteUpdate, { args: [{ requestId: randomUUID(), version }] }));
  return reread(deps.em, orgId, auth, quoteId);
}

/** The buyer's counter: new quantities and target prices (never prices: those are the seller's). */
export async function counterQuote(deps: QuoteDeps, orgId: string, auth: Principal, quoteId: string, body: CounterRequest) {
  const q = await findQuote(deps.em, orgId, auth, quoteId);
  precheck(q, 'counter', 'buyer');
  const { version } = await buyerVersion(deps.em, orgId, auth, q.customerNumber, body.items, 'Counter', body.message ?? null);
  await step(deps, q, (h) => h.executeUpdate(counterQuoteUpdate, { args: [{ requestId: randomUUID(), version }] }));
  return reread(deps.em, orgId, auth, quoteId);
}

/** How an accept pays: the choices of complete-checkout (src/services/carts/checkout.ts). */
export interface AcceptRequest {
  poNumber?: string | null;
  /** A saved card of the quote's customer. */
  paymentProfileId?: string | null;
  payment?: {
    /** 'OnAccount' (the default when nothing else is given): against the customer's credit limit; 'CreditCard': the card below. */
    method?: string;
    billingAddress?: Record<string, unknown>;
    creditCard?: { cardNumber: string; cardholderName: string; expiryMonth: string; expiryYear: string; cvv: string };
  } | null;
}

/**
 * The buyer accepts the current offer: an order at its prices (createOrder), then the invoice.
 * Accepting twice is a 409. Payment as complete-checkout takes it: on account (the default), a
 * saved card (`paymentProfileId`) or card details (tokenized here; card data never reaches the
 * workflow, a response or a log). Then the one admission of orders: above the buyer's spending
 * limits the accept is held for an approval (`PendingApproval`, the quote stays Quoted).
 */
export async function acceptQuote(deps: QuoteDeps, orgId: string, auth: Principal, quoteId: string, body: AcceptRequest): Promise<ReturnType<typeof quoteView> | PendingApproval> {
  const q = await findQuote(deps.em, orgId, auth, quoteId);
  precheck(q, 'accept', 'buyer');
  const offer = [...q.versions].reverse().find((v) => v.kind === 'Offer');
  if (!offer) throw AppError.conflict('The quote has no offer to accept.');
  const paymentProfileId = await acceptPayment(deps, orgId, q, body);
  const by = actorOf(auth);
  const held = await admitSpending({ em: deps.em, temporal: deps.temporal, config: deps.config }, orgId, auth, {
    subject: 'Quote',
    customerId: q.customerId ?? null,
    customerNumber: q.customerNumber,
    currencyCode: q.currencyCode,
    total: new Decimal(offer.total ?? 0),
    lines: offer.lines.map((l) => ({ sku: l.sku, name: l.productName, quantity: l.quantity, unitPrice: String(l.netUnitPrice ?? l.unitPrice ?? '0'), lineTotal: String(l.lineTotal ?? '0') })),
    quoteAccept: { quoteId: q.id, by, poNumber: body.poNumber ?? null, paymentProfileId },
  });
  if (held) return held;
  await step(deps, q, (h) => h.executeUpdate(acceptQuoteUpdate, { args: [{ requestId: randomUUID(), by, poNumber: body.poNumber ?? null, ...(paymentProfileId ? { paymentProfileId } : {}) }] }));
  return reread(deps.em, orgId, auth, quoteId);
}

/** The card an accept charges (a saved card of the quote's customer, 404 otherwise; or the card given, tokenized: 402 when declined), or null on account. */
async function acceptPayment(deps: QuoteDeps, orgId: string, q: Quote, body: AcceptRequest): Promise<string | null> {
  if (body.paymentProfileId) {
    await findActivePaymentMethod(deps.em, orgId, q.customerId ?? null, body.paymentProfileId);
    return body.paymentProfileId;
  }
  const card = body.payment?.creditCard;
  if (!card || body.payment?.method === 'OnAccount') return null;
  const customer = q.customerId ? await deps.em.findOne(Customer, { organization: orgId, id: q.customerId }) : null;
  if (!customer) throw AppError.conflict('The customer of this quote no longer exists.');
  const gateway = await gatewayFor(deps.em, deps.config, orgId, deps.readCache);
  const profile = await gateway.tokenizeCard({
    customerNumber: q.customerNumber,
    email: customer.companyEmail ?? '',
    card: { number: card.cardNumber.replace(/\s+/g, ''), expMonth: card.expiryMonth, expYear: card.expiryYear, cvv: card.cvv },
    billingAddress: body.payment?.billingAddress ?? {},
  });
  return profile.paymentProfileId;
}

/** A buyer rejects an offer; a seller declines a request or counter (an Admin may do either). */
export async function rejectQuote(deps: QuoteDeps, orgId: string, auth: Principal, quoteId: string, body: { reason: string }) {
  const q = await findQuote(deps.em, orgId, auth, quoteId);
  const side: QuoteSide | null = auth.isSuper || auth.role === 'Admin' ? null : auth.role === 'Customer' ? 'buyer' : 'seller';
  precheck(q, 'reject', side);
  await step(deps, q, (h) => h.executeUpdate(rejectQuoteUpdate, { args: [{ requestId: randomUUID(), by: actorOf(auth), side, reason: body.reason }] }));
  return reread(deps.em, orgId, auth, quoteId);
}

/** The stored state already rules the step out: 409 without asking the workflow. */
function precheck(q: Quote, action: QuoteAction, side: QuoteSide | null): void {
  const m = quoteMove(q.status, action, { side: side ?? undefined, expiresAtMs: q.expiresAt?.getTime() ?? null, nowMs: Date.now() });
  if (!m.ok) throw AppError.conflict(m.reason);
}

type Handle = ReturnType<Client['workflow']['getHandle']>;
async function step(deps: QuoteDeps, q: Quote, run: (h: Handle) => Promise<QuoteState>): Promise<QuoteState> {
  try {
    return await run(deps.temporal.workflow.getHandle(quoteWorkflowId(q.id)));
  } catch (e) {
    // Refused by the validator, or by the handler once its turn came (another step got there first).
    const refusal = updateRefusal(e);
    if (refusal?.type === QUOTE_WRONG_STATE) throw AppError.conflict(refusal.message);
    // A refusal of a client kind (a declined card, a credit limit) answers as the workflow's failures do.
    const carried = updateAppError(e);
    if (carried) throw carried;
    if (isWorkflowNotFound(e)) throw AppError.conflict(`The quote is ${q.status}; its negotiation has ended.`);
    throw e;
  }
}

async function reread(em: EntityManager, orgId: string, auth: Principal, quoteId: string) {
  em.clear();
  return readQuote(em, orgId, auth, quoteId);
}

/** The webhook payload of a quote event. */
export function quoteEvent(q: Quote): Record<string, unknown> {
  const last = q.versions[q.versions.length - 1];
  return {
    quoteId: q.id,
    quoteNumber: q.quoteNumber,
    customerNumber: q.customerNumber,
    status: q.status,
    version: last?.version ?? null,
    total: last?.total !== null && last?.total !== undefined ? moneyNumber(last.total, q.currencyCode) : null,
    currencyCode: q.currencyCode,
    expiresAt: q.expiresAt ? q.expiresAt.toISOString() : null,
    orderId: q.orderId ?? null,
    orderNumber: q.orderNumber ?? null,
  };
}

const num = (v: string | null, cur: string) => (v === null ? null : moneyNumber(v, cur));
const fmt = (v: string | null, cur: string) => (v === null ? null : formatMoney(v, cur));

/** The quote as the API shows it: state, the current offer's totals, every version. */
export function quoteView(q: Quote): Out<typeof quote> {
  const cur = q.currencyCode;
  const offer = [...q.versions].reverse().find((v) => v.kind === 'Offer') ?? null;
  return {
    quoteId: q.id,
    quoteNumber: q.quoteNumber,
    status: q.status,
    customerNumber: q.customerNumber,
    companyName: q.companyName,
    priceTier: q.priceTier,
    currencyCode: cur,
    notes: q.notes ?? null,
    cartId: q.cartId ?? null,
    requestedBy: { userId: q.requestedByUserId ?? null, role: q.requestedByRole },
    expiresAt: q.expiresAt ? q.expiresAt.toISOString() : null,
    total: offer ? num(offer.total, cur) : null,
    totalFormatted: offer ? fmt(offer.total, cur) : null,
    orderId: q.orderId ?? null,
    orderNumber: q.orderNumber ?? null,
    rejectionReason: q.rejectionReason ?? null,
    versions: q.versions.map((v) => ({
      version: v.version,
      kind: v.kind,
      by: v.by,
      at: v.at,
      message: v.message,
      discountPercent: v.discountPercent,
      expiresAt: v.expiresAt,
      subtotal: num(v.subtotal, cur),
      discountAmount: num(v.discountAmount, cur),
      total: num(v.total, cur),
      totalFormatted: fmt(v.total, cur),
      lines: v.lines.map((l) => ({
        sku: l.sku,
        productName: l.productName,
        quantity: l.quantity,
        targetPrice: num(l.targetPrice, cur),
        listPrice: num(l.listPrice, cur),
        ...(l.priceListId ? { priceListId: l.priceListId } : {}),
        unitPrice: num(l.unitPrice, cur),
        netUnitPrice: num(l.netUnitPrice, cur),
        lineTotal: num(l.lineTotal, cur),
      })),
    })),
    createdAt: q.createdAt.toISOString(),
    updatedAt: q.updatedAt.toISOString(),
  };
}
