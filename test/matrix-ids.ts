/**
 * Rules of the id-substitution matrix (test/security-matrix.test.ts): which slot of which
 * operation carries which kind of id, and what a caller who may not see that id must get.
 *
 * A slot is a path parameter, a declared query parameter, a list filter field (discovered by
 * asking the list for an unknown field), or a body field (walked through the OpenAPI schema).
 * Every path parameter and every id-like query, filter or body field must have a rule here:
 * a kind (whose values the world in test/matrix-world.ts provides per party) or an exemption
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
};

/** A slot's leaf name looks like an id: such slots need a rule. */
export const ID_LIKE = /^(id|ids|sku|skus|category)$|Ids?$|ID$|Numbers?$|Skus?$|categoryName$|parentName$/;

/** Kind of a slot by its leaf name, wherever it appears. */
export const FIELD_KIND: Record<string, string> = {
  customerNumber: 'customerNumber',
  CustomerNumber: 'customerNumber',
  customerId: 'customerId',
  orderId: 'orderId',
  originationCartId: 'cartId',
  invoiceId: 'invoiceId',
  invoiceNumber: 'invoiceNumber',
  orderNumber: 'orderNumber',
  paymentId: 'paymentId',
  paymentProfileId: 'paymentProfileId',
  cartId: 'cartId',
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
};

/** Slot names that look like ids but are not references to a stored record, with the reason. */
export const EXEMPT_FIELDS: Record<string, string> = {
  phoneNumber: 'a phone number',
  PhoneNumber: 'a phone number',
  cardNumber: 'a card number (never stored)',
  poNumber: "the buyer's free-text purchase-order number",
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
  'POST /api/carts/{customerNumber} body:userId': 'customerUserId',
  'POST /api/orders body:user.userId': 'customerUserId',
  'POST /api/orders/bulk body:orders[].user.userId': 'customerUserId',
  'PUT /api/customers body:externalId': 'customerExternalId',
  'PUT /api/customers/{customerNumber} body:externalId': 'customerExternalId',
  'PUT /api/customers body:addresses[].externalId': { exempt: "matched only among the addresses of the customer being written, which the caller's scope already found" },
  'PUT /api/customers body:contacts[].externalId': { exempt: "matched only among the contacts of the customer being written, which the caller's scope already found" },
  'PUT /api/customers/{customerNumber} body:addresses[].externalId': { exempt: 'matched only among the addresses of the customer in the path' },
  'PUT /api/customers/{customerNumber} body:contacts[].externalId': { exempt: 'matched only among the contacts of the customer in the path' },
  'POST /api/orders body:externalId': 'orderExternalId',
  'POST /api/orders/bulk body:orders[].externalId': 'orderExternalId',
  'POST /api/invoices body:externalId': 'invoiceExternalId',
  'PUT /api/invoices/{invoiceId} body:externalId': 'invoiceExternalId',
  'POST /api/invoices/bulk body:invoices[].externalId': 'invoiceExternalId',
  'PUT /api/products body:externalId': 'productExternalId',
  'GET /api/products filter:externalId': 'productExternalId',
  'POST /api/companydocs/folders body:externalId': { exempt: "a label the client keeps on a folder it creates in the token's organization" },
  'POST /api/companydocs/documents/upload body:externalId': { exempt: "a label the client keeps on a document it creates in the token's organization" },
  'GET /api/organizations/users/associations filter:userId': 'customerUserId',
  'GET /api/organizations/users/associations filter:UserId': 'customerUserId',
  'POST /api/images/from-remote body:images[].imageName': { exempt: 'a file name' },
};

/** Expected answers that differ from the default (404; 403 for a role the operation never admits; 401 without a token). */
export interface Expectation {
  /** Statuses accepted for this case. */
  statuses: number[];
  /** Why, when it is not the default. */
  why?: string;
  /**
   * The foreign key names a record the caller may create in its own scope (an upsert by natural
   * key, or a list filter): any non-5xx answer is fine so long as the target is unchanged and the
   * answer shows nothing of it. These cases run last, as they may create records.
   */
  newInOwnScope?: boolean;
}

/** Operations whose natural key, from another organization, only names a new record in the caller's. */
const UPSERT_KEYS = new Set([
  'PUT /api/customers body:customerNumber',
  'PUT /api/customers body:externalId',
  'PUT /api/products body:sku',
  'PUT /api/products body:externalId',
  'POST /api/orders body:externalId',
  'POST /api/orders/bulk body:orders[].externalId',
  'POST /api/orders/bulk body:orders[].orderNumber',
  'POST /api/invoices body:invoiceNumber',
  'POST /api/invoices body:externalId',
  'POST /api/invoices body:orderNumber',
  'POST /api/invoices/bulk body:invoices[].invoiceNumber',
  'POST /api/invoices/bulk body:invoices[].externalId',
  'POST /api/invoices/bulk body:invoices[].orderNumber',
  'PUT /api/invoices/{invoiceId} body:invoiceNumber',
  'PUT /api/invoices/{invoiceId} body:externalId',
  'PUT /api/invoices/{invoiceId} body:orderNumber',
]);

/** Customer references that an Admin's order or invoice snapshot may carry for a customer not (yet) on file. */
const ADMIN_SNAPSHOT_KEYS = new Set([
  'POST /api/orders body:customer.customerNumber',
  'POST /api/orders/bulk body:orders[].customer.customerNumber',
  'POST /api/invoices body:customer.customerNumber',
  'POST /api/invoices/bulk body:invoices[].customer.customerNumber',
  'PUT /api/invoices/{invoiceId} body:customer.customerNumber',
]);

export type Actor = 'Admin' | 'SalesRep' | 'Customer' | 'none';

export function expectation(opKey: string, slot: string, kind: string, actor: Actor, roles: string[], target: 'A2' | 'B1'): Expectation {
  if (actor === 'none') return { statuses: [401] };
  if (!roles.includes(actor)) return { statuses: [403], why: 'the role may never call the operation' };
  const key = `${opKey} ${slot}`;
  if (slot.startsWith('filter:')) return { statuses: [200, 404], newInOwnScope: true, why: 'a list filtered on a foreign id lists nothing' };
  if (kind === 'organizationId') {
    if (opKey.startsWith('GET /api/analytics/')) return { statuses: [400], why: 'DESIGN: analytics reject an organizationId parameter with 400' };
    return { statuses: [403], why: "DESIGN: an organization id that differs from the token's answers 403" };
  }
  // An Admin may write any record of its organization: another organization's natural key is a new one of its own.
  if (target === 'B1' && (UPSERT_KEYS.has(key) || (actor === 'Admin' && ADMIN_SNAPSHOT_KEYS.has(key)))) return { statuses: [200, 201, 202, 207, 400, 404, 409], newInOwnScope: true, why: "another organization's natural key names a new record in the caller's" };
  return { statuses: [404] };
}
