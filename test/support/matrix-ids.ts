/**
 * Rules of the id-substitution matrix (test/security-matrix.test.ts): which slot of which
 * operation carries which kind of id, and what a caller who may not see that id must get.
 *
 * A slot is a path parameter, a declared query parameter, a list filter field (discovered by
 * asking the list for an unknown field), or a body field (walked through the OpenAPI schema).
 * Every path parameter and every id-like query, filter or body field must have a rule here:
 * a kind (whose values the world in test/support/matrix-world.ts provides per party) or an exemption
 * with its reason. A new route whose id slot has no rule fails the matrix's coverage test.
 */

/** Who owns a kind of id: a customer (the other customer's id is foreign), a rep, or the organization. */
export type Scope = 'customer' | 'rep' | 'org';

export const KIND_SCOPE: Record<string, Scope> = {
  customerNumber: 'customer',
  customerId: 'customer',
  customerExternalId: 'customer',
  customerUserId: 'customer',
  orderId: 'customer',
  orderNumber: 'customer',
  orderExternalId: 'customer',
  invoiceId: 'customer',
  invoiceNumber: 'customer',
  invoiceExternalId: 'customer',
  paymentId: 'customer',
  cartId: 'customer',
  quoteId: 'customer',
  creditNoteId: 'customer',
  returnId: 'customer',
  quoteNumber: 'customer',
  approvalId: 'customer',
  shipmentId: 'customer',
  paymentProfileId: 'customer',
  repNumber: 'rep',
  salesRepId: 'rep',
  organizationSalesRepId: 'rep',
  repUserId: 'rep',
  statementId: 'rep',
  commissionPlanId: 'rep',
  organizationId: 'org',
  adminUserId: 'org',
  sku: 'org',
  productExternalId: 'org',
  category: 'org',
  imageId: 'org',
  ingestionJobId: 'org',
  folderId: 'org',
  documentId: 'org',
  webhookId: 'org',
  deliveryId: 'org',
  integrationId: 'org',
  importJobId: 'org',
  uploadId: 'org',
  paymentTermId: 'org',
  locationId: 'org',
  catalogId: 'org',
  priceListId: 'org',
};

/** A slot's leaf name looks like an id: such slots need a rule. */
export const ID_LIKE = /^(id|ids|sku|skus|category)$|Ids?$|ID$|Numbers?$|Skus?$|categoryName$|parentName$/;

/** Kind of a slot by its leaf name, wherever it appears. */
export const FIELD_KIND: Record<string, string> = {
  customerNumber: 'customerNumber',
  CustomerNumber: 'customerNumber',
  CustomerNumbers: 'customerNumber',
  customerId: 'customerId',
  orderId: 'orderId',
  originationCartId: 'cartId',
  invoiceId: 'invoiceId',
  invoiceNumber: 'invoiceNumber',
  orderNumber: 'orderNumber',
  paymentId: 'paymentId',
  paymentProfileId: 'paymentProfileId',
  cartId: 'cartId',
  quoteId: 'quoteId',
  creditNoteId: 'creditNoteId',
  returnId: 'returnId',
  quoteNumber: 'quoteNumber',
  approvalId: 'approvalId',
  shipmentId: 'shipmentId',
  shoppingCartId: 'cartId',
  repNumber: 'repNumber',
  RepNumber: 'repNumber',
  salesRepId: 'salesRepId',
  SalesRepId: 'salesRepId',
  organizationSalesRepId: 'organizationSalesRepId',
  statementId: 'statementId',
  commissionPlanId: 'commissionPlanId',
  sku: 'sku',
  productSku: 'sku',
  category: 'category',
  categoryName: 'category',
  parentName: 'category',
  id: 'imageId',
  ids: 'imageId',
  jobId: 'ingestionJobId',
  folderId: 'folderId',
  parentId: 'folderId',
  targetFolderId: 'folderId',
  documentId: 'documentId',
  documentIds: 'documentId',
  webhookId: 'webhookId',
  deliveryId: 'deliveryId',
  integrationId: 'integrationId',
  importJobId: 'importJobId',
  uploadId: 'uploadId',
  organizationId: 'organizationId',
  OrganizationId: 'organizationId',
  paymentTermId: 'paymentTermId',
  locationId: 'locationId',
  catalogId: 'catalogId',
  priceListId: 'priceListId',
  customerNumbers: 'customerNumber',
};

