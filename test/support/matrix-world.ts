/**
 * The world of the id-substitution matrix (test/security-matrix.test.ts): two organizations,
 * each with two sales reps, each rep with one assigned customer, each customer with a user,
 * an order, an invoice with a payment, an open cart, a saved card, addresses and contacts;
 * plus organization-level resources (product, category, image, folder, document, webhook,
 * integration, import job, commission plan and statements).
 *
 * Parties: A1 (org A, rep 1, customer 1: the callers), A2 (org A, rep 2, customer 2: the
 * other rep and the other customer), B1 (org B: the other organization), A3 (org A, rep 3,
 * customer C2: the customer a former Approver of customer 1 was moved to). Buyer roles at
 * customer 1 (BuyerWorld): a Buyer and an Approver with limits, and that former Approver.
 */
import { randomUUID } from 'node:crypto';
import { call, createMemberUser, createOrg, dbQuery, signTestToken, uniq, type OrgFixture } from './helpers';
import { createSalesRep, ensurePriceTier, invoiceBody, pathParamFixtures } from './matrix-fixtures';

/** Every id a party owns, by kind. */
export interface Party {
  org: OrgFixture;
  ids: Record<string, string>;
  repToken: string;
  customerToken: string;
}

export interface World {
  A1: Party;
  A2: Party;
  B1: Party;
  /** Org A, rep 3, customer C2: where the former Approver of A1's customer is associated now (never a target). */
  A3: Party;
  buyers: BuyerWorld;
}

/** A customer user with a buyer role (docs/approvals.md), and the token it calls with. */
export interface BuyerUser {
  userId: string;
  token: string;
}

/**
 * Buyer roles at A1's customer C (issue 38): a Buyer with limits, an Approver with limits, and a
 * former Approver of C, re-associated to A3's customer C2 through
 * `POST /api/organizations/users/associate-customer` (its token was issued while it was at C and
 * still names C). A1's own customer user is an Approver without limits. `plain` is associated with
 * C without a buyer role. `pendingApprovalId`: a Pending request of C by the Buyer, asked of the
 * former Approver while it was one (no workflow: nothing can decide it).
 */
export interface BuyerWorld {
  buyer: BuyerUser;
  approver: BuyerUser;
  former: BuyerUser;
  plain: { userId: string };
  pendingApprovalId: string;
  /** The buyer rows as the admin set them (customerNumber -> userId -> row). */
  rows: Record<string, Record<string, BuyerRow>>;
}

export interface BuyerRow {
  role: 'Buyer' | 'Approver';
  orderLimit: number | null;
  monthlyLimit: number | null;
}

async function must(what: string, res: Promise<{ status: number; text: string; body: any }>, ok: number[] = [200, 201]): Promise<any> {
  const r = await res;
  if (!ok.includes(r.status)) throw new Error(`${what} failed: ${r.status} ${r.text.slice(0, 300)}`);
  return r.body;
}

/** Organization-level resources of `org`, shared by its parties. */
async function orgResources(org: OrgFixture): Promise<Record<string, string>> {
  await ensurePriceTier(org);
  const opts = { base: org.base, token: org.adminToken };
  const category = await pathParamFixtures.category(org);
  const sku = uniq('SKU-');
  const productExternalId = uniq('PX-');
  await must(
    'create product',
    call('PUT', '/api/products', {
      ...opts,
      body: { sku, name: `Product ${sku}`, category, externalId: productExternalId, prices: [{ tier: 'Retail', price: 10, atQuantity: 1 }] },
    }),
  );
  const [imageId, ingestionJobId, folderId, webhookId, integrationId, importJobId] = await Promise.all([
    pathParamFixtures.id(org),
    pathParamFixtures.jobId(org),
    pathParamFixtures.folderId(org),
    pathParamFixtures.webhookId(org),
    pathParamFixtures.integrationId(org),
    pathParamFixtures.importJobId(org),
  ]);
  const documentId = await pathParamFixtures.documentId(org);
  const paymentTermId = await pathParamFixtures.paymentTermId(org);
  const locationId = await pathParamFixtures.locationId(org);
  const catalogId = await pathParamFixtures.catalogId(org);
  const priceListId = await pathParamFixtures.priceListId(org);
  const deliveryId = (await must('webhook test', call('POST', `/api/webhooks/${webhookId}/test`, opts), [202])).deliveryId as string;
  const upload = await must('import upload', call('POST', '/api/imports/uploads', { ...opts, body: { fileName: 'matrix.csv' } }), [200, 201]);
  const put = await fetch(upload.uploadUrl as string, { method: 'PUT', body: `sku,name\n${uniq('UP-')},Uploaded\n` });
  if (!put.ok) throw new Error(`import file upload failed: ${put.status}`);
  const uploadId = upload.uploadId as string;
  return {
    organizationId: org.organizationId,
    adminUserId: org.adminUserId,
    sku,
    category,
    imageId,
    ingestionJobId,
    folderId,
    documentId,
    webhookId,
    deliveryId,
    integrationId,
    importJobId,
    uploadId,
    paymentTermId,
    catalogId,
    priceListId,
    productExternalId,
    locationId,
  };
}

