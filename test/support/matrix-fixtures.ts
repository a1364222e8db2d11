/**
 * Fixtures for the security matrix (test/security-matrix-auth.test.ts). The matrix walks every
 * operation in /openapi.json; for each path parameter other than `organizationId` it needs a
 * way to create that resource in a given organization, so it can prove that another
 * organization's resource answers 404. An operation whose path parameter has no fixture here
 * fails the matrix: a new endpoint joins by registering its parameter below.
 *
 * Where the synthesized request body (from the OpenAPI schema) would not pass validation,
 * register a valid body under "METHOD /path" (OpenAPI form) in `matrixBodies`, so the request
 * reaches the handler's organization lookup.
 */
import { randomUUID } from 'node:crypto';
import { call, dbQuery, uniq, type OrgFixture } from './helpers';
import { makeImage, startIngestion, uploadImage } from './image-helpers';

/** Creates the resource named by a path parameter in `org` and returns the value for the path. */
export type ParamFixture = (org: OrgFixture) => Promise<string>;

/** Creates the price tier `name` in the organization unless it already exists. */
export async function ensurePriceTier(org: OrgFixture, name = 'Retail', currencyCode = 'USD'): Promise<string> {
  const res = await call('POST', '/api/organizations/price-tiers', { base: org.base, token: org.adminToken, body: { Name: name, CurrencyCode: currencyCode } });
  if (res.status !== 200 && res.status !== 409) throw new Error(`create price tier failed: ${res.status} ${res.text}`);
  return name;
}

