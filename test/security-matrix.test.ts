/**
 * The id-substitution matrix (issue 16 "Also"): for every operation in /openapi.json and every
 * slot that carries an id (path parameter, query parameter, list filter, body field), each
 * role's caller of organization A sends the id of another party instead of its own:
 *   - Admin: organization B's;
 *   - SalesRep (rep 1): the other rep's customer's (rep 2), the other rep's own, and org B's;
 *   - Customer user (customer 1): the other customer's, and org B's;
 *   - no token: org B's;
 *   - a Buyer and an Approver (both with limits) of customer 1: as the Customer user;
 *   - a former Approver of customer 1, re-associated to customer C2 (its token still names
 *     customer 1): customer 1's and its rep's ids (its former customer), and org B's.
 * The answer must be 404 (403 for a role the operation never admits or an organization id that
 * is not the token's; 401 without a token), never 2xx or 5xx, must not show the target, and the
 * target (re-read by its owner after every write attempt) must be unchanged.
 *
 * The buyer roles also run every operation with their own ids, and a grid of buyer-row and
 * approval requests, against the rules of docs/approvals.md (`buyerRule` in matrix-ids.ts).
 *
 * Operations and slots come from the running API, so a new route joins by registration; a slot
 * without a rule in test/support/matrix-ids.ts fails the coverage test. The world is built in
 * test/support/matrix-world.ts; the 401/403 role matrix is test/security-matrix-auth.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { API, call, dbQuery, type Res } from './support/helpers';
import { makeImage } from './support/image-helpers';
import { matrixBodies, synthesizeBody } from './support/matrix-fixtures';
import {
  BUYER_ACTORS,
  EXEMPT_FIELDS,
  FIELD_KIND,
  ID_LIKE,
  KIND_SCOPE,
  SLOT_KIND,
  buyerRule,
  expectation,
  isBuyerActor,
  roleOf,
  visibleApprovals,
  type Actor,
  type BuyerActor,
  type BuyerGrant,
  type BuyerModel,
  type BuyerRequest,
  type Expectation,
} from './support/matrix-ids';
import { buildWorld, type BuyerUser, type Party, type World } from './support/matrix-world';

type Json = Record<string, any>;

interface Slot {
  /** "path:customerNumber", "query:UserId", "body:items[].sku", "filter:customerNumber". */
  name: string;
  /** Kind of id, or undefined when exempt. */
  kind?: string;
  exempt?: string;
}

interface Op {
  key: string;
  method: string;
  path: string;
  roles: string[];
  pathParams: string[];
  query: { name: string; required: boolean }[];
  schema?: Json;
  multipart?: Json;
  slots: Slot[];
  /** Slots that look like ids and have no rule. */
  missing: string[];
}

const doc = JSON.parse(
  execFileSync(process.execPath, ['-e', "fetch(process.argv[1] + '/openapi.json').then((r) => r.text()).then((t) => process.stdout.write(t))", API], {
    encoding: 'utf8',
  }),
) as { paths: Record<string, Record<string, Json>> };

const leafOf = (slot: string) => slot.replace(/^\w+:/, '').replace(/\[\]/g, '').split('.').pop() ?? slot;
const typeOf = (s: Json | undefined) => (Array.isArray(s?.type) ? s?.type[0] : s?.type) as string | undefined;

/** Extra body slots inside parts the schema leaves untyped (yup.mixed), declared per operation. */
const OPAQUE_BODY_SLOTS: Record<string, string[] | { exempt: string }> = {
  'PUT /api/products/prices body:productUpdates[]': ['body:productUpdates[].sku'],
  'POST /api/imports body:records[]': {
    exempt: 'records are validated per row by the import applier; imports are Admin only and write the token organization',
  },
  'PUT /api/customers body:customerAttributes': { exempt: 'free-form attributes of the customer being written' },
  'PUT /api/customers/{customerNumber} body:customerAttributes': { exempt: 'free-form attributes of the customer in the path' },
  'PUT /api/products body:productAttributes': { exempt: 'free-form attributes of the product being written' },
  'POST /api/organizations/{organizationId}/integrations body:configuration': {
    exempt: "provider settings (endpoints, names), checked by the outbound client's rules",
  },
  'POST /api/organizations/{organizationId}/integrations body:secrets': { exempt: 'provider credentials, write-only' },
  'PUT /api/organizations/{organizationId}/integrations/{integrationId} body:configuration': { exempt: 'provider settings' },
  'PUT /api/organizations/{organizationId}/integrations/{integrationId} body:secrets': { exempt: 'provider credentials, write-only' },
  'POST /api/organizations/{organizationId}/integrations/{integrationId}/rotate-secrets body:secrets': { exempt: 'provider credentials, write-only' },
  'POST /api/carts/{customerNumber}/{shoppingCartId}/complete-checkout body:payment.billingAddress': { exempt: 'an address' },
  'POST /api/stock-locations body:address': { exempt: 'an address' },
  'PUT /api/stock-locations/{locationId} body:address': { exempt: 'an address' },
};

/** Body field paths of a schema: id-like leaves, and untyped parts (which need a declaration). */
function walk(schema: Json | undefined, path: string, out: { leaves: string[]; opaque: string[] }): void {
  if (!schema) return;
  const t = typeOf(schema);
  if (t === 'object') {
    const props = Object.entries((schema.properties ?? {}) as Record<string, Json>);
    if (!props.length && path) out.opaque.push(path);
    for (const [k, v] of props) walk(v, path ? `${path}.${k}` : k, out);
  } else if (t === 'array') {
    if (!schema.items || !typeOf(schema.items)) out.opaque.push(`${path}[]`);
    else if (['object', 'array'].includes(typeOf(schema.items)!)) walk(schema.items, `${path}[]`, out);
    else out.leaves.push(`${path}[]`);
  } else if (t) out.leaves.push(path);
  else if (path) out.opaque.push(path);
}

function ruleFor(opKey: string, slot: string): Slot | undefined {
  const own = SLOT_KIND[`${opKey} ${slot}`];
  if (typeof own === 'string') return { name: slot, kind: own };
  if (own) return { name: slot, exempt: own.exempt };
  const leaf = leafOf(slot);
  if (EXEMPT_FIELDS[leaf]) return { name: slot, exempt: EXEMPT_FIELDS[leaf] };
  if (FIELD_KIND[leaf]) return { name: slot, kind: FIELD_KIND[leaf] };
  return undefined;
}