/** Slot names that look like ids but are not references to a stored record, with the reason. */
export const EXEMPT_FIELDS: Record<string, string> = {
  phoneNumber: 'a phone number',
  PhoneNumber: 'a phone number',
  cardNumber: 'a card number (never stored)',
  poNumber: "the buyer's free-text purchase-order number",
  trackingNumber: "the carrier's free-text tracking number of a shipment",
  pageNumber: 'a page of a list',
  ClientId: 'public client-credentials login: a wrong ClientId is a 401 (test/auth.test.ts)',
  TransactionSetupID: 'public hosted-payment callback, authenticated by its signature (test/hosted-callback-secret.test.ts)',
  TransactionId: "the provider's transaction id in the signed callback",
  PaymentProfileId: "the provider's profile id in the signed callback",
};

/** Kind or exemption of one slot of one operation ("METHOD /path where:field.path"), overriding FIELD_KIND. */
export const SLOT_KIND: Record<string, string | { exempt: string }> = {
  'POST /api/auth/access body:UserId': 'customerUserId',
  'DELETE /api/organizations/users/admins body:UserId': 'adminUserId',
  'POST /api/organizations/users/associate-customer body:UserId': 'customerUserId',
  'GET /api/users/customer-association query:UserId': 'customerUserId',
  'GET /api/users/customer-associations query:UserId': 'customerUserId',
  'POST /api/carts/{customerNumberOrCartId} body:userId': 'customerUserId',
  // One OpenAPI template for POST /api/carts/{customerNumber} and GET /api/carts/{cartId} (identical templates otherwise).
  'POST /api/carts/{customerNumberOrCartId} path:customerNumberOrCartId': 'customerNumber',
  'GET /api/carts/{customerNumberOrCartId} path:customerNumberOrCartId': 'cartId',
  // GET /api/invoices?customerId= takes a customer number (SPEC names it customerId).
  'GET /api/invoices query:customerId': 'customerNumber',
  'POST /api/orders body:user.userId': 'customerUserId',
  'POST /api/orders/bulk body:orders[].user.userId': 'customerUserId',
  'PUT /api/customers body:externalId': 'customerExternalId',
  'PUT /api/customers/{customerNumber} body:externalId': 'customerExternalId',
  'PUT /api/customers body:addresses[].externalId': {
    exempt: "matched only among the addresses of the customer being written, which the caller's scope already found",
  },
  'PUT /api/customers body:contacts[].externalId': {
    exempt: "matched only among the contacts of the customer being written, which the caller's scope already found",
  },
  'PUT /api/customers/{customerNumber} body:addresses[].externalId': { exempt: 'matched only among the addresses of the customer in the path' },
  'PUT /api/customers/{customerNumber} body:contacts[].externalId': { exempt: 'matched only among the contacts of the customer in the path' },
  'POST /api/orders body:externalId': 'orderExternalId',
  'POST /api/orders/bulk body:orders[].externalId': 'orderExternalId',
  'POST /api/invoices body:externalId': 'invoiceExternalId',
  'PUT /api/invoices/{invoiceId} body:externalId': 'invoiceExternalId',
  'POST /api/invoices/bulk body:invoices[].externalId': 'invoiceExternalId',
  'PUT /api/products body:externalId': 'productExternalId',
  'GET /api/products/search filter:externalId': 'productExternalId',
  'GET /api/products filter:externalId': 'productExternalId',
  'GET /api/catalogs/{catalogId}/products filter:externalId': 'productExternalId',
  'POST /api/companydocs/folders body:externalId': { exempt: "a label the client keeps on a folder it creates in the token's organization" },
  'POST /api/companydocs/documents/upload body:externalId': { exempt: "a label the client keeps on a document it creates in the token's organization" },
  'GET /api/organizations/users/associations filter:userId': 'customerUserId',
  'GET /api/organizations/users/associations filter:UserId': 'customerUserId',
  'POST /api/images/from-remote body:images[].imageName': { exempt: 'a file name' },
  'PUT /api/organizations/salesreps body:repNumber': { exempt: 'the number the new rep gets in the token organization, not a reference' },
  'POST /api/organizations/{organizationId}/salesreps body:RepNumber': { exempt: 'the number the new rep gets in the token organization, not a reference' },
  'GET /api/quotes filter:quoteNumber': {
    exempt: "quote numbers run per organization (Q-000001 in each): another organization's number matches only the caller's own quote with that number",
  },
  'GET /api/credit-notes filter:creditNoteNumber': {
    exempt: "credit note numbers run per organization (CN-000001 in each): another organization's number matches only the caller's own note with that number",
  },
  'GET /api/returns filter:rmaNumber': {
    exempt: "RMA numbers run per organization (RMA-000001 in each): another organization's number matches only the caller's own return with that number",
  },
  'POST /api/returns body:lines[].sku': { exempt: "matched only among the lines of the order named by orderId, which the caller's scope already found (another SKU is a 400)" },
  'POST /api/returns/{returnId}/receive body:lines[].sku': { exempt: "matched only among the lines of the return in the path, which the caller's scope already found (another SKU is a 400)" },
  'PUT /api/customers/{customerNumber}/buyers/{userId} path:userId': 'customerUserId',
  'DELETE /api/customers/{customerNumber}/buyers/{userId} path:userId': 'customerUserId',
  'PATCH /api/organizations/salesreps body:repNumber': { exempt: 'the new number of a rep of the token organization, not a reference' },
  'POST /api/orders/{orderId}/shipments body:locationId': {
    exempt: 'stored on the shipment as given until stock locations exist (the stock branch: shipStock checks it in the organization at the merge)',
  },
  'POST /api/orders/{orderId}/shipments body:lines[].sku': { exempt: "matched only among the lines of the order in the path, which the caller's scope already found (another SKU is a 400)" },
};

