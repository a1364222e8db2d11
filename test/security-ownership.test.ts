/**
 * Issue 16 findings 2 and 6, attacked over HTTP as a sales rep would: a natural key
 * (invoiceNumber, externalId, customerNumber) finds a record for a write only where the rep may
 * see it, and a rep cannot write its own commission (catalog prices, no imported totals or
 * balances, no cheaper tier or longer terms for its customer). Each test creates its own records.
 */
import { call, createOrg, dbQuery, repToken, uniq, type OrgFixture } from './support/helpers';
import { ensurePriceTier, invoiceBody } from './support/matrix-fixtures';

jest.setTimeout(60_000);

let org: OrgFixture;
/** A product priced 10.00 in Retail and 6.00 in Cheap. */
let sku: string;
beforeAll(async () => {
  org = await createOrg();
  await ensurePriceTier(org, 'Retail');
  await ensurePriceTier(org, 'Cheap');
  sku = uniq('SKU-');
  const p = await call('PUT', '/api/products', {
    base: org.base,
    token: org.adminToken,
    body: { sku, name: `Catalog ${sku}`, prices: [{ tier: 'Retail', price: 10, atQuantity: 1 }, { tier: 'Cheap', price: 6, atQuantity: 1 }] },
  });
  expect(p.status).toBe(201);
});
const admin = () => ({ base: org.base, token: org.adminToken });