const ops: Op[] = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
  Object.entries(byMethod).map(([method, op]) => {
    const key = `${method.toUpperCase()} ${path}`;
    const parameters = (op.parameters ?? []) as { name: string; in: string; required?: boolean }[];
    const content = (op.requestBody?.content ?? {}) as Record<string, { schema: Json }>;
    const schema = content['application/json']?.schema;
    const multipart = schema ? undefined : content['multipart/form-data']?.schema;
    const candidates = [
      ...parameters.filter((p) => p.in === 'path').map((p) => `path:${p.name}`),
      ...parameters.filter((p) => p.in === 'query' && ID_LIKE.test(p.name)).map((p) => `query:${p.name}`),
    ];
    const body = { leaves: [] as string[], opaque: [] as string[] };
    walk(schema ?? multipart, '', body);
    candidates.push(...body.leaves.filter((l) => ID_LIKE.test(leafOf(l))).map((l) => `body:${l}`));
    const slots: Slot[] = [];
    const missing: string[] = [];
    for (const c of candidates) {
      const rule = ruleFor(key, c);
      if (rule) slots.push(rule);
      else missing.push(`${key} ${c}`);
    }
    for (const o of body.opaque) {
      const decl = OPAQUE_BODY_SLOTS[`${key} body:${o}`];
      if (!decl) missing.push(`${key} body:${o} (untyped: declare its id fields in OPAQUE_BODY_SLOTS)`);
      else if (Array.isArray(decl))
        for (const s of decl) {
          const rule = ruleFor(key, s);
          if (rule) slots.push(rule);
          else missing.push(`${key} ${s}`);
        }
    }
    return {
      key,
      method: method.toUpperCase(),
      path,
      roles: (op['x-roles'] ?? []) as string[],
      pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
      query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, required: !!p.required })),
      schema,
      multipart,
      slots,
      missing,
    };
  }),
);

// ---------------------------------------------------------------------------------------------
// Request bodies: a valid body per operation, built from the caller's own ids, so the one
// substituted id is the only thing wrong with the request.
// ---------------------------------------------------------------------------------------------

type Ids = Record<string, string>;

const orderBody = (o: Ids) => ({
  customer: { customerNumber: o.customerNumber, companyName: 'Matrix Co' },
  orderType: 'Standard',
  poNumber: 'PO-M',
  priceTier: 'Retail',
  currencyCode: 'USD',
  primarySalesRep: { repNumber: o.repNumber },
  items: [{ sku: o.sku, productName: 'Thing', quantity: 1, price: 10 }],
  user: { userId: o.customerUserId, userType: 'Customer' },
});

const invoiceOf = (o: Ids) => ({
  customer: {
    customerNumber: o.customerNumber,
    companyName: 'Matrix Co',
    companyEmail: 'matrix-co@example.com',
    billingAddress: { address1: '1 Main St', city: 'Springfield', stateProvince: 'IL', zipPostalCode: '62701', country: 'US' },
  },
  primarySalesRep: { repNumber: o.repNumber, firstName: 'Sam', lastName: 'Seller', email: 'sam@example.com' },
  invoiceDate: '2026-01-10T00:00:00.000Z',
  dueDate: '2026-02-09T00:00:00.000Z',
  terms: 'Net30',
  currencyCode: 'USD',
  orderId: o.orderId,
  items: [{ sku: o.sku, productName: 'Widget', quantity: 1, price: 10 }],
});

const planRule = (o: Ids) => ({ Priority: 1, Name: 'Matrix rule', Rate: 0.1, Match: { CustomerNumbers: [o.customerNumber] } });
const planBody = (o: Ids) => ({
  SalesRepId: o.salesRepId,
  Name: 'Matrix plan',
  DefaultRate: 0.05,
  EffectiveStartDate: '2026-01-01T00:00:00Z',
  Rules: [planRule(o)],
  CustomerOverrides: [{ CustomerNumber: o.customerNumber, EffectiveStartDate: '2026-01-01T00:00:00Z', Rules: [planRule(o)] }],
});

const BODIES: Record<string, (o: Ids) => unknown> = {
  'POST /api/orders': orderBody,
  'POST /api/orders/bulk': (o) => ({ orders: [{ ...orderBody(o), orderNumber: `SO-M-${o.customerNumber}` }] }),
  'POST /api/invoices': invoiceOf,
  'PUT /api/invoices/{invoiceId}': invoiceOf,
  'POST /api/invoices/bulk': (o) => ({ invoices: [invoiceOf(o)] }),
  'POST /api/invoices/{invoiceId}/payments': (o) => ({
    amount: 1,
    currencyCode: 'USD',
    method: 'Card',
    paymentDate: '2026-01-15T00:00:00.000Z',
    paymentProfileId: o.paymentProfileId,
  }),
  'POST /api/invoices/{invoiceId}/refunds': (o) => ({ amount: 1, paymentId: o.paymentId, reason: 'matrix' }),
  'PUT /api/customers': (o) => ({ customerNumber: o.customerNumber, companyName: 'Matrix Co', companyEmail: 'matrix-co@example.com', pricing: 'Retail' }),
  'PUT /api/customers/{customerNumber}': (o) => ({
    customerNumber: o.customerNumber,
    companyName: 'Matrix Co',
    companyEmail: 'matrix-co@example.com',
    pricing: 'Retail',
  }),
  'POST /api/carts/{customerNumberOrCartId}': (o) => ({ customerNumber: o.customerNumber, sku: o.sku, quantity: 1, orderType: 'Standard' }),
  'POST /api/carts/{customerNumber}/{shoppingCartId}/items': (o) => ({ customerNumber: o.customerNumber, sku: o.sku, quantity: 2 }),
  'PUT /api/carts/{customerNumber}/{shoppingCartId}/items/{sku}': (o) => ({ customerNumber: o.customerNumber, quantity: 3 }),
  'PUT /api/carts/{customerNumber}/{shoppingCartId}/shipping': (o) => ({
    customerNumber: o.customerNumber,
    shippingAddress: { line1: '1 Main St', city: 'Springfield', country: 'US' },
  }),
  'PUT /api/carts/{customerNumber}/{shoppingCartId}/po-number': (o) => ({ customerNumber: o.customerNumber, poNumber: 'PO-M' }),
  'POST /api/carts/{customerNumber}/{shoppingCartId}/complete-checkout': (o) => ({
    customerNumber: o.customerNumber,
    channel: 'Web',
    paymentProfileId: o.paymentProfileId,
  }),
  'POST /api/payments/payment-methods': (o) => ({
    customerNumber: o.customerNumber,
    emailAddress: 'buyer@example.com',
    cardNumber: '4111111111111111',
    expirationMonth: '12',
    expirationYear: String(new Date().getFullYear() + 2),
    cardCode: '123',
    paymentProvider: 'ProviderDirect',
    billingAddress: { firstName: 'Ada', lastName: 'Buyer', address1: '1 Main St', city: 'Springfield', zipCode: '62701', country: 'US' },
  }),
  'POST /api/payments/hosted/transaction-setup': (o) => ({
    customerNumber: o.customerNumber,
    transactionAmount: 1,
    applicationReturnUrl: 'https://shop.example.com/return',
  }),
  'POST /api/auth/access': (o) => ({ OrganizationId: o.organizationId, UserId: o.customerUserId }),
  'POST /api/organizations/users/associate-customer': (o) => ({ UserId: o.customerUserId, CustomerNumber: o.customerNumber }),
  'PATCH /api/organizations/salesreps': (o) => ({ organizationSalesRepId: o.organizationSalesRepId, repNumber: `RM${o.repNumber}`.slice(0, 20) }),
  'POST /api/commissions/plans': (o) => planBody(o),
  'PUT /api/commissions/plans/{commissionPlanId}': (o) => planBody(o),
  'POST /api/commissions/statements': (o) => ({ salesRepId: o.salesRepId, startDate: '2026-03-01', endDate: '2026-03-31' }),
  'POST /api/images/from-remote': (o) => ({ images: [{ imageUrl: 'http://127.0.0.1:9/none.png', productSku: o.sku }] }),
  'DELETE /api/images': (o) => ({ ids: [o.imageId] }),
  'PUT /api/products/prices': (o) => ({ productUpdates: [{ sku: o.sku, prices: [{ tier: 'Retail', price: 11, atQuantity: 1 }] }] }),
  'POST /api/companydocs/folders': (o) => ({ name: 'Matrix folder', parentId: o.folderId }),
  'PUT /api/companydocs/documents/{documentId}/move': (o) => ({ targetFolderId: o.folderId }),
  'POST /api/companydocs/documents/bulk-delete': (o) => ({ documentIds: [o.documentId] }),
  'POST /api/companydocs/documents/bulk-move': (o) => ({ documentIds: [o.documentId], targetFolderId: o.folderId }),
  'POST /api/imports': (o) => ({ kind: 'products', uploadId: o.uploadId, format: 'csv' }),
  'DELETE /api/organizations/users/admins': (o) => ({ UserId: o.adminUserId }),
  'DELETE /api/organizations/salesreps': (o) => ({ organizationSalesRepId: o.organizationSalesRepId }),
  'POST /api/organizations/salesreps/activate': (o) => ({ organizationSalesRepId: o.organizationSalesRepId }),
  'POST /api/organizations/salesreps/deactivate': (o) => ({ organizationSalesRepId: o.organizationSalesRepId }),
  'PUT /api/customers/{customerNumber}/buyers/{userId}': () => ({ role: 'Buyer', orderLimit: 100, monthlyLimit: 1000 }),
  'POST /api/approvals/{approvalId}/reject': () => ({ reason: 'matrix' }),
};