/** What a caller who may not see the target must get. */
export interface Expectation {
  /** Statuses accepted for this case. */
  statuses: number[];
  /** Why, when it is not the default. */
  why?: string;
  /**
   * A body or query reference may also be refused with another 4xx (a 400 naming the field, a
   * 403 by a role rule) when an id that exists nowhere gets the very same answer: nothing tells
   * the caller that the target exists.
   */
  oracle?: boolean;
  /**
   * A 2xx is fine: 'label' (another organization's key only names a new record or a free-text
   * label in the caller's own organization; the target stays unchanged), 'ignored' (the server
   * ignores the field for this role: the record written must not carry the foreign value),
   * 'rowErrors' (the answer refuses the row in an errors list). Such cases run last, one at a
   * time, as they may write the caller's own records.
   */
  allow2xx?: 'label' | 'ignored' | 'rowErrors';
}

/** Natural keys of the record being written: another organization's is a new key of the caller's. */
const UPSERT_KEYS = new Set([
  'PUT /api/customers body:customerNumber',
  'PUT /api/customers body:externalId',
  'PUT /api/customers/{customerNumber} body:customerNumber',
  'PUT /api/customers/{customerNumber} body:externalId',
  'PUT /api/products body:sku',
  'PUT /api/products body:externalId',
  'POST /api/orders body:externalId',
  'POST /api/orders/bulk body:orders[].externalId',
  'POST /api/orders/bulk body:orders[].orderNumber',
  'POST /api/invoices body:invoiceNumber',
  'POST /api/invoices body:externalId',
  'POST /api/invoices/bulk body:invoices[].invoiceNumber',
  'POST /api/invoices/bulk body:invoices[].externalId',
  'PUT /api/invoices/{invoiceId} body:invoiceNumber',
  'PUT /api/invoices/{invoiceId} body:externalId',
]);

/**
 * References an Admin's order, invoice, customer, product or image may carry as labels of its own
 * organization (imports of records whose counterpart is not, or not yet, on file): a rep number,
 * sku, user id, category or cart id of another organization names nothing there.
 */