/** A rep, its customer (with addresses and contacts), the customer's user, order, invoice, payment, cart and card. */
async function party(org: OrgFixture, shared: Record<string, string>): Promise<Party> {
  const opts = { base: org.base, token: org.adminToken };
  const rep = await createSalesRep(org);
  const reps = await must('list reps', call('GET', '/api/organizations/salesreps?pageSize=500', opts));
  const repRow = (Array.isArray(reps) ? reps : (reps.data ?? reps.Data ?? [])).find((r: any) => r.salesRepId === rep.salesRepId);
  const customerNumber = uniq('C');
  const customerExternalId = uniq('CX-');
  const customer = await must(
    'create customer',
    call('PUT', '/api/customers', {
      ...opts,
      body: {
        customerNumber,
        externalId: customerExternalId,
        companyName: `Company ${customerNumber}`,
        companyEmail: `${customerNumber.toLowerCase()}@example.com`,
        pricing: 'Retail',
        repNumber: rep.repNumber,
        addresses: [
          {
            externalId: uniq('AX-'),
            line1: '1 Main St',
            city: 'Springfield',
            state: 'IL',
            postalCode: '62701',
            country: 'US',
            addressType: 'Billing',
            isPrimary: true,
          },
        ],
        contacts: [{ externalId: uniq('KX-'), firstName: 'Cora', lastName: 'Contact', email: `${uniq('contact')}@example.com` }],
      },
    }),
  );
  const user = await createMemberUser(org);
  await must(
    'associate customer',
    call('POST', '/api/organizations/users/associate-customer', { ...opts, body: { UserId: user.userId, CustomerNumber: customerNumber } }),
  );
  const orderExternalId = uniq('OX-');
  const orderNumber = uniq('SO-');
  const invoiceExternalId = uniq('IX-');
  const invoiceNumber = uniq('INV-');

  /** An order, its invoice (issued, with a check payment) and a Draft invoice. */
  const orderAndInvoices = async () => {
    const [order] = await must(
      'create order',
      call('POST', '/api/orders/bulk', {
        ...opts,
        body: {
          orders: [
            {
              orderNumber,
              customer: { customerNumber, companyName: `Company ${customerNumber}` },
              orderType: 'Direct',
              poNumber: 'PO-1',
              priceTier: 'Retail',
              currencyCode: 'USD',
              externalId: orderExternalId,
              primarySalesRep: { repNumber: rep.repNumber },
              // Two units: one ships below (the shipment id slot), the order stays Processing (no completion timer).
              items: [{ sku: shared.sku, productName: 'Thing', quantity: 2, price: 10 }],
              user: { userId: user.userId, userType: 'Customer' },
            },
          ],
        },
      }),
    );
    const inv = invoiceBody({ invoiceNumber, externalId: invoiceExternalId, orderId: order.data.id, orderNumber });
    inv.customer.customerNumber = customerNumber;
    inv.primarySalesRep.repNumber = rep.repNumber;
    // Its lines are the organization's own product, so a credit note may name them (POST /api/credit-notes lines[].sku).
    inv.items = inv.items.map((i: Record<string, unknown>) => ({ ...i, sku: shared.sku }));
    const [invoice, draft] = await Promise.all([
      must('create invoice', call('POST', '/api/invoices', { ...opts, body: inv })),
      // A Draft invoice, for operations that change only Draft invoices.
      must('create draft invoice', call('POST', '/api/invoices', { ...opts, body: { ...inv, invoiceNumber: uniq('INV-'), externalId: uniq('IX-') } })),
    ]);
    await must('issue invoice', call('POST', `/api/invoices/${invoice.id}/issue`, opts));
    const payment = await must(
      'record payment',
      call('POST', `/api/invoices/${invoice.id}/payments`, {
        ...opts,
        body: { amount: 1, currencyCode: 'USD', method: 'Check', paymentDate: '2026-01-15T00:00:00.000Z', reference: 'CHK-1' },
      }),
    );
    // The answer is the invoice; its last payment is the one just recorded.
    const paymentId = payment.payments?.at(-1)?.paymentId as string;
    const shipment = await must('ship one unit', call('POST', `/api/orders/${order.data.id}/shipments`, { ...opts, body: { lines: [{ sku: shared.sku, quantity: 1 }] } }), [201]);
    return { orderId: order.data.id as string, invoiceId: invoice.id as string, draftInvoiceId: draft.id as string, paymentId, shipmentId: shipment.id as string };
  };

  /** An open cart with one line and a shipping address. */
  const openCart = async () => {
    const cart = await must(
      'create cart',
      call('POST', `/api/carts/${customerNumber}`, { ...opts, body: { customerNumber, sku: shared.sku, quantity: 1, orderType: 'Standard' } }),
    );
    await must(
      'cart shipping',
      call('PUT', `/api/carts/${customerNumber}/${cart.shoppingCartId}/shipping`, {
        ...opts,
        body: { customerNumber, shippingAddress: { line1: '1 Main St', city: 'Springfield', country: 'US' } },
      }),
    );
    return cart.shoppingCartId as string;
  };

  const savedCard = async () =>
    (
      await must(
        'save card',
        call('POST', '/api/payments/payment-methods', {
          ...opts,
          body: {
            customerNumber,
            emailAddress: 'buyer@example.com',
            cardNumber: '4111111111111111',
            expirationMonth: '12',
            expirationYear: String(new Date().getFullYear() + 2),
            cardCode: '123',
            paymentProvider: 'ProviderDirect',
            billingAddress: { firstName: 'Ada', lastName: 'Buyer', address1: '1 Main St', city: 'Springfield', zipCode: '62701', country: 'US' },
          },
        }),
      )
    ).paymentMethod.paymentProfileId as string;

  /** A quote of the customer with an open offer (workflow negotiateQuote). */
  const openQuote = async () => {
    const q = await must('request quote', call('POST', '/api/quotes', { ...opts, body: { customerNumber, items: [{ sku: shared.sku, quantity: 2 }] } }), [201]);
    await must('offer quote', call('POST', `/api/quotes/${q.quoteId}/offers`, { ...opts, body: { message: 'matrix' } }), [200]);
    return { quoteId: q.quoteId as string, quoteNumber: q.quoteNumber as string };
  };

  const [records, cartId, paymentProfileId, plan, statement, quote] = await Promise.all([
    orderAndInvoices(),
    openCart(),
    savedCard(),
    must(
      'create plan',
      call('POST', '/api/commissions/plans', {
        ...opts,
        body: { SalesRepId: rep.salesRepId, Name: 'Matrix plan', DefaultRate: 0.05, EffectiveStartDate: '2026-01-01T00:00:00Z' },
      }),
    ),
    must(
      'create statement',
      call('POST', '/api/commissions/statements', { ...opts, body: { salesRepId: rep.salesRepId, startDate: '2026-01-01', endDate: '2026-01-31' } }),
      [202],
    ),
    openQuote(),
  ]);
  // A decided approval request of the customer (final: nothing changes it while the matrix runs), written directly.
  const approvalId = randomUUID();
  const [{ id: customerId }] = await dbQuery<{ id: string }>('select id from customer where organization_id = $1 and customer_number = $2', [org.organizationId, customerNumber]);
  await dbQuery(
    `insert into approval_request (organization_id, id, status, customer_id, customer_number, cart_id, requester_user_id, reason, currency_code, total, lines, checkout, level, chain, expires_at, created_at, updated_at)
     values ($1, $2, 'Rejected', $3, $4, $5, $6, 'matrix', 'USD', 10, '[]', '{}', 1, '[]', now(), now(), now())`,
    [org.organizationId, approvalId, customerId, customerNumber, cartId, user.userId],
  );
  // A credit note of the customer (credit kept available), written directly like the approval.
  const creditNoteId = randomUUID();
  await dbQuery(
    `insert into credit_note (organization_id, id, credit_note_number, invoice_id, invoice_number, order_id, customer_id, customer_number, currency_code, amount, reason, applications, created_at, updated_at)
     values ($1, $2, $3, $4, 'matrix', null, $5, $6, 'USD', 1, 'matrix', '[]', now(), now())`,
    [org.organizationId, creditNoteId, `CN-M${creditNoteId.slice(0, 8)}`, randomUUID(), customerId, customerNumber],
  );
  // A return (RMA) of the customer, Rejected (final: nothing changes it while the matrix runs), written directly like the credit note.
  const returnId = randomUUID();
  await dbQuery(
    `insert into order_return (organization_id, id, rma_number, order_id, order_number, customer_id, customer_number, currency_code, status, lines, amount, steps, created_at, updated_at)
     values ($1, $2, $3, $4, 'matrix', $5, $6, 'USD', 'Rejected', '[]', 0, '[]', now(), now())`,
    [org.organizationId, returnId, `RMA-M${returnId.slice(0, 8)}`, randomUUID(), customerId, customerNumber],
  );
  // The customer's user is also its Approver (no limits), so it may read the customer's buyers.
  await dbQuery(`insert into customer_buyer (organization_id, customer_id, user_id, role, created_at, updated_at) values ($1, $2, $3, 'Approver', now(), now())`, [
    org.organizationId,
    customerId,
    user.userId,
  ]);
  const repToken = signTestToken({
    OrganizationId: org.organizationId,
    role: 'SalesRep',
    roles: ['SalesRep'],
    RepNumber: rep.repNumber,
    kind: 'user',
    cv: 1,
    UserId: rep.userId,
  });
  const customerToken = signTestToken({
    OrganizationId: org.organizationId,
    role: 'Customer',
    roles: ['Customer'],
    kind: 'user',
    cv: 1,
    UserId: user.userId,
    CustomerNumber: customerNumber,
    PriceTier: 'Retail',
    CurrencyCode: 'USD',
  });
  return {
    org,
    repToken,
    customerToken,
    ids: {
      ...shared,
      customerNumber,
      customerId: customer.customerId ?? customer.id,
      customerExternalId,
      customerUserId: user.userId,
      repNumber: rep.repNumber,
      salesRepId: rep.salesRepId,
      organizationSalesRepId: repRow?.organizationSalesRepId,
      repUserId: rep.userId,
      ...records,
      orderNumber,
      orderExternalId,
      invoiceNumber,
      invoiceExternalId,
      cartId,
      paymentProfileId,
      commissionPlanId: plan.CommissionPlanId,
      statementId: statement.statementId,
      quoteId: quote.quoteId,
      quoteNumber: quote.quoteNumber,
      approvalId,
      creditNoteId,
      returnId,
    },
  };
}