/** Own ids that differ for one operation (e.g. only a Draft invoice can be changed). */
const OWN_OVERRIDES: Record<string, (o: Ids) => Ids> = {
  'PUT /api/invoices/{invoiceId}': (o) => ({ ...o, invoiceId: o.draftInvoiceId }),
};

/** Query parameters an operation needs besides the id slots. */
const BASE_QUERY: Record<string, Record<string, string>> = {
  'GET /api/products/search': { searchTerm: 'Product' },
};
for (const path of Object.keys(doc.paths).filter((p) => p.startsWith('/api/analytics/')))
  BASE_QUERY[`GET ${path}`] = { startDate: '2026-01-01T00:00:00Z', endDate: '2026-12-31T00:00:00Z' };

/** Set-up around one operation's cases. */
const HOOKS: Record<string, { before: () => Promise<void>; after: () => Promise<void> }> = {
  // Creating a cart needs a customer without an open one: the caller's cart is closed meanwhile.
  // (A1's customer for most callers; A3's, where the former Approver is now, for it.)
  'POST /api/carts/{customerNumberOrCartId}': {
    before: async () => void (await dbQuery("update cart set status = 'CLOSED' where id = any($1::uuid[])", [[world.A1.ids.cartId, world.A3.ids.cartId]])),
    after: async () => {
      for (const p of [world.A1, world.A3]) {
        // A cart some case opened meanwhile (a failure reported by that case) is closed, so the caller's reopens.
        await dbQuery("update cart set status = 'CLOSED' where organization_id = $1 and status = 'PENDING' and id <> $2 and customer_number = $3", [
          p.org.organizationId,
          p.ids.cartId,
          p.ids.customerNumber,
        ]);
        await dbQuery("update cart set status = 'PENDING' where id = $1", [p.ids.cartId]);
      }
    },
  },
};

/** Multipart operations: text fields from the caller's ids, plus one small file. */
const MULTIPART: Record<string, (o: Ids) => Promise<{ fields: Record<string, string>; file: { field: string; name: string; data: Buffer; type: string } }>> = {
  'POST /api/images/from-local': async (o) => ({
    fields: { sku: o.sku },
    file: { field: 'image', name: 'm.png', data: await makeImage(20, 20), type: 'image/png' },
  }),
  'POST /api/images/category': async (o) => ({
    fields: { categoryName: o.category },
    file: { field: 'image', name: 'm.png', data: await makeImage(20, 20), type: 'image/png' },
  }),
  'POST /api/companydocs/documents/upload': async (o) => ({
    fields: { folderId: o.folderId },
    file: { field: 'file', name: 'm.pdf', data: Buffer.from('%PDF-1.4\n%%EOF\n'), type: 'application/pdf' },
  }),
};

function getPath(obj: unknown, path: string): unknown {
  let cur: any = obj;
  for (const part of path.split('.')) {
    if (cur === undefined || cur === null) return undefined;
    const arr = part.endsWith('[]');
    cur = cur[arr ? part.slice(0, -2) : part];
    if (arr) cur = Array.isArray(cur) ? (part === path.split('.').pop() ? cur : cur[0]) : undefined;
  }
  return cur;
}

/** Sets `value` at a slot path like "orders[].customer.customerNumber" (in every array element; arrays of ids get [value]). */
function setPath(obj: Json, path: string, value: string): void {
  const [head, ...rest] = path.split('.');
  const arr = head.endsWith('[]');
  const name = arr ? head.slice(0, -2) : head;
  if (!rest.length) {
    obj[name] = arr ? [value] : value;
    return;
  }
  if (arr) {
    if (!Array.isArray(obj[name]) || !obj[name].length) obj[name] = [{}];
    for (const el of obj[name] as Json[]) setPath(el, rest.join('.'), value);
  } else {
    if (typeof obj[name] !== 'object' || obj[name] === null) obj[name] = {};
    setPath(obj[name] as Json, rest.join('.'), value);
  }
}