const ADMIN_LABELS = new Set([
  'POST /api/orders body:customer.customerNumber',
  'POST /api/orders body:primarySalesRep.repNumber',
  'POST /api/orders body:takenBySalesRep.repNumber',
  'POST /api/orders body:items[].sku',
  'POST /api/orders body:user.userId',
  'POST /api/orders body:originationCartId',
  'POST /api/orders/bulk body:orders[].customer.customerNumber',
  'POST /api/orders/bulk body:orders[].primarySalesRep.repNumber',
  'POST /api/orders/bulk body:orders[].takenBySalesRep.repNumber',
  'POST /api/orders/bulk body:orders[].items[].sku',
  'POST /api/orders/bulk body:orders[].user.userId',
  'POST /api/orders/bulk body:orders[].originationCartId',
  'POST /api/invoices body:customer.customerNumber',
  'POST /api/invoices body:primarySalesRep.repNumber',
  'POST /api/invoices body:items[].sku',
  'POST /api/invoices body:orderId',
  'POST /api/invoices body:orderNumber',
  'POST /api/invoices/bulk body:invoices[].customer.customerNumber',
  'POST /api/invoices/bulk body:invoices[].primarySalesRep.repNumber',
  'POST /api/invoices/bulk body:invoices[].items[].sku',
  'POST /api/invoices/bulk body:invoices[].orderId',
  'POST /api/invoices/bulk body:invoices[].orderNumber',
  'PUT /api/invoices/{invoiceId} body:customer.customerNumber',
  'PUT /api/invoices/{invoiceId} body:primarySalesRep.repNumber',
  'PUT /api/invoices/{invoiceId} body:items[].sku',
  'PUT /api/invoices/{invoiceId} body:orderId',
  'PUT /api/invoices/{invoiceId} body:orderNumber',
  'PUT /api/customers body:repNumber',
  'PUT /api/customers/{customerNumber} body:repNumber',
  'PUT /api/products body:category',
  // A catalog's SKU rule may name a product not created yet (docs/catalogs.md).
  'POST /api/catalogs body:selections[].sku',
  'PUT /api/catalogs/{catalogId} body:selections[].sku',
  'POST /api/images/from-local body:sku',
  'POST /api/images/from-remote body:images[].productSku',
  'POST /api/images/category body:categoryName',
  'POST /api/commissions/plans body:CustomerOverrides[].CustomerNumber',
  'POST /api/commissions/plans body:Rules[].Match.CustomerNumbers[]',
  'POST /api/commissions/plans body:CustomerOverrides[].Rules[].Match.CustomerNumbers[]',
  'PUT /api/commissions/plans/{commissionPlanId} body:CustomerOverrides[].CustomerNumber',
  'PUT /api/commissions/plans/{commissionPlanId} body:Rules[].Match.CustomerNumbers[]',
  'PUT /api/commissions/plans/{commissionPlanId} body:CustomerOverrides[].Rules[].Match.CustomerNumbers[]',
]);

/** Labels for every role: stored as given, never resolved to a record. */
const LABELS = new Set(['POST /api/carts/{customerNumberOrCartId} body:userId']);

/** Fields a Customer or SalesRep order may carry but the server ignores for them (DESIGN: attribution is ignored). */
const IGNORED_FOR_BUYERS = new Set([
  'POST /api/orders body:primarySalesRep.repNumber',
  'POST /api/orders body:takenBySalesRep.repNumber',
  'POST /api/orders body:user.userId',
  'POST /api/orders body:originationCartId',
]);

/** A new value for a unique field of a record addressed by id: a value already taken is a 409, as for any unique field. */
const RENAMES = new Set([
  'PUT /api/customers/{customerNumber} body:customerNumber',
  'PUT /api/customers/{customerNumber} body:externalId',
  'PUT /api/invoices/{invoiceId} body:invoiceNumber',
  'PUT /api/invoices/{invoiceId} body:externalId',
]);

/** Operations that refuse a row in an errors list of a 2xx answer. */
const ROW_ERRORS = new Set(['PUT /api/products/prices body:productUpdates[].sku']);

/** GET operations whose query parameter names the one record to read (not a list narrowed by it). */
const LOOKUP_QUERIES = new Set(['GET /api/users/customer-association query:UserId']);

/** Where SPEC states another status, or a role rule refuses the field whatever it names. */
const STATUS_OVERRIDES: Record<string, Expectation> = {
  'DELETE /api/organizations/users/admins body:UserId': { statuses: [400, 404], why: 'SPEC: 400 "UserId missing or user not found"' },
  'POST /api/auth/access body:UserId as Customer': {
    statuses: [403, 404],
    why: 'a Customer may enrich only its own token: any other UserId is refused by role, whether or not it exists',
  },
};

/**
 * Customer users with a buyer role at A1's customer C (docs/approvals.md, issue 38): a Buyer with
 * limits, an Approver with limits, and a former Approver of C now associated with A2's customer.
 * Their token's role is Customer: for the id-substitution rules they are customer users like any
 * other (a buyer role widens nothing beyond the customer's buyers and approvals); what the role
 * itself allows is `buyerRule` below.
 */