/** A customer in tier Retail with terms NET30, assigned to `repNumber`. */
async function customerOfRep(repNumber: string): Promise<string> {
  const customerNumber = uniq('C');
  const res = await call('PUT', '/api/customers', {
    ...admin(),
    body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${customerNumber.toLowerCase()}@example.com`, pricing: 'Retail', terms: 'NET30', repNumber },
  });
  expect(res.status).toBe(201);
  return customerNumber;
}

/** Two reps, each with one customer; `victim` holds an Admin-made invoice of the other rep's customer. */
async function twoReps() {
  const mineNumber = uniq('R');
  const theirsNumber = uniq('R');
  const token = await repToken(org, mineNumber);
  await repToken(org, theirsNumber);
  const mine = await customerOfRep(mineNumber);
  const theirs = await customerOfRep(theirsNumber);
  const victim = await call('POST', '/api/invoices', {
    ...admin(),
    body: invoiceBody({ externalId: uniq('ext'), customer: { customerNumber: theirs, companyName: 'Theirs' }, primarySalesRep: { repNumber: theirsNumber }, items: [{ sku, quantity: 2, price: 10 }] }),
  });
  expect(victim.status).toBe(201);
  const rep = { base: org.base, token };
  const order = await call('POST', '/api/orders', { ...rep, body: orderBody(mine) });
  expect(order.status).toBe(201);
  /** A rep's invoice body for its own customer and order. */
  const own = (overrides: Record<string, unknown> = {}) =>
    invoiceBody({ orderId: order.body.data.id, orderNumber: order.body.data.orderNumber, customer: { customerNumber: mine, companyName: 'Mine' }, primarySalesRep: { repNumber: mineNumber }, items: [{ sku, quantity: 1, price: 10 }], ...overrides });
  return { rep, mineNumber, theirsNumber, mine, theirs, victim: victim.body, own };
}

const orderBody = (customerNumber: string, extra: Record<string, unknown> = {}) => ({
  customer: { customerNumber, companyName: 'Any' },
  orderType: 'Standard',
  poNumber: 'PO-1',
  priceTier: 'Retail',
  currencyCode: 'USD',
  primarySalesRep: {},
  items: [{ sku, productName: 'Thing', quantity: 1, price: 10 }],
  user: {},
  ...extra,
});

const read = async (id: string) => (await call('GET', `/api/invoices/${id}`, admin())).body;
const unchanged = (before: Record<string, unknown>) => ({
  customer: before.customer,
  primarySalesRep: before.primarySalesRep,
  notes: before.notes,
  total: before.total,
  status: before.status,
});

describe('natural keys find only what the rep may see (finding 2)', () => {
  test("rep cannot reassign another rep's invoice through invoices/bulk", async () => {
    const { rep, mine, mineNumber, victim } = await twoReps();
    const res = await call('POST', '/api/invoices/bulk', {
      ...rep,
      body: { invoices: [invoiceBody({ invoiceNumber: victim.invoiceNumber, customer: { customerNumber: mine, companyName: 'Mine now' }, primarySalesRep: { repNumber: mineNumber } })] },
    });
    expect(res.status).toBe(404);
    expect(Object.keys(res.body.errors ?? {})).toEqual(['invoices[0].invoiceNumber']);
    const after = await read(victim.id);
    expect(unchanged(after)).toEqual(unchanged(victim));
    expect(after.invoiceNumber).toBe(victim.invoiceNumber);
  });

  test("rep cannot change another rep's invoice through invoices/bulk by externalId", async () => {
    const { rep, mine, victim } = await twoReps();
    const res = await call('POST', '/api/invoices/bulk', {
      ...rep,
      body: { invoices: [invoiceBody({ externalId: victim.externalId, notes: 'changed by another rep', customer: { customerNumber: mine, companyName: 'Mine' } })] },
    });
    expect(res.status).toBe(404);
    expect(Object.keys(res.body.errors ?? {})).toEqual(['invoices[0].externalId']);
    expect(unchanged(await read(victim.id))).toEqual(unchanged(victim));
  });

  test('rep cannot soft-delete a Paid invoice of an unassigned customer', async () => {
    const { rep, mine, victim } = await twoReps();
    expect((await call('POST', `/api/invoices/${victim.id}/issue`, admin())).status).toBe(200);
    const paid = await call('POST', `/api/invoices/${victim.id}/payments`, {
      ...admin(),
      body: { amount: victim.total, currencyCode: 'USD', method: 'Check', paymentDate: '2026-01-20T00:00:00.000Z' },
    });
    expect(paid.body.status).toBe('Paid');
    const res = await call('POST', '/api/invoices/bulk', {
      ...rep,
      body: { invoices: [invoiceBody({ invoiceNumber: victim.invoiceNumber, active: false, customer: { customerNumber: mine, companyName: 'Mine' } })] },
    });
    expect(res.status).toBe(404);
    const after = await call('GET', `/api/invoices/${victim.id}`, admin());
    expect([after.status, after.body.status]).toEqual([200, 'Paid']);
  });

  test('rep bulk upsert of its own customer invoice by invoiceNumber still updates it', async () => {
    const { rep, own: body } = await twoReps();
    const own = await call('POST', '/api/invoices', { ...rep, body: body() });
    expect(own.status).toBe(201);
    const res = await call('POST', '/api/invoices/bulk', {
      ...rep,
      body: { invoices: [body({ invoiceNumber: own.body.invoiceNumber, notes: 'updated by its rep', items: [{ sku, quantity: 3, price: 10 }] })] },
    });
    expect(res.status).toBe(201);
    expect(res.body[0].data.id).toBe(own.body.id);
    const after = await read(own.body.id);
    expect([after.notes, after.total]).toEqual(['updated by its rep', 30]);
  });

  test("rep cannot take over another rep's customer by its externalId through PUT /api/customers", async () => {
    const { rep, theirs } = await twoReps();
    const externalId = uniq('cx');
    expect((await call('PUT', `/api/customers/${theirs}`, { ...admin(), body: { externalId } })).status).toBe(200);
    const res = await call('PUT', '/api/customers', { ...rep, body: { customerNumber: uniq('C'), externalId, companyName: 'Taken', companyEmail: 'taken@example.com', pricing: 'Retail' } });
    expect([403, 404]).toContain(res.status);
    const after = await call('GET', `/api/customers/${theirs}`, admin());
    expect([after.body.customerNumber, after.body.companyName]).toEqual([theirs, `Company ${theirs}`]);
  });
});

describe('natural keys and references of another rep answer 404/403, not 409 (finding 2)', () => {
  test("rep cannot learn another rep's invoice number or externalId by creating an invoice with it", async () => {
    const { rep, victim, own } = await twoReps();
    const byNumber = await call('POST', '/api/invoices', { ...rep, body: own({ invoiceNumber: victim.invoiceNumber }) });
    expect(byNumber.status).toBe(404);
    expect(Object.keys(byNumber.body.errors ?? {})).toEqual(['invoiceNumber']);
    const byExternal = await call('POST', '/api/invoices', { ...rep, body: own({ externalId: victim.externalId }) });
    expect(byExternal.status).toBe(404);
    expect(Object.keys(byExternal.body.errors ?? {})).toEqual(['externalId']);
  });

  test("rep cannot invoice another rep's order or credit another rep", async () => {
    const { rep, theirs, theirsNumber, own } = await twoReps();
    const theirOrder = await call('POST', '/api/orders', { ...admin(), body: orderBody(theirs) });
    expect(theirOrder.status).toBe(201);
    const res = await call('POST', '/api/invoices', { ...rep, body: own({ orderId: theirOrder.body.data.id, orderNumber: null }) });
    expect(res.status).toBe(404);
    expect(Object.keys(res.body.errors ?? {})).toEqual(['orderId']);
    const credit = await call('POST', '/api/invoices', { ...rep, body: own({ primarySalesRep: { repNumber: theirsNumber } }) });
    expect(credit.status).toBe(403);
    expect(Object.keys(credit.body.errors ?? {})).toEqual(['primarySalesRep.repNumber']);
  });

  test("rep cannot learn another rep's order externalId by placing an order with it", async () => {
    const { rep, mine, theirs } = await twoReps();
    const externalId = uniq('oext');
    expect((await call('POST', '/api/orders', { ...admin(), body: orderBody(theirs, { externalId }) })).status).toBe(201);
    const res = await call('POST', '/api/orders', { ...rep, body: orderBody(mine, { externalId }) });
    expect(res.status).toBe(404);
    expect(Object.keys(res.body.errors ?? {})).toEqual(['externalId']);
  });

  test("rep cannot reach another rep's customer by its externalId with its own customer number", async () => {
    const { rep, mine, theirs } = await twoReps();
    const externalId = uniq('cx');
    expect((await call('PUT', `/api/customers/${theirs}`, { ...admin(), body: { externalId } })).status).toBe(200);
    const res = await call('PUT', '/api/customers', { ...rep, body: { customerNumber: mine, externalId, companyName: 'Mine', companyEmail: 'mine@example.com', pricing: 'Retail' } });
    expect(res.status).toBe(403);
    expect((await call('GET', `/api/customers/${mine}`, admin())).body.externalId).toBeNull();
  });
});

describe('reps cannot write their own commission (finding 6)', () => {
  test('rep-created invoice is priced from the catalog', async () => {
    const { rep, mine, mineNumber, own } = await twoReps();
    const res = await call('POST', '/api/invoices', {
      ...rep,
      body: own({
        customer: { customerNumber: mine, companyName: 'Renamed', companyEmail: 'attacker@example.com' },
        primarySalesRep: { repNumber: mineNumber, firstName: 'Forged' },
        currencyCode: 'EUR',
        items: [{ sku, productName: 'Gold bar', quantity: 2, price: 5000 }],
      }),
    });
    expect(res.status).toBe(201);
    expect(res.body.primarySalesRep.firstName).toBe('Rita');
    expect(res.body.items).toEqual([expect.objectContaining({ sku, productName: `Catalog ${sku}`, quantity: 2, price: 10, lineTotal: 20 })]);
    expect([res.body.subtotal, res.body.currencyCode]).toEqual([20, 'USD']);
    expect(res.body.primarySalesRep.repNumber).toBe(mineNumber);
    expect([res.body.customer.companyName, res.body.customer.companyEmail]).toEqual([`Company ${mine}`, `${mine.toLowerCase()}@example.com`]);
  });

  test('rep bulk invoice is priced from the catalog', async () => {
    const { rep, own } = await twoReps();
    const res = await call('POST', '/api/invoices/bulk', { ...rep, body: { invoices: [own({ items: [{ sku, quantity: 1, price: 9999 }] })] } });
    expect(res.status).toBe(201);
    const inv = await read(res.body[0].data.id);
    expect([inv.items[0].price, inv.total]).toEqual([10, 10]);
  });

  test('rep bulk row stored inactive is priced from the catalog too', async () => {
    const { rep, own } = await twoReps();
    const res = await call('POST', '/api/invoices/bulk', { ...rep, body: { invoices: [own({ active: false, items: [{ sku, quantity: 1, price: 9999 }] })] } });
    expect(res.status).toBe(201);
    const [row] = await dbQuery<{ total: string; active: boolean }>('select total::text as total, active from invoice where id = $1', [res.body[0].data.id]);
    expect([Number(row.total), row.active]).toEqual([10, false]);
  });

  test('rep update of a Draft invoice is priced from the catalog', async () => {
    const { rep, own: body } = await twoReps();
    const own = await call('POST', '/api/invoices', { ...rep, body: body() });
    const res = await call('PUT', `/api/invoices/${own.body.id}`, { ...rep, body: { items: [{ sku, quantity: 4, price: 1000 }] } });
    expect(res.status).toBe(200);
    expect([res.body.items[0].price, res.body.subtotal]).toEqual([10, 40]);
  });

  test('rep cannot set importedBalance', async () => {
    const { rep, mine, own } = await twoReps();
    const body = own({ externalId: uniq('ext'), importedBalance: 0 });
    const res = await call('POST', '/api/invoices', { ...rep, body });
    expect(res.status).toBe(403);
    expect(Object.keys(res.body.errors ?? {})).toEqual(['importedBalance']);
    const bulk = await call('POST', '/api/invoices/bulk', { ...rep, body: { invoices: [body] } });
    expect(bulk.status).toBe(403);
    expect(Object.keys(bulk.body.errors ?? {})).toEqual(['invoices[0].importedBalance']);
    expect((await call('GET', `/api/invoices?customerId=${mine}`, admin())).body.totalCount).toBe(0);
  });

  test('rep cannot set importedInvoiceTotal on its own invoice', async () => {
    const { rep, own: body } = await twoReps();
    const own = await call('POST', '/api/invoices', { ...rep, body: body() });
    expect(own.status).toBe(201);
    const res = await call('PUT', `/api/invoices/${own.body.id}`, { ...rep, body: { importedInvoiceTotal: 100000, importedBalance: 0 } });
    expect(res.status).toBe(403);
    expect(Object.keys(res.body.errors ?? {}).sort()).toEqual(['importedBalance', 'importedInvoiceTotal']);
    const after = await read(own.body.id);
    expect([after.total, after.amountPaid]).toEqual([10, 0]);
  });

  test('rep cannot move a customer to a cheaper tier', async () => {
    const { rep, mine } = await twoReps();
    const patch = await call('PUT', `/api/customers/${mine}`, { ...rep, body: { pricing: 'Cheap' } });
    expect(patch.status).toBe(403);
    expect(Object.keys(patch.body.errors ?? {})).toEqual(['pricing']);
    const upsert = await call('PUT', '/api/customers', { ...rep, body: { customerNumber: mine, companyName: `Company ${mine}`, companyEmail: `${mine.toLowerCase()}@example.com`, pricing: 'Cheap' } });
    expect(upsert.status).toBe(403);
    expect(Object.keys(upsert.body.errors ?? {})).toEqual(['pricing']);
    expect((await call('GET', `/api/customers/${mine}`, admin())).body.pricing).toBe('Retail');
    // Sending the stored values back (a read-modify-write) is not a change.
    const same = await call('PUT', `/api/customers/${mine}`, { ...rep, body: { pricing: 'Retail', terms: 'NET30', companyPhone: '555-0199' } });
    expect(same.status).toBe(200);
  });

  test('rep cannot give a customer longer terms', async () => {
    const { rep, mine } = await twoReps();
    const patch = await call('PUT', `/api/customers/${mine}`, { ...rep, body: { terms: 'NET365' } });
    expect(patch.status).toBe(403);
    expect(Object.keys(patch.body.errors ?? {})).toEqual(['terms']);
    const created = await call('PUT', '/api/customers', { ...rep, body: { customerNumber: uniq('C'), companyName: 'New', companyEmail: 'new@example.com', pricing: 'Retail', terms: 'NET365' } });
    expect(created.status).toBe(403);
    expect(Object.keys(created.body.errors ?? {})).toEqual(['terms']);
    expect((await call('GET', `/api/customers/${mine}`, admin())).body.terms).toBe('NET30');
  });

  test('rep cannot run an import of orders, invoices or customers, nor the orders bulk upsert', async () => {
    const { rep, theirs } = await twoReps();
    for (const kind of ['orders', 'invoices', 'customers']) {
      const res = await call('POST', '/api/imports', { ...rep, body: { kind, records: [{ customerNumber: theirs }] } });
      expect(res.status).toBe(403);
    }
    expect((await call('POST', '/api/orders/bulk', { ...rep, body: { orders: [{}] } })).status).toBe(403);
  });
});