// ---------------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------------

/** A party whose records a case names: another of the caller's organization (A2; A1 for the former Approver) or org B. */
type Target = 'A1' | 'A2' | 'B1';

interface Case {
  op: Op;
  slot: Slot;
  actor: Actor;
  target: Target;
  expect: Expectation;
}

const ACTORS: Actor[] = ['Admin', 'SalesRep', 'Customer', ...BUYER_ACTORS, 'none'];

/** The party whose ids are the caller's own: A1, except the former Approver, now a user of A3's customer. */
const callerOf = (actor: Actor): 'A1' | 'A3' => (actor === 'FormerApprover' ? 'A3' : 'A1');

function targetsOf(actor: Actor, kind: string): Target[] {
  const scope = KIND_SCOPE[kind];
  if (actor === 'Admin' || actor === 'none' || scope === 'org') return ['B1'];
  return [actor === 'FormerApprover' ? 'A1' : 'A2', 'B1'];
}

/** The expectation rules name "another party of the caller's organization" A2. */
const ruleTarget = (t: Target): 'A2' | 'B1' => (t === 'B1' ? 'B1' : 'A2');

const secured = ops.filter((o) => o.roles.length > 0);
const casesOf = (op: Op): Case[] =>
  op.slots
    .filter((s) => s.kind)
    .flatMap((slot) =>
      ACTORS.flatMap((actor) =>
        targetsOf(actor, slot.kind!).map((target) => ({
          op,
          slot,
          actor,
          target,
          expect: expectation(op.key, slot.name, slot.kind!, actor, op.roles, ruleTarget(target)),
        })),
      ),
    );
const rank = (m: string) => (m === 'GET' ? 0 : m === 'DELETE' ? 2 : 1);
const matrixOps = secured.filter((o) => o.slots.some((s) => s.kind)).sort((a, b) => rank(a.method) - rank(b.method) || a.key.localeCompare(b.key));

let world: World;

/** The user behind a buyer-role actor. */
const buyerUser = (actor: BuyerActor): BuyerUser =>
  actor === 'Buyer' ? world.buyers.buyer : actor === 'Approver' ? world.buyers.approver : world.buyers.former;

function tokenOf(actor: Actor): string | undefined {
  const p = world.A1;
  if (isBuyerActor(actor)) return buyerUser(actor).token;
  return actor === 'Admin' ? p.org.adminToken : actor === 'SalesRep' ? p.repToken : actor === 'Customer' ? p.customerToken : undefined;
}

/** The caller's own ids for an operation: its party's, and for a buyer-role actor its own user id. */
function ownIds(op: Op, actor: Actor): Ids {
  const party = world[callerOf(actor)].ids;
  const own = OWN_OVERRIDES[op.key]?.(party) ?? party;
  return isBuyerActor(actor) ? { ...own, customerUserId: buyerUser(actor).userId } : own;
}

/** Sends the operation as `actor` with every id its own, except `slot` (if given) set to the `target` party's. */
async function send(op: Op, actor: Actor, slot?: Slot, target?: Party, value?: string): Promise<Res> {
  const own = ownIds(op, actor);
  const kindOf = (s: string) => op.slots.find((x) => x.name === s)?.kind;
  const foreign = (s: string) => (slot && target && slot.name === s ? (value ?? target.ids[slot.kind!]) : undefined);
  const path = op.path.replace(/\{(\w+)\}/g, (_, n: string) =>
    encodeURIComponent(foreign(`path:${n}`) ?? own[kindOf(`path:${n}`) ?? ''] ?? '00000000-0000-4000-8000-000000000000'),
  );
  const qs = new URLSearchParams(BASE_QUERY[op.key] ?? {});
  for (const q of op.query) {
    const v = foreign(`query:${q.name}`) ?? (q.required ? own[kindOf(`query:${q.name}`) ?? ''] : undefined);
    if (v !== undefined) qs.set(q.name, v);
  }
  if (slot?.name.startsWith('filter:')) qs.set('filters', JSON.stringify([{ field: slot.name.slice(7), operator: 'equals', value: foreign(slot.name) }]));
  const url = qs.size ? `${path}?${qs}` : path;
  const token = tokenOf(actor);
  if (op.multipart) {
    const m = await MULTIPART[op.key](own);
    if (slot?.name.startsWith('body:')) m.fields[slot.name.slice(5)] = foreign(slot.name)!;
    const form = new FormData();
    for (const [k, v] of Object.entries(m.fields)) form.append(k, v);
    form.append(m.file.field, new Blob([m.file.data], { type: m.file.type }), m.file.name);
    const res = await fetch(`${API}${url}`, { method: op.method, headers: token ? { authorization: `Bearer ${token}` } : {}, body: form });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed, headers: res.headers, text };
  }
  let body: unknown;
  if (op.schema) {
    body = BODIES[op.key] ? BODIES[op.key](own) : matrixBodies[op.key] ? matrixBodies[op.key](world.A1.org) : synthesizeBody(op.schema);
    body = JSON.parse(JSON.stringify(body ?? {}));
    for (const s of op.slots) {
      if (!s.kind || !s.name.startsWith('body:')) continue;
      const p = s.name.slice(5);
      if (getPath(body, p) !== undefined && own[s.kind] !== undefined) setPath(body as Json, p, own[s.kind]);
    }
    if (slot?.name.startsWith('body:')) setPath(body as Json, slot.name.slice(5), foreign(slot.name)!);
  }
  return call(op.method, url, { token, body });
}

// ---------------------------------------------------------------------------------------------
// Snapshots: the target parties' records, read by their own Admin, before and after writes.
// ---------------------------------------------------------------------------------------------