export const BUYER_ACTORS = ['Buyer', 'Approver', 'FormerApprover'] as const;
export type BuyerActor = (typeof BUYER_ACTORS)[number];

export type Actor = 'Admin' | 'SalesRep' | 'Customer' | BuyerActor | 'none';

export const isBuyerActor = (a: Actor): a is BuyerActor => (BUYER_ACTORS as readonly string[]).includes(a);

/** The role of the actor's token, as an operation's x-roles names it. */
export const roleOf = (a: Actor): string => (isBuyerActor(a) ? 'Customer' : a);

/**
 * `target`: 'A2' is a party of the caller's own organization other than the caller's (the other
 * customer and rep; for the former Approver, its former customer C), 'B1' the other organization.
 */
export function expectation(opKey: string, slot: string, kind: string, actor: Actor, roles: string[], target: 'A2' | 'B1'): Expectation {
  if (actor === 'none') return { statuses: [401] };
  const role = roleOf(actor);
  if (!roles.includes(role)) return { statuses: [403], why: 'the role may never call the operation' };
  const key = `${opKey} ${slot}`;
  if (kind === 'organizationId') {
    if (opKey.startsWith('GET /api/analytics/')) return { statuses: [400], why: 'DESIGN: analytics reject an organizationId parameter with 400' };
    return { statuses: [403], why: "DESIGN: an organization id that differs from the token's answers 403" };
  }
  if (slot.startsWith('filter:')) return { statuses: [200, 404], why: 'a list filtered on a foreign id lists nothing of it' };
  // A list narrowed by a query parameter answers an empty list or 404; the answer is checked for the target's ids.
  if (slot.startsWith('query:') && opKey.startsWith('GET ') && !opKey.includes('{') && !LOOKUP_QUERIES.has(key))
    return { statuses: [200, 404], oracle: true, why: 'a list narrowed to a foreign id shows nothing of it' };
  const override = STATUS_OVERRIDES[`${key} as ${role}`] ?? STATUS_OVERRIDES[key];
  if (override) return override;
  const anyRefusal = [400, 403, 404, 409, 422];
  if (target === 'B1' && (UPSERT_KEYS.has(key) || (actor === 'Admin' && ADMIN_LABELS.has(key))))
    return { statuses: anyRefusal, allow2xx: 'label', why: "another organization's key names a new record or label in the caller's" };
  if (LABELS.has(key)) return { statuses: anyRefusal, allow2xx: 'label', why: 'a label the server stores as given and never resolves' };
  if (target === 'A2' && RENAMES.has(key)) return { statuses: [403, 404, 409], why: 'a new value that is already taken answers 409' };
  if (target === 'A2' && UPSERT_KEYS.has(key))
    return { statuses: [403, 404], why: 'issue 16 finding 2: a natural key the caller may not see is a per-row 404/403' };
  if (actor !== 'Admin' && IGNORED_FOR_BUYERS.has(key))
    return { statuses: anyRefusal, allow2xx: 'ignored', why: 'DESIGN: the attribution of Customer and SalesRep orders is ignored' };
  if (ROW_ERRORS.has(key)) return { statuses: anyRefusal, allow2xx: 'rowErrors', oracle: true };
  if (slot.startsWith('path:')) return { statuses: [404] };
  return { statuses: [404], oracle: true };
}

// ---------------------------------------------------------------------------------------------
// Buyer roles (docs/approvals.md "Buyers and limits", "Deciding"; docs/security.md "Buyer roles")
// ---------------------------------------------------------------------------------------------

export interface BuyerGrant {
  role: 'Buyer' | 'Approver';
  orderLimit: number | null;
  monthlyLimit: number | null;
}

/** What the rules need to know of the organization: who is associated with which customer now, the buyer rows, the approval requests. */
export interface BuyerModel {
  /** userId -> the customer number the user is associated with now. */
  customerOf: Record<string, string>;
  /** customerNumber -> userId -> buyer row. */
  rows: Record<string, Record<string, BuyerGrant>>;
  approvals: Record<string, { customerNumber: string; requester: string; asked: string[]; status: string }>;
}

/** One request of a buyer-role caller: the caller, and what the request names. */
export interface BuyerRequest {
  opKey: string;
  caller: string;
  customerNumber?: string;
  userId?: string;
  approvalId?: string;
  body?: Partial<BuyerGrant>;
}