export const pathParamFixtures: Record<string, ParamFixture> = {
  async customerNumber(org) {
    const pricing = await ensurePriceTier(org);
    const customerNumber = uniq('C');
    const res = await call('PUT', '/api/customers', {
      base: org.base,
      token: org.adminToken,
      body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${customerNumber.toLowerCase()}@example.com`, pricing },
    });
    if (res.status !== 201 && res.status !== 200) throw new Error(`create customer failed: ${res.status} ${res.text}`);
    return customerNumber;
  },
};

/** `/api/organizations/payment-terms/:paymentTermId`: a Net 30 term of the organization. */
pathParamFixtures.paymentTermId = async (org) => {
  const res = await call('POST', '/api/organizations/payment-terms', { base: org.base, token: org.adminToken, body: { Name: uniq('Net 30 '), Type: 'Net', Days: 30 } });
  if (res.status !== 201) throw new Error(`create payment term failed: ${res.status} ${res.text}`);
  return res.body.PaymentTermId;
};

/** `/api/price-lists/:priceListId`: a Draft price list of the organization (issue 40). */
pathParamFixtures.priceListId = async (org) => {
  const res = await call('POST', '/api/price-lists', { base: org.base, token: org.adminToken, body: { name: uniq('List '), currencyCode: 'USD', priority: 10, status: 'Draft' } });
  if (res.status !== 201) throw new Error(`create price list failed: ${res.status} ${res.text}`);
  return res.body.priceListId;
};

/** `/api/catalogs/:catalogId`: an empty catalog of the organization (issue 40). */
pathParamFixtures.catalogId = async (org) => {
  const res = await call('POST', '/api/catalogs', { base: org.base, token: org.adminToken, body: { name: uniq('Catalog ') } });
  if (res.status !== 201) throw new Error(`create catalog failed: ${res.status} ${res.text}`);
  return res.body.catalogId;
};

/** Former name, kept for fixtures registered by assignment. */
export const matrixFixtures = pathParamFixtures;

/** Valid request bodies per operation ("POST /api/things/{thingId}"), when the synthesized one is not valid. */
export const matrixBodies: Record<string, (org: OrgFixture) => unknown> = {};

/** A request body built from a JSON schema: required properties only, with plausible values. */
export function synthesizeBody(schema: Record<string, any> | undefined): unknown {
  if (!schema) return undefined;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.enum?.length) return schema.enum[0];
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const k of schema.required ?? []) out[k] = synthesizeBody(schema.properties?.[k]);
      return out;
    }
    case 'array':
      return schema.minItems ? Array.from({ length: schema.minItems }, () => synthesizeBody(schema.items)) : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'email') return 'matrix@example.com';
      if (schema.format === 'uri') return 'https://example.com/';
      if (schema.format === 'date-time') return new Date().toISOString();
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    default:
      return 'x';
  }
}

/** `/api/images/:id` */
pathParamFixtures.id = async (org) => uploadImage(org, { data: await makeImage(40, 30) });
/** `/api/images/ingestions/:jobId` (the URL need not answer; the job exists at once). */
pathParamFixtures.jobId = async (org) => startIngestion(org, [{ imageUrl: 'http://127.0.0.1:9/none.png' }]);

/** `/api/products/{sku}` */
pathParamFixtures.sku = async (org) => {
  const sku = uniq('SKU-');
  const res = await call('PUT', '/api/products', { base: org.base, token: org.adminToken, body: { sku, name: `Product ${sku}` } });
  if (res.status !== 201) throw new Error(`create product failed: ${res.status} ${res.text}`);
  return sku;
};

/** `/api/categories/{category}` */
pathParamFixtures.category = async (org) => {
  const name = uniq('Cat');
  const res = await call('PUT', '/api/categories', { base: org.base, token: org.adminToken, body: { name, parentName: null, active: true } });
  if (res.status !== 201) throw new Error(`create category failed: ${res.status} ${res.text}`);
  return name;
};

/** Creates a customer with a priced product in `org`; returns both keys. */
export async function customerWithProduct(org: OrgFixture, opts: { price?: number; minimumOrderQuantity?: number; quantityIncrement?: number } = {}) {
  const customerNumber = await pathParamFixtures.customerNumber(org);
  const sku = uniq('SKU-');
  const res = await call('PUT', '/api/products', {
    base: org.base,
    token: org.adminToken,
    body: {
      sku,
      name: `Product ${sku}`,
      minimumOrderQuantity: opts.minimumOrderQuantity ?? 1,
      quantityIncrement: opts.quantityIncrement ?? 1,
      prices: [{ tier: 'Retail', price: opts.price ?? 10, atQuantity: 1 }],
    },
  });
  if (res.status !== 201) throw new Error(`create product failed: ${res.status} ${res.text}`);
  return { customerNumber, sku };
}

/** Routes the organization's e-mail through its own SMTP server at 127.0.0.1:`port` (an Smtp integration, enabled; no login). The create answer. */
export function smtpIntegration(org: OrgFixture, port: number, from: string, displayName = 'Own mail') {
  return call('POST', `/api/organizations/${org.organizationId}/integrations`, {
    base: org.base,
    token: org.adminToken,
    body: { integrationType: 4, provider: 'Smtp', displayName, configuration: { Host: '127.0.0.1', Port: port, From: from } },
  });
}

/** `/api/carts/:cartId` and `/api/carts/{customerNumber}/{shoppingCartId}`: a cart with one item for a new customer. */
pathParamFixtures.cartId = async (org) => {
  const { customerNumber, sku } = await customerWithProduct(org);
  const res = await call('POST', `/api/carts/${customerNumber}`, { base: org.base, token: org.adminToken, body: { customerNumber, sku, quantity: 1, orderType: 'Standard' } });
  if (res.status !== 201) throw new Error(`create cart failed: ${res.status} ${res.text}`);
  return res.body.shoppingCartId;
};
pathParamFixtures.shoppingCartId = (org) => pathParamFixtures.cartId(org);
/** `/api/carts/{customerNumberOrCartId}` (POST: a customer number, GET: a cart id): another organization's cart id answers 404 to both. */
pathParamFixtures.customerNumberOrCartId = (org) => pathParamFixtures.cartId(org);

/** `/api/orders/:orderId` */
pathParamFixtures.orderId = async (org) => {
  const res = await call('POST', '/api/orders', {
    base: org.base,
    token: org.adminToken,
    body: {
      customer: { customerNumber: uniq('C'), companyName: 'Matrix Co' },
      orderType: 'Direct',
      poNumber: 'PO-1',
      priceTier: 'Retail',
      currencyCode: 'USD',
      primarySalesRep: { repNumber: 'R1' },
      items: [{ sku: 'S1', productName: 'Thing', quantity: 1, price: 1 }],
      user: { userId: 'u1', userType: 'Admin' },
    },
  });
  if (res.status !== 201) throw new Error(`create order failed: ${res.status} ${res.text}`);
  return res.body.data.id;
};

matrixBodies['PUT /api/carts/{customerNumber}/{shoppingCartId}/shipping'] = () => ({
  customerNumber: 'x',
  shippingAddress: { line1: '1 Main St', city: 'Springfield', country: 'US' },
});
/** A Draft invoice body for `org` (tests and the matrix). */
export function invoiceBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  const n = uniq('C');
  return {
    orderId: '3f0a4c1e-9b1d-4c55-8a9e-0b6f0f2d1a11',
    orderNumber: uniq('SO-'),
    customer: { customerNumber: n, companyName: `Company ${n}`, companyEmail: `${n.toLowerCase()}@example.com`, companyPhone: '555-0100', billingAddress: { address1: '1 Main St', city: 'Springfield', stateProvince: 'IL', zipPostalCode: '62701', country: 'US' } },
    primarySalesRep: { repNumber: 'R1', firstName: 'Sam', lastName: 'Seller', email: 'sam@example.com', phoneNumber: '555-0101' },
    invoiceDate: '2026-01-10T00:00:00.000Z',
    dueDate: '2026-02-09T00:00:00.000Z',
    terms: 'Net30',
    currencyCode: 'USD',
    items: [{ sku: 'SKU-1', productName: 'Widget', quantity: 2, price: 10 }],
    ...overrides,
  };
}

/** `/api/invoices/{invoiceId}` */
pathParamFixtures.invoiceId = async (org) => {
  const res = await call('POST', '/api/invoices', { base: org.base, token: org.adminToken, body: invoiceBody() });
  if (res.status !== 201) throw new Error(`create invoice failed: ${res.status} ${res.text}`);
  return res.body.id;
};
/** `/api/quotes/{quoteId}`: a quote of a new customer with an open offer. */
pathParamFixtures.quoteId = async (org) => {
  const { customerNumber, sku } = await customerWithProduct(org);
  const opts = { base: org.base, token: org.adminToken };
  const q = await call('POST', '/api/quotes', { ...opts, body: { customerNumber, items: [{ sku, quantity: 1 }] } });
  if (q.status !== 201) throw new Error(`create quote failed: ${q.status} ${q.text}`);
  const o = await call('POST', `/api/quotes/${q.body.quoteId}/offers`, { ...opts, body: {} });
  if (o.status !== 200) throw new Error(`offer failed: ${o.status} ${o.text}`);
  return q.body.quoteId;
};
matrixBodies['POST /api/quotes'] = () => ({ customerNumber: 'x', items: [{ sku: 'x', quantity: 2 }] });
matrixBodies['POST /api/quotes/{quoteId}/offers'] = () => ({ items: [{ sku: 'x', quantity: 2 }], message: 'matrix' });
matrixBodies['POST /api/quotes/{quoteId}/counter'] = () => ({ items: [{ sku: 'x', quantity: 2 }] });
matrixBodies['POST /api/invoices/{invoiceId}/payments'] = () => ({ amount: 1, currencyCode: 'USD', method: 'Check', paymentDate: '2026-01-15T00:00:00.000Z' });
matrixBodies['POST /api/invoices/{invoiceId}/refunds'] = () => ({ amount: 1, reason: 'matrix' });
matrixBodies['POST /api/invoices/{invoiceId}/discount'] = () => ({ type: 'Percentage', value: 5 });
matrixBodies['POST /api/invoices'] = () => invoiceBody();
matrixBodies['POST /api/invoices/bulk'] = () => ({ invoices: [invoiceBody()] });

/** A sales rep of `org` (through the API); returns its salesRepId, repNumber and user id. */
export async function createSalesRep(org: OrgFixture, repNumber = uniq('R')): Promise<{ salesRepId: string; repNumber: string; userId: string; email: string }> {
  const email = `${uniq('rep')}@example.com`;
  const res = await call('PUT', '/api/organizations/salesreps', { base: org.base, token: org.adminToken, body: { firstName: 'Rita', lastName: 'Rep', email, repNumber } });
  if (res.status !== 201) throw new Error(`create rep failed: ${res.status} ${res.text}`);
  return { salesRepId: res.body.salesRepId, repNumber, userId: res.body.identityProviderUserId, email };
}

/** `/api/commissions/plans/{commissionPlanId}` */
pathParamFixtures.commissionPlanId = async (org) => {
  const rep = await createSalesRep(org);
  const res = await call('POST', '/api/commissions/plans', {
    base: org.base,
    token: org.adminToken,
    body: { SalesRepId: rep.salesRepId, Name: 'Matrix plan', DefaultRate: 0.05, EffectiveStartDate: '2026-01-01T00:00:00Z' },
  });
  if (res.status !== 201) throw new Error(`create plan failed: ${res.status} ${res.text}`);
  return res.body.CommissionPlanId;
};
/** `/api/commissions/statements/{statementId}` */
pathParamFixtures.statementId = async (org) => {
  const rep = await createSalesRep(org);
  const res = await call('POST', '/api/commissions/statements', { base: org.base, token: org.adminToken, body: { salesRepId: rep.salesRepId, startDate: '2026-01-01', endDate: '2026-01-31' } });
  if (res.status !== 202) throw new Error(`create statement failed: ${res.status} ${res.text}`);
  return res.body.statementId;
};
matrixBodies['PUT /api/commissions/plans/{commissionPlanId}'] = () => ({
  SalesRepId: '00000000-0000-4000-8000-000000000000',
  Name: 'Matrix plan',
  DefaultRate: 0.05,
  EffectiveStartDate: '2026-01-01T00:00:00Z',
});
matrixBodies['POST /api/commissions/statements/{statementId}/mark-paid'] = () => ({ paymentReference: 'PAY-1', paidAt: '2026-02-01T00:00:00Z' });
/** `/api/imports/{importJobId}`: a small finished-or-running import job. */
pathParamFixtures.importJobId = async (org) => {
  const res = await call('POST', '/api/imports', { base: org.base, token: org.adminToken, body: { kind: 'products', records: [{ sku: uniq('IMP-'), name: 'Imported' }] } });
  if (res.status !== 202) throw new Error(`create import job failed: ${res.status} ${res.text}`);
  return res.body.jobId;
};
matrixBodies['POST /api/imports'] = () => ({ kind: 'products', records: [{ sku: 'MATRIX-1', name: 'Matrix' }] });
/** `/api/stock-locations/{locationId}`: a stock location (not the default: the organization's first is made beside it). */
pathParamFixtures.locationId = async (org) => {
  const opts = { base: org.base, token: org.adminToken };
  await call('POST', '/api/stock-locations', { ...opts, body: { name: 'Default', code: uniq('DEF') } });
  const res = await call('POST', '/api/stock-locations', { ...opts, body: { name: 'Matrix', code: uniq('LOC') } });
  if (res.status !== 201) throw new Error(`create stock location failed: ${res.status} ${res.text}`);
  return res.body.locationId;
};
matrixBodies['POST /api/stock-locations'] = () => ({ name: 'Matrix', code: `M${Date.now().toString(36)}` });
matrixBodies['PUT /api/inventory'] = () => ({ items: [{ sku: 'MATRIX-1', location: 'MATRIX', receive: 1 }] });
/** `/api/webhooks/{webhookId}`: a subscription (the URL is never called unless events occur). */
pathParamFixtures.webhookId = async (org) => {
  const res = await call('POST', '/api/webhooks', { base: org.base, token: org.adminToken, body: { url: 'https://example.com/matrix-hook', events: ['order.created'] } });
  if (res.status !== 201) throw new Error(`create webhook failed: ${res.status} ${res.text}`);
  return res.body.webhookId;
};
/** `/api/webhooks/{webhookId}/deliveries/{deliveryId}`: the delivery of a test event. */
pathParamFixtures.deliveryId = async (org) => {
  const webhookId = await pathParamFixtures.webhookId(org);
  const res = await call('POST', `/api/webhooks/${webhookId}/test`, { base: org.base, token: org.adminToken });
  if (res.status !== 202) throw new Error(`webhook test event failed: ${res.status} ${res.text}`);
  return res.body.deliveryId;
};
matrixBodies['POST /api/webhooks/{webhookId}/replay'] = () => ({ since: '2026-01-01T00:00:00.000Z' });

/** `/api/companydocs/folders/{folderId}` */
pathParamFixtures.folderId = async (org) => {
  const res = await call('POST', '/api/companydocs/folders', { base: org.base, token: org.adminToken, body: { name: uniq('Folder') } });
  if (res.status !== 201) throw new Error(`create folder failed: ${res.status} ${res.text}`);
  return res.body.folder.folderId;
};
/** `/api/companydocs/documents/{documentId}`: a small PDF. */
pathParamFixtures.documentId = async (org) => {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from('%PDF-1.4\n%%EOF\n')], { type: 'application/pdf' }), `${uniq('doc')}.pdf`);
  const res = await fetch(`${org.base}/api/companydocs/documents/upload`, { method: 'POST', headers: { authorization: `Bearer ${org.adminToken}` }, body: form });
  const body = (await res.json()) as { document?: { documentId: string } };
  if (res.status !== 201 || !body.document) throw new Error(`upload document failed: ${res.status} ${JSON.stringify(body)}`);
  return body.document.documentId;
};
matrixBodies['PUT /api/companydocs/documents/{documentId}/move'] = () => ({ targetFolderId: null });

/** `/api/organizations/{organizationId}/integrations/{integrationId}`: a disabled Http integration. */
pathParamFixtures.integrationId = async (org) => {
  const res = await call('POST', `/api/organizations/${org.organizationId}/integrations`, {
    base: org.base,
    token: org.adminToken,
    body: { integrationType: 7, provider: 'Http', displayName: 'Matrix CRM', isEnabled: false, configuration: { Endpoint: 'https://example.com/' } },
  });
  if (res.status !== 201) throw new Error(`create integration failed: ${res.status} ${res.text}`);
  return res.body.integrationId;
};
matrixBodies['POST /api/organizations/{organizationId}/integrations/{integrationId}/rotate-secrets'] = () => ({ secrets: { ApiKey: 'matrix-key' } });

/** `/api/customers/{customerNumber}/buyers/{userId}`: the organization's admin user (a real user id of that organization). */
pathParamFixtures.userId = async (org) => org.adminUserId;

/** `/api/approvals/{approvalId}`: a decided approval request of a new customer of the organization, written directly (no checkout needed to hold one). */
pathParamFixtures.approvalId = async (org) => {
  const customerNumber = await pathParamFixtures.customerNumber(org);
  const [{ id: customerId }] = await dbQuery<{ id: string }>('select id from customer where organization_id = $1 and customer_number = $2', [org.organizationId, customerNumber]);
  const approvalId = randomUUID();
  await dbQuery(
    `insert into approval_request (organization_id, id, status, customer_id, customer_number, cart_id, requester_user_id, reason, currency_code, total, lines, checkout, level, chain, expires_at, created_at, updated_at)
     values ($1, $2, 'Rejected', $3, $4, $5, $6, 'matrix', 'USD', 10, '[]', '{}', 1, '[]', now(), now(), now())`,
    [org.organizationId, approvalId, customerId, customerNumber, randomUUID(), org.adminUserId],
  );
  return approvalId;
};

/** `/api/orders/{orderId}/shipments/{shipmentId}`: one unit of a two-unit order shipped (the order stays Processing: no completion timer runs). */
pathParamFixtures.shipmentId = async (org) => {
  const res = await call('POST', '/api/orders', {
    base: org.base,
    token: org.adminToken,
    body: {
      customer: { customerNumber: uniq('C'), companyName: 'Matrix Co' },
      orderType: 'Direct',
      poNumber: 'PO-1',
      priceTier: 'Retail',
      currencyCode: 'USD',
      primarySalesRep: { repNumber: 'R1' },
      items: [{ sku: 'S1', productName: 'Thing', quantity: 2, price: 1 }],
      user: { userId: 'u1', userType: 'Admin' },
    },
  });
  if (res.status !== 201) throw new Error(`create order failed: ${res.status} ${res.text}`);
  const s = await call('POST', `/api/orders/${res.body.data.id}/shipments`, { base: org.base, token: org.adminToken, body: { lines: [{ sku: 'S1', quantity: 1 }] } });
  if (s.status !== 201) throw new Error(`create shipment failed: ${s.status} ${s.text}`);
  return s.body.id;
};
matrixBodies['POST /api/orders/{orderId}/shipments'] = () => ({ lines: [{ sku: 'S1', quantity: 1 }] });
matrixBodies['POST /api/credit-notes'] = () => ({ invoiceId: 'x', lines: [{ sku: 'x', quantity: 1 }], reason: 'matrix', apply: 'Chosen', applyTo: [{ invoiceId: 'x', amount: 0.01 }] });
matrixBodies['PUT /api/price-lists/{priceListId}'] = () => ({ name: 'Matrix list', currencyCode: 'USD', priority: 10, status: 'Draft' });
/** `/api/credit-notes/{creditNoteId}`: a credit note of 1.00 on an issued invoice, kept as available credit (issue 42). */
pathParamFixtures.creditNoteId = async (org) => {
  const opts = { base: org.base, token: org.adminToken };
  const invoiceId = await pathParamFixtures.invoiceId(org);
  const issued = await call('POST', `/api/invoices/${invoiceId}/issue`, opts);
  if (issued.status !== 200) throw new Error(`issue invoice failed: ${issued.status} ${issued.text}`);
  const res = await call('POST', '/api/credit-notes', { ...opts, body: { invoiceId, amount: 1, reason: 'matrix', apply: 'None' } });
  if (res.status !== 201) throw new Error(`create credit note failed: ${res.status} ${res.text}`);
  return res.body.creditNoteId;
};
matrixBodies['POST /api/credit-notes/{creditNoteId}/apply'] = () => ({ apply: 'Chosen', applyTo: [{ invoiceId: '00000000-0000-4000-8000-000000000000', amount: 0.01 }] });
matrixBodies['POST /api/orders/{orderId}/cancel'] = () => ({ lines: [{ sku: 'x', quantity: 1 }], reason: 'matrix' });
/** `/api/returns/{returnId}`: a return (RMA) of a customer of the organization, Rejected, written directly (issue 42). */
pathParamFixtures.returnId = async (org) => {
  const customerNumber = await pathParamFixtures.customerNumber(org);
  const [{ id: customerId }] = await dbQuery<{ id: string }>('select id from customer where organization_id = $1 and customer_number = $2', [org.organizationId, customerNumber]);
  const returnId = randomUUID();
  await dbQuery(
    `insert into order_return (organization_id, id, rma_number, order_id, order_number, customer_id, customer_number, currency_code, status, lines, amount, steps, created_at, updated_at)
     values ($1, $2, $3, $4, 'matrix', $5, $6, 'USD', 'Rejected', '[]', 0, '[]', now(), now())`,
    [org.organizationId, returnId, `RMA-M${returnId.slice(0, 8)}`, randomUUID(), customerId, customerNumber],
  );
  return returnId;
};
matrixBodies['POST /api/returns'] = () => ({ orderId: '00000000-0000-4000-8000-000000000000', lines: [{ sku: 'x', quantity: 1, reason: 'matrix' }] });
matrixBodies['POST /api/returns/{returnId}/reject'] = () => ({ message: 'matrix' });
matrixBodies['POST /api/returns/{returnId}/receive'] = () => ({ lines: [{ sku: 'x', disposition: 'scrap' }] });