function snapshotReads(p: Party, withOrgLevel: boolean): [string, string][] {
  const i = p.ids;
  const f = (field: string, value: string) => `filters=${encodeURIComponent(JSON.stringify([{ field, operator: 'equals', value }]))}`;
  const reads: [string, string][] = [
    ['customer', `/api/customers/${i.customerNumber}`],
    ['order', `/api/orders/${i.orderId}`],
    ['invoice', `/api/invoices/${i.invoiceId}`],
    ['cart', `/api/carts/${i.cartId}`],
    ['customer carts', `/api/carts/customer/${i.customerNumber}`],
    ['cards', `/api/payments/${i.customerNumber}/profiles`],
    ['orders of the customer', `/api/orders?${f('customerNumber', i.customerNumber)}`],
    ['invoices of the customer', `/api/invoices?${f('customerNumber', i.customerNumber)}`],
    ['statement', `/api/commissions/statements/${i.statementId}`],
    ['statements', `/api/commissions/statements?salesRepId=${i.salesRepId}`],
    ['plan', `/api/commissions/plans/${i.commissionPlanId}`],
    ['reps', `/api/organizations/salesreps?pageSize=500`],
    ['associations of the user', `/api/users/customer-associations?UserId=${i.customerUserId}`],
  ];
  if (withOrgLevel)
    reads.push(
      ['organization', '/api/organization'],
      ['admins', '/api/organizations/users/admins'],
      ['product', `/api/products/${encodeURIComponent(i.sku)}`],
      ['category', `/api/categories/${encodeURIComponent(i.category)}`],
      ['image', `/api/images/${i.imageId}`],
      ['folder', `/api/companydocs/folders/${i.folderId}`],
      ['folders', '/api/companydocs/folders'],
      ['document', `/api/companydocs/documents/${i.documentId}`],
      ['webhook', `/api/webhooks/${i.webhookId}`],
      ['integration', `/api/organizations/${i.organizationId}/integrations/${i.integrationId}`],
      ['import job', `/api/imports/${i.importJobId}`],
      ['price tiers', '/api/organizations/price-tiers'],
    );
  return reads;
}

/** Signed URLs change on every read; their query strings are not state. */
/** Statements gain a ReminderSent event on a timer; those are not changes made by a request. */
/** The dunning workflow marks open invoices overdue on a timer (test days are a second), which moves their updatedAt; every other field is still compared. */
const withoutUpdatedAt = (text: string) => text.replace(/"updatedAt":"[^"]*"/g, '');
const normalize = (text: string) => text.replace(/(https?:\/\/[^"?\s]+)\?[^"\s]*/g, '$1').replace(/,?\{"type":"ReminderSent"[^}]*\}/g, '');

/**
 * Organization-level reads an operation's cases can reach, by kind; the customer's and rep's records
 * are read after every write. (A record not re-read keeps its last snapshot, so a change to it is
 * still reported by the next operation that reads it.)
 */
const ORG_READS: Record<string, string[]> = {
  organizationId: ['organization', 'admins', 'price tiers'],
  adminUserId: ['admins'],
  sku: ['product'],
  productExternalId: ['product'],
  category: ['category', 'product'],
  imageId: ['image'],
  folderId: ['folder', 'folders', 'document'],
  documentId: ['document', 'folder'],
  webhookId: ['webhook'],
  deliveryId: ['webhook'],
  integrationId: ['integration'],
  importJobId: ['import job'],
  uploadId: ['import job'],
};

async function snapshot(p: Party, withOrgLevel: boolean, kinds?: Set<string>): Promise<Record<string, string>> {
  const orgLabels = kinds && new Set([...kinds].flatMap((k) => ORG_READS[k] ?? []));
  const customerLabels = new Set(snapshotReads(p, false).map(([l]) => l));
  const reads = snapshotReads(p, withOrgLevel).filter(([label]) => !orgLabels || customerLabels.has(label) || orgLabels.has(label));
  const out: Record<string, string> = {};
  await pool(reads, 6, async ([label, path]) => {
    const r = await call('GET', path, { token: p.org.adminToken });
    const text = normalize(r.text);
    out[label] = `${r.status} ${label.startsWith('invoice') ? withoutUpdatedAt(text) : text}`;
  });
  return out;
}

/** Records whose reads differ between two quiet snapshots (running jobs, timestamps of reads): compared by status only. */
const volatile = new Set<string>();

async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Running cases
// ---------------------------------------------------------------------------------------------

/** The target's ids that must never appear in an answer (the substituted one may be echoed back). */
function leakedIds(c: Case, res: Res, skipKinds: Set<string>): string[] {
  const t = world[c.target];
  const submitted = t.ids[c.slot.kind!];
  return Object.entries(t.ids)
    .filter(([k, v]) => v && v !== submitted && !skipKinds.has(k) && !(c.target !== 'B1' && KIND_SCOPE[k] === 'org'))
    .filter(([, v]) => v.length >= 6 && res.text.includes(v))
    .map(([k]) => k);
}

/** A value of the same shape as `v` that names nothing anywhere. */
const nonexistent = (v: string) => (/^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(v) ? randomUUID() : `Z${randomBytes(6).toString('hex')}`);

const errorKeys = (r: Res) =>
  Object.keys((r.body as Json)?.errors ?? {})
    .sort()
    .join(',');

async function runCase(c: Case, failures: string[], skipKinds = new Set<string>()): Promise<void> {
  const who =
    c.target === 'B1'
      ? "org B's"
      : c.target === 'A1'
        ? KIND_SCOPE[c.slot.kind!] === 'rep'
          ? "its former customer's rep's"
          : "its former customer's"
        : KIND_SCOPE[c.slot.kind!] === 'rep'
          ? "the other rep's"
          : "the other customer's";
  const label = `${c.actor} with ${who} ${c.slot.kind} in ${c.slot.name}`;
  const foreignValue = world[c.target].ids[c.slot.kind!];
  if (foreignValue === undefined) {
    failures.push(`${label}: the world has no ${c.slot.kind} for ${c.target}; create one in test/support/matrix-world.ts`);
    return;
  }
  tally.cases++;
  tally.byActor[c.actor] = (tally.byActor[c.actor] ?? 0) + 1;
  let res: Res;
  try {
    res = await send(c.op, c.actor, c.slot, world[c.target]);
  } catch (e) {
    failures.push(`${label}: request failed: ${String(e)}`);
    return;
  }
  const e = c.expect;
  let ok = res.status < 500 && e.statuses.includes(res.status);
  // A bulk write may answer per row: a 2xx whose row is refused with 404/403 refuses the foreign id too.
  if (!ok && /\/bulk$/.test(c.op.path) && res.status < 300 && /"status":\s*40[34]\b/.test(res.text)) ok = true;
  if (!ok && res.status < 300 && e.allow2xx === 'label') ok = true;
  if (!ok && res.status < 300 && e.allow2xx === 'rowErrors') ok = new RegExp(`"errors":\\[[^\\]]*${foreignValue}`).test(res.text);
  if (!ok && res.status < 300 && e.allow2xx === 'ignored') {
    // The record written must not carry the foreign value: read it back as its organization's Admin.
    const id = (res.body as Json)?.data?.id ?? (res.body as Json)?.id;
    const back = id ? await call('GET', `${c.op.path}/${id}`, { token: world.A1.org.adminToken }) : undefined;
    ok = !!back && back.status === 200 && !back.text.includes(foreignValue);
    if (!ok) failures.push(`${label}: ${res.status}, and the record written (${back?.status}) carries the foreign value instead of ignoring it`);
  }
  if (!ok && e.oracle && res.status >= 400 && res.status < 500) {
    // Refused some other way: fine when an id that exists nowhere gets the same answer.
    const control = await send(c.op, c.actor, c.slot, world[c.target], nonexistent(foreignValue));
    ok = control.status === res.status && errorKeys(control) === errorKeys(res);
    // A 400 must be about the substituted field, else the request was invalid for another reason and proves nothing.
    const leaf = leafOf(c.slot.name).toLowerCase();
    if (
      ok &&
      res.status === 400 &&
      !errorKeys(res)
        .toLowerCase()
        .split(',')
        .some(
          (k) =>
            k
              .replace(/\[\d+\]/g, '')
              .split('.')
              .pop() === leaf,
        )
    )
      failures.push(
        `${label}: 400 without naming ${c.slot.name} (${errorKeys(res) || res.text.slice(0, 160)}): the matrix's request is invalid for another reason; fix its body`,
      );
    else if (!ok)
      failures.push(
        `${label}: ${res.status} ${res.text.slice(0, 160)}, but an id that exists nowhere gets ${control.status} ${control.text.slice(0, 160)}: the answer tells the target exists`,
      );
    else ok = true;
  } else if (!ok)
    failures.push(`${label}: expected ${e.statuses.join('/')}${e.allow2xx ? ` or 2xx (${e.allow2xx})` : ''}, got ${res.status} ${res.text.slice(0, 200)}`);
  if (c.slot.name.startsWith('filter:') && res.status === 200) {
    const rows = ((res.body as Json)?.data ?? (res.body as Json)?.Data ?? res.body) as unknown;
    if (Array.isArray(rows) && rows.length) failures.push(`${label}: the filtered list shows ${rows.length} row(s)`);
  }
  const leaks = leakedIds(c, res, skipKinds);
  if (leaks.length) failures.push(`${label}: the answer (${res.status}) shows the target's ${leaks.join(', ')}`);
}