/** Waits until `path` (read by the org's admin) no longer reports one of the `busy` statuses. */
async function settle(org: OrgFixture, path: string, busy: string[]): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const r = await call('GET', path, { base: org.base, token: org.adminToken });
    if (r.status !== 200 || !busy.includes(String(r.body?.status ?? r.body?.Status))) return;
    await new Promise((res) => setTimeout(res, 250));
  }
  throw new Error(`${path} did not settle`);
}

/** The buyer roles at A1's customer and the former Approver, moved to A3's customer (see BuyerWorld). */
async function buyerWorld(A1: Party, A3: Party): Promise<BuyerWorld> {
  const org = A1.org;
  const opts = { base: org.base, token: org.adminToken };
  const C = A1.ids.customerNumber;
  const associate = (userId: string, customerNumber: string) =>
    must('associate buyer', call('POST', '/api/organizations/users/associate-customer', { ...opts, body: { UserId: userId, CustomerNumber: customerNumber } }));
  const users = await Promise.all([0, 1, 2, 3].map(() => createMemberUser(org)));
  await Promise.all(users.map((u) => associate(u.userId, C)));
  const [buyer, approver, former, plain] = users.map((u) => u.userId);
  const rows: Record<string, BuyerRow> = {
    [buyer]: { role: 'Buyer', orderLimit: 150, monthlyLimit: 2000 },
    [approver]: { role: 'Approver', orderLimit: 1000, monthlyLimit: 5000 },
    [former]: { role: 'Approver', orderLimit: 500, monthlyLimit: null },
  };
  for (const [userId, row] of Object.entries(rows)) await must('set buyer row', call('PUT', `/api/customers/${C}/buyers/${userId}`, { ...opts, body: row }));
  // A1's customer user is an Approver without limits (written directly by party()).
  rows[A1.ids.customerUserId] = { role: 'Approver', orderLimit: null, monthlyLimit: null };
  // A request of C by the Buyer, asked of the Approver who is then moved away.
  const pendingApprovalId = randomUUID();
  const [{ id: customerId }] = await dbQuery<{ id: string }>('select id from customer where organization_id = $1 and customer_number = $2', [org.organizationId, C]);
  const chain = [{ key: 'asked-1', at: new Date().toISOString(), type: 'Asked', level: 1, userIds: [former], by: null, note: null }];
  await dbQuery(
    `insert into approval_request (organization_id, id, status, customer_id, customer_number, cart_id, requester_user_id, reason, currency_code, total, lines, checkout, level, chain, expires_at, created_at, updated_at)
     values ($1, $2, 'Pending', $3, $4, $5, $6, 'matrix: above the per-order limit', 'USD', 200, '[]', '{}', 1, $7, now() + interval '30 days', now(), now())`,
    [org.organizationId, pendingApprovalId, customerId, C, randomUUID(), buyer, JSON.stringify(chain)],
  );
  // Tokens as issued while each was at C (the former Approver keeps its old one).
  const tokenOf = (userId: string) =>
    signTestToken({ OrganizationId: org.organizationId, role: 'Customer', roles: ['Customer'], kind: 'user', cv: 1, UserId: userId, CustomerNumber: C, PriceTier: 'Retail', CurrencyCode: 'USD' });
  await associate(former, A3.ids.customerNumber);
  delete rows[former];
  return {
    buyer: { userId: buyer, token: tokenOf(buyer) },
    approver: { userId: approver, token: tokenOf(approver) },
    former: { userId: former, token: tokenOf(former) },
    plain: { userId: plain },
    pendingApprovalId,
    rows: { [C]: rows, [A3.ids.customerNumber]: { [A3.ids.customerUserId]: { role: 'Approver', orderLimit: null, monthlyLimit: null } } },
  };
}

export async function buildWorld(): Promise<World> {
  const [orgA, orgB] = await Promise.all([createOrg(), createOrg()]);
  const [sharedA, sharedB] = await Promise.all([orgResources(orgA), orgResources(orgB)]);
  const [A1, A2, B1, A3] = await Promise.all([party(orgA, sharedA), party(orgA, sharedA), party(orgB, sharedB), party(orgA, sharedA)]);
  const buyers = await buyerWorld(A1, A3);
  // Background work of the fixtures ends before the matrix snapshots anything.
  await Promise.all([
    ...[A1, A2, B1, A3].map((p) => settle(p.org, `/api/commissions/statements/${p.ids.statementId}`, ['Generating'])),
    ...[A1, B1].map((p) => settle(p.org, `/api/imports/${p.ids.importJobId}`, ['Queued', 'Running'])),
  ]);
  return { A1, A2, B1, A3, buyers };
}