const LIMITS = ['orderLimit', 'monthlyLimit'] as const;
/** A 403; `fields`: the refusal is about these values and its problem names them in `errors`. */
const refuse = (why: string, fields?: string[]): Expectation & { fields?: string[] } => ({ statuses: [403], why, ...(fields ? { fields } : {}) });

/**
 * What a customer user must get on the buyer and approval operations, from the rules of
 * docs/approvals.md, or undefined for an operation they do not govern:
 *   - a customer, its buyers and its approvals are seen only by the customer's users now (404 for
 *     anyone else, a former Approver included: its role ended with its membership);
 *   - buyers are managed by admins and the customer's Approvers (a Buyer or a user without a role: 403);
 *   - nobody changes their own row; only admins change an Approver's row or make an Approver;
 *   - an Approver grants at most its own limits (none only when it has none), and removing a row,
 *     which lifts that buyer's limits, needs an Approver without limits (403 naming the fields);
 *   - an approval is seen by its requester and the customer's Approvers (404 otherwise), decided
 *     only by an Approver who was asked and is not the requester (403), and only while Pending (409).
 */
export function buyerRule(r: BuyerRequest, m: BuyerModel): (Expectation & { fields?: string[] }) | undefined {
  const own = m.customerOf[r.caller];
  const rowsOf = (c: string) => m.rows[c] ?? {};
  const isApproverAt = (c: string) => rowsOf(c)[r.caller]?.role === 'Approver';
  const buyerOp = /^(GET|PUT|DELETE) \/api\/customers\/\{customerNumber\}\/buyers/.exec(r.opKey);
  if (buyerOp) {
    const c = r.customerNumber!;
    if (c !== own) return { statuses: [404], why: "another customer's buyers (a former Approver's too)" };
    if (r.userId !== undefined && m.customerOf[r.userId] !== c) return { statuses: [404], why: 'the user is not associated with the customer' };
    if (!isApproverAt(c)) return refuse("only an admin or one of the customer's Approvers manages its buyers");
    if (buyerOp[1] === 'GET') return { statuses: [200] };
    const current = rowsOf(c)[r.userId!];
    if (buyerOp[1] === 'DELETE' && !current) return { statuses: [404], why: 'no buyer row to remove' };
    if (r.userId === r.caller) return refuse('nobody changes their own buyer row');
    if (current?.role === 'Approver') return refuse("only admins change an Approver's row");
    const mine = rowsOf(c)[r.caller];
    if (buyerOp[1] === 'DELETE') {
      const limited = LIMITS.filter((f) => mine[f] !== null);
      return limited.length ? refuse("removing a row lifts the buyer's limits: more than an Approver with limits has") : { statuses: [204] };
    }
    const fields: string[] = [];
    if (r.body?.role === 'Approver') fields.push('role');
    for (const f of LIMITS) {
      const granted = r.body?.[f] ?? null;
      if (mine[f] !== null && (granted === null || granted > mine[f])) fields.push(f);
    }
    return fields.length ? refuse('an Approver grants at most its own role and limits', fields) : { statuses: [200] };
  }
  const approvalOp = /^(GET|POST) \/api\/approvals\/\{approvalId\}(\/(approve|reject))?$/.exec(r.opKey);
  if (approvalOp) {
    const a = m.approvals[r.approvalId!];
    const visible = !!a && a.customerNumber === own && (a.requester === r.caller || isApproverAt(a.customerNumber));
    if (!visible) return { statuses: [404], why: 'an approval is seen by its requester and the Approvers of its customer now' };
    if (!approvalOp[3]) return { statuses: [200] };
    if (a.requester === r.caller) return refuse('a buyer cannot decide their own request');
    if (!a.asked.includes(r.caller)) return refuse('only an Approver who was asked decides');
    if (a.status !== 'Pending') return { statuses: [409], why: 'already decided' };
    return { statuses: [200] };
  }
  return undefined;
}

/** The approvals a customer user's list shows: those `buyerRule` lets it read. */
export function visibleApprovals(caller: string, m: BuyerModel): string[] {
  return Object.keys(m.approvals).filter((id) => buyerRule({ opKey: 'GET /api/approvals/{approvalId}', caller, approvalId: id }, m)?.statuses[0] === 200);
}