function diffText(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `…${a.slice(Math.max(0, i - 80), i + 80)} -> …${b.slice(Math.max(0, i - 80), i + 80)}`;
}

const snapshots: Partial<Record<Target, Record<string, string>>> = {};
const takeSnapshot = async (t: Target, kinds?: Set<string>) => {
  const fresh = await snapshot(world[t], t === 'B1', kinds);
  snapshots[t] = { ...snapshots[t], ...fresh };
  return fresh;
};

/** Runs cases; after writes, compares the target parties' records with the last snapshot. */
async function runCases(cases: Case[], write: boolean, opts: { concurrency?: number; skipKinds?: Set<string> } = {}): Promise<string[]> {
  const failures: string[] = [];
  const targets = [...new Set(cases.map((c) => c.target))];
  // A1 is also the callers' party (hooks and their own requests touch it): read just before the cases.
  if (write && targets.includes('A1')) await takeSnapshot('A1', new Set(cases.map((c) => c.slot.kind!)));
  await pool(cases, opts.concurrency ?? 8, (c) => runCase(c, failures, opts.skipKinds));
  if (write)
    for (const t of targets) {
      const before = { ...snapshots[t]! };
      const after = await takeSnapshot(t, new Set(cases.map((c) => c.slot.kind!)));
      failures.push(
        ...Object.keys(after)
          .filter((k) => (volatile.has(k) ? before[k].slice(0, 3) !== after[k].slice(0, 3) : before[k] !== after[k]))
          .map((k) => `${t}'s ${k} changed after the write attempts: ${diffText(before[k], after[k])}`),
      );
    }
  return failures;
}

const deferred: Case[] = [];
const tally = { cases: 0, byActor: {} as Record<string, number> };

afterAll(() =>
  console.log(
    `id-substitution matrix: ${tally.cases} cases over ${matrixOps.length} operations x ${ACTORS.length} callers (${Object.entries(tally.byActor)
      .map(([a, n]) => `${a} ${n}`)
      .join(', ')})`,
  ),
);

beforeAll(async () => {
  world = await buildWorld();
  const [a, b] = await Promise.all([snapshot(world.A2, false), snapshot(world.B1, true)]);
  await new Promise((r) => setTimeout(r, 1000));
  const [a2, b2] = await Promise.all([takeSnapshot('A2'), takeSnapshot('B1')]);
  for (const [x, y] of [
    [a, a2],
    [b, b2],
  ])
    for (const k of Object.keys(x)) if (x[k] !== y[k]) volatile.add(k);
}, 360_000);

const filterOps: { op: Op; slot: Slot }[] = [];

describe('id-substitution matrix: coverage', () => {
  test('when the document is read, then operations with id slots are found', () => {
    expect(matrixOps.length).toBeGreaterThan(50);
  });

  test('when an operation has an id in its path, query or body, then a substitution rule (or a stated exemption) covers it', () => {
    expect(ops.flatMap((o) => o.missing)).toEqual([]);
  });

  test('when a list answers to filters, then each id-like filter field has a substitution rule', async () => {
    const missing: string[] = [];
    for (const op of secured.filter((o) => o.method === 'GET' && !o.pathParams.length)) {
      const token = op.roles.includes('Admin') ? world.A1.org.adminToken : world.A1.repToken;
      const qs = new URLSearchParams({ ...BASE_QUERY[op.key], filters: JSON.stringify([{ field: 'matrixProbe', operator: 'equals', value: 'x' }]) });
      const res = await call('GET', `${op.path}?${qs}`, { token });
      const msg = ((res.body as Json)?.errors?.['filters[0].field'] ?? []) as string[];
      const fields = msg.flatMap((m) => /one of: (.*)\.$/.exec(m)?.[1].split(', ') ?? []);
      for (const f of fields.filter((x) => ID_LIKE.test(x))) {
        const rule = ruleFor(op.key, `filter:${f}`);
        if (!rule) missing.push(`${op.key} filter:${f}`);
        else if (rule.kind) filterOps.push({ op, slot: rule });
      }
    }
    expect(missing).toEqual([]);
    expect(filterOps.length).toBeGreaterThan(3);
  });
});

describe('id-substitution matrix', () => {
  test.each(matrixOps.map((o) => [o.key, o] as const))(
    '%s: when a caller sends the id of another customer, rep or organization, then 404 (or 401/403) and nothing changes',
    async (_k, op) => {
      const cases = casesOf(op);
      deferred.push(...cases.filter((c) => c.expect.allow2xx));
      await HOOKS[op.key]?.before();
      let failures: string[] = [];
      try {
        failures = await runCases(
          cases.filter((c) => !c.expect.allow2xx),
          op.method !== 'GET',
        );
      } finally {
        await HOOKS[op.key]?.after().catch((e: unknown) => failures.push(`restoring after the cases failed: ${String(e)}`));
      }
      // Control: with its own ids the caller succeeds, so the 404s above come from the substituted id.
      // (The buyer roles' own requests are checked against their rules in 'buyer roles' below.)
      if (op.method === 'GET')
        for (const actor of ACTORS.filter((a) => a !== 'none' && !isBuyerActor(a) && op.roles.includes(a))) {
          const res = await send(op, actor);
          if (res.status >= 300) failures.push(`control: ${actor} with its own ids got ${res.status} ${res.text.slice(0, 200)}`);
        }
      expect(failures).toEqual([]);
    },
  );

  test('list filters: when a caller filters a list on the id of another customer, rep or organization, then the list shows none of it', async () => {
    const cases = filterOps.flatMap(({ op, slot }) =>
      ACTORS.filter((a) => a !== 'none' && op.roles.includes(roleOf(a))).flatMap((actor) =>
        targetsOf(actor, slot.kind!).map((target) => ({
          op,
          slot,
          actor,
          target,
          expect: expectation(op.key, slot.name, slot.kind!, actor, op.roles, ruleTarget(target)),
        })),
      ),
    );
    expect(await runCases(cases, false)).toEqual([]);
  });

  test("labels and natural keys (run last): when a caller writes with another party's key that only names something in its own scope, then nothing of that party changes or shows", async () => {
    // One at a time: these may write the caller's own records (and so carry the values sent before).
    // By the callers' party: A1's callers write A1's records, the former Approver A3's and names A1's.
    const skipKinds = new Set(deferred.map((c) => c.slot.kind!));
    const failures: string[] = [];
    for (const party of ['A1', 'A3'] as const)
      failures.push(...(await runCases(deferred.filter((c) => callerOf(c.actor) === party), true, { concurrency: 1, skipKinds })));
    expect(failures).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Buyer roles with their own ids (docs/approvals.md; rules: buyerRule in matrix-ids.ts)
// ---------------------------------------------------------------------------------------------

/** What the rules know of org A's buyers: associations now, buyer rows, approval requests. */
function buyerModel(): BuyerModel {
  const b = world.buyers;
  const C = world.A1.ids.customerNumber;
  const C2 = world.A3.ids.customerNumber;
  return {
    customerOf: {
      [b.buyer.userId]: C,
      [b.approver.userId]: C,
      [b.plain.userId]: C,
      [world.A1.ids.customerUserId]: C,
      [b.former.userId]: C2,
      [world.A3.ids.customerUserId]: C2,
      [world.A2.ids.customerUserId]: world.A2.ids.customerNumber,
    },
    rows: JSON.parse(JSON.stringify(b.rows)) as BuyerModel['rows'],
    approvals: {
      [world.A1.ids.approvalId]: { customerNumber: C, requester: world.A1.ids.customerUserId, asked: [], status: 'Rejected' },
      [world.A3.ids.approvalId]: { customerNumber: C2, requester: world.A3.ids.customerUserId, asked: [], status: 'Rejected' },
      [b.pendingApprovalId]: { customerNumber: C, requester: b.buyer.userId, asked: [b.former.userId], status: 'Pending' },
    },
  };
}

type RuleExpectation = Expectation & { fields?: string[] };

/** Checks an answer against a rule: status, no 5xx, and the fields a 403 about values names. */
function judge(label: string, e: RuleExpectation, res: Res, failures: string[]): boolean {
  if (res.status >= 500 || !e.statuses.includes(res.status)) {
    failures.push(`${label}: expected ${e.statuses.join('/')}${e.why ? ` (${e.why})` : ''}, got ${res.status} ${res.text.slice(0, 200)}`);
    return false;
  }
  if (e.fields?.length && errorKeys(res) !== [...e.fields].sort().join(',')) {
    failures.push(`${label}: the 403 should name ${e.fields.join(', ')}, it names ${errorKeys(res) || 'nothing'}: ${res.text.slice(0, 200)}`);
    return false;
  }
  return true;
}

/** The buyer-rule request of an operation sent with the actor's own ids. */
function ownBuyerRequest(op: Op, actor: BuyerActor): BuyerRequest {
  const own = ownIds(op, actor);
  return {
    opKey: op.key,
    caller: buyerUser(actor).userId,
    customerNumber: own.customerNumber,
    userId: op.pathParams.includes('userId') ? own.customerUserId : undefined,
    approvalId: op.pathParams.includes('approvalId') ? own.approvalId : undefined,
    body: op.method === 'PUT' ? (BODIES[op.key]?.(own) as Partial<BuyerGrant> | undefined) : undefined,
  };
}

const buyerTally = { requests: 0, operations: new Set<string>() };
afterAll(() =>
  console.log(
    `buyer roles: ${buyerTally.requests} own-id requests over ${buyerTally.operations.size} operations x ${BUYER_ACTORS.length} roles (${secured.length} secured operations)`,
  ),
);

describe('buyer roles: every operation as a Buyer, an Approver and a former Approver with their own ids', () => {
  test.each(secured.map((o) => [o.key, o] as const))(
    '%s: when a customer user with a buyer role (or a former Approver) calls it, then the role rules decide',
    async (_k, op) => {
      const failures: string[] = [];
      const model = buyerModel();
      for (const actor of BUYER_ACTORS) {
        let e: RuleExpectation | undefined;
        if (!op.roles.includes('Customer')) e = { statuses: [403], why: 'the role may never call the operation' };
        else e = buyerRule(ownBuyerRequest(op, actor), model) ?? (op.method === 'GET' ? { statuses: [200, 204], why: 'a buyer role takes nothing from what a customer user reads of its customer' } : undefined);
        // A customer user's own writes (cart, checkout, quote accept, order) are the admission's (test/admission-attacks.test.ts);
        // a write the rules allow would change the world: the grids below make those.
        if (!e || (op.method !== 'GET' && e.statuses.some((s) => s < 300))) continue;
        buyerTally.requests++;
        buyerTally.operations.add(op.key);
        const res = await send(op, actor);
        judge(`${actor} with its own ids`, e, res, failures);
      }
      expect(failures).toEqual([]);
    },
  );
});

describe('buyer roles: buyer rows and approvals', () => {
  const BODIES_GRID: Record<string, BuyerGrant> = {
    'within its limits': { role: 'Buyer', orderLimit: 100, monthlyLimit: 1000 },
    'above its per-order limit': { role: 'Buyer', orderLimit: 5000, monthlyLimit: 1000 },
    'without limits': { role: 'Buyer', orderLimit: null, monthlyLimit: null },
    'as an Approver': { role: 'Approver', orderLimit: 100, monthlyLimit: 1000 },
  };

  const rowsRead = async (customerNumber: string) => {
    const r = await call('GET', `/api/customers/${customerNumber}/buyers?pageSize=500`, { token: world.A1.org.adminToken });
    return Object.fromEntries(
      ((r.body as Json)?.Data ?? []).map((b: Json) => [b.userId, { role: b.role, orderLimit: b.orderLimit, monthlyLimit: b.monthlyLimit }]),
    ) as Record<string, BuyerGrant>;
  };

  test("buyer rows: when a Buyer, an Approver or a former Approver sets or removes anyone's row at its customer or its former one, then only what the rules allow happens", async () => {
    const b = world.buyers;
    const C = world.A1.ids.customerNumber;
    const C2 = world.A3.ids.customerNumber;
    const model = buyerModel();
    const names: Record<string, string> = {
      [b.buyer.userId]: 'the Buyer',
      [b.approver.userId]: 'the Approver',
      [b.former.userId]: 'the former Approver',
      [b.plain.userId]: 'a user without a role',
      [world.A1.ids.customerUserId]: 'the Approver without limits',
      [world.A3.ids.customerUserId]: "C2's Approver",
    };
    const failures: string[] = [];
    let allowed = 0;
    for (const actor of BUYER_ACTORS)
      for (const [customerNumber, where] of [
        [C, 'C'],
        [C2, 'C2'],
      ])
        for (const userId of Object.keys(names)) {
          for (const [what, body] of Object.entries(BODIES_GRID)) {
            const e = buyerRule({ opKey: 'PUT /api/customers/{customerNumber}/buyers/{userId}', caller: buyerUser(actor).userId, customerNumber, userId, body }, model)!;
            const res = await call('PUT', `/api/customers/${customerNumber}/buyers/${userId}`, { token: buyerUser(actor).token, body });
            if (judge(`${actor} sets ${names[userId]}'s row at ${where} ${what}`, e, res, failures) && res.status === 200) {
              allowed++;
              (model.rows[customerNumber] ??= {})[userId] = { ...body };
            }
          }
          const e = buyerRule({ opKey: 'DELETE /api/customers/{customerNumber}/buyers/{userId}', caller: buyerUser(actor).userId, customerNumber, userId }, model)!;
          const res = await call('DELETE', `/api/customers/${customerNumber}/buyers/${userId}`, { token: buyerUser(actor).token });
          if (judge(`${actor} removes ${names[userId]}'s row at ${where}`, e, res, failures) && res.status === 204) delete model.rows[customerNumber][userId];
        }
    // The rules let some changes through (an Approver setting a Buyer within its limits): the grid proves both sides.
    expect(allowed).toBeGreaterThan(0);
    // What the admin reads is exactly what the rules allowed: no refused request changed a row (and a moved Approver has none left at C).
    const canonical = (rows: Record<string, BuyerGrant>) =>
      JSON.stringify(
        Object.entries(rows)
          .map(([id, r]) => [names[id] ?? id, r.role, r.orderLimit, r.monthlyLimit])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      );
    for (const [c, where] of [
      [C, 'C'],
      [C2, 'C2'],
    ]) {
      const read = await rowsRead(c);
      if (canonical(read) !== canonical(model.rows[c] ?? {}))
        failures.push(`the buyer rows of ${where} read ${canonical(read)}, the rules allowed ${canonical(model.rows[c] ?? {})}`);
    }
    expect(failures).toEqual([]);
    // The world's rows again, as the admin set them.
    for (const [userId, row] of Object.entries(b.rows[C]))
      if (userId !== world.A1.ids.customerUserId) await call('PUT', `/api/customers/${C}/buyers/${userId}`, { token: world.A1.org.adminToken, body: row });
    for (const userId of Object.keys(model.rows[C])) if (!b.rows[C][userId]) await call('DELETE', `/api/customers/${C}/buyers/${userId}`, { token: world.A1.org.adminToken });
  });

  test('approvals: when a Buyer, an Approver or a former Approver reads, lists, approves or rejects a request, then it sees only its own or, as an Approver now, its customer\'s, and decides none it was not asked', async () => {
    const model = buyerModel();
    const failures: string[] = [];
    const before = await call('GET', `/api/approvals/${world.buyers.pendingApprovalId}`, { token: world.A1.org.adminToken });
    for (const actor of BUYER_ACTORS) {
      const { userId, token } = buyerUser(actor);
      for (const approvalId of Object.keys(model.approvals)) {
        const which = `${model.approvals[approvalId].status} request of ${model.approvals[approvalId].customerNumber === world.A1.ids.customerNumber ? 'C' : 'C2'}`;
        for (const [method, suffix, body] of [
          ['GET', '', undefined],
          ['POST', '/approve', undefined],
          ['POST', '/reject', { reason: 'matrix' }],
        ] as const) {
          const opKey = `${method} /api/approvals/{approvalId}${suffix}`;
          const e = buyerRule({ opKey, caller: userId, approvalId }, model)!;
          const res = await call(method, `/api/approvals/${approvalId}${suffix}`, { token, body });
          judge(`${actor}: ${method} the ${which}${suffix}`, e, res, failures);
          if (res.status === 200 && method === 'GET' && (res.body as Json)?.approvalId !== approvalId) failures.push(`${actor}: GET ${approvalId} answered another request`);
        }
      }
      // The list shows exactly the requests the rules let it read (and a filter on the former customer, none).
      const visible = visibleApprovals(userId, model);
      const list = await call('GET', '/api/approvals?pageSize=500', { token });
      const listed = (((list.body as Json)?.Data ?? []) as Json[]).map((a) => a.approvalId as string).filter((id) => id in model.approvals);
      if (list.status !== 200 || JSON.stringify([...listed].sort()) !== JSON.stringify([...visible].sort()))
        failures.push(`${actor}: the list shows ${JSON.stringify(listed)} (${list.status}), the rules ${JSON.stringify(visible)}`);
      const filtered = await call('GET', `/api/approvals?customerNumber=${world.A1.ids.customerNumber}&pageSize=500`, { token });
      const mine = Object.keys(model.approvals).filter((id) => model.approvals[id].customerNumber === world.A1.ids.customerNumber && visible.includes(id));
      if ((filtered.body as Json)?.TotalCount !== mine.length) failures.push(`${actor}: the list filtered on C counts ${(filtered.body as Json)?.TotalCount}, the rules ${mine.length}`);
    }
    // Nothing was decided: the pending request is as it was.
    const after = await call('GET', `/api/approvals/${world.buyers.pendingApprovalId}`, { token: world.A1.org.adminToken });
    expect(after.body).toEqual(before.body);
    expect(failures).toEqual([]);
  });
});
