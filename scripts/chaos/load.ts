/**
 * The chaos run's load: every operation through one retrying client (the same Idempotency-Key until
 * CHAOS_OP_DEADLINE), recorded as attempted / acknowledged for the reconciliation; the tenants' setup;
 * the client loops (writes, card checkouts, invoices paid and refunded, one import job); the webhook
 * receiver and the mailbox poll whose records the reconciliation compares.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectStatus as must, request, setupOrganization } from '../lib/api-client.js';
import { OP_DEADLINE, PAUSE, sleep } from './config.js';

// ---- operations ---------------------------------------------------------------------------------

export interface Res {
  status: number;
  body: any;
}
export interface Op {
  kind: string;
  key: string;
  acked: boolean;
  attempts: number;
  lastError?: string;
  /** What the reconciliation checks (sku, customer number, cart id, invoice id, ...). */
  ref: Record<string, any>;
}
export const ops: Op[] = [];
let stopping = false;
/** Ends the client loops after their current operation. */
export function stopLoad(): void {
  stopping = true;
}

/** One call, without a client address (the dev stack trusts no proxy). */
const once = (base: string, method: string, p: string, body: unknown, headers: Record<string, string>, timeoutMs: number): Promise<Res> =>
  request(base, method, p, body, { headers, timeoutMs, forwardedFor: null });

const retryable = (r: Res) =>
  r.status >= 500 || r.status === 429 || r.status === 408 || (r.status === 409 && /still being processed/i.test(JSON.stringify(r.body ?? '')));

/**
 * One call retried until it gets an answer that is not retryable or OP_DEADLINE passes, always with
 * the same Idempotency-Key when `key` is given. Returns the last answer (status 0: no answer).
 */
export async function send(
  base: string,
  token: string,
  method: string,
  p: string,
  body?: unknown,
  key?: string,
  deadlineS = OP_DEADLINE,
): Promise<Res & { attempts: number; error?: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (key) headers['Idempotency-Key'] = key;
  const deadline = Date.now() + deadlineS * 1000;
  let attempts = 0;
  let last: Res & { error?: string } = { status: 0, body: undefined, error: 'not sent' };
  while (attempts === 0 || Date.now() < deadline) {
    attempts++;
    try {
      last = await once(base, method, p, body, headers, 30_000);
      if (!retryable(last)) return { ...last, attempts };
      last.error = `${last.status} ${JSON.stringify(last.body).slice(0, 200)}`;
    } catch (e) {
      last = { status: 0, body: undefined, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
    }
    await sleep(Math.min(2000, 200 * attempts));
  }
  return { ...last, attempts };
}

/** Records an operation: attempted now, acknowledged when `fn` answers 2xx. */
export async function op(kind: string, ref: Record<string, any>, fn: (key: string) => Promise<Res & { attempts: number; error?: string }>): Promise<Res | undefined> {
  const key = `chaos-${kind}-${randomUUID()}`;
  const o: Op = { kind, key, acked: false, attempts: 0, ref };
  ops.push(o);
  const r = await fn(key);
  o.attempts = r.attempts;
  o.acked = r.status >= 200 && r.status < 300;
  if (!o.acked) o.lastError = r.error ?? `${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
  return o.acked ? r : undefined;
}

// ---- tenants and load ---------------------------------------------------------------------------

export interface Tenant {
  n: number;
  organizationId: string;
  token: string;
  customers: string[];
  sku: string;
  cards: Map<string, string>;
  subscribedAt: number;
}


const card = {
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber: '4111111111111111', cardholderName: 'Cara Chaos', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
};
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };

export async function setupTenant(base: string, n: number, receiverUrl: string): Promise<Tenant> {
  const tag = `${n}-${randomBytes(3).toString('hex')}`;
  const org = await setupOrganization(base, {
    name: `Chaos ${tag}`,
    tag,
    emailPrefix: 'chaos',
    password: 'chaos password 1',
    user: { FirstName: 'Cara', LastName: 'Chaos' },
    tiers: [],
    call: { forwardedFor: `10.77.0.${n + 1}`, timeoutMs: 30_000 },
  });
  const token = org.token;
  await must('price tier', send(base, token, 'POST', '/api/organizations/price-tiers', { Name: 'Retail', CurrencyCode: 'USD' }), 200, 409);
  const sku = `CHAOS-${tag}`.toUpperCase();
  await must(
    'product',
    send(base, token, 'PUT', '/api/products', { sku, name: `Chaos product ${tag}`, prices: [{ tier: 'Retail', price: 12.5, atQuantity: 1 }] }),
    200,
    201,
  );
  const customers: string[] = [];
  const cards = new Map<string, string>();
  for (let i = 0; i < 3; i++) {
    const customerNumber = `CC-${tag}-${i}`.toUpperCase();
    await must(
      'customer',
      send(base, token, 'PUT', '/api/customers', {
        customerNumber,
        companyName: `Chaos buyer ${tag} ${i}`,
        companyEmail: `buyer-${tag}-${i}@example.com`,
        pricing: 'Retail',
      }),
      200,
      201,
    );
    const saved = await must(
      'save card',
      send(base, token, 'POST', '/api/payments/payment-methods', {
        customerNumber,
        emailAddress: `buyer-${tag}-${i}@example.com`,
        cardNumber: '4111111111111111',
        expirationMonth: '12',
        expirationYear: String(new Date().getFullYear() + 2),
        cardCode: '123',
        paymentProvider: 'ProviderDirect',
        billingAddress: { firstName: 'Ada', lastName: 'Buyer', address1: '1 Main St', city: 'Springfield', zipCode: '62701', country: 'US' },
      }),
      201,
    );
    customers.push(customerNumber);
    cards.set(customerNumber, saved.body.paymentMethod.paymentProfileId);
  }
  const subscribedAt = Date.now();
  await op('webhook-subscription', { tenant: n }, (key) => send(base, token, 'POST', '/api/webhooks', { url: `${receiverUrl}/t${n}`, events: ['*'] }, key));
  return { n, organizationId: org.orgId, token, customers, sku, cards, subscribedAt };
}

export async function writesLoop(base: string, t: Tenant): Promise<void> {
  for (let i = 0; !stopping; i++) {
    const id = `${t.n}-${i}-${randomBytes(2).toString('hex')}`.toUpperCase();
    if (i % 2 === 0) {
      const sku = `CHP-${id}`;
      const name = `Chaos item ${id}`;
      await op('product write', { tenant: t.n, sku, name }, () =>
        send(base, t.token, 'PUT', '/api/products', { sku, name, prices: [{ tier: 'Retail', price: 5 + (i % 20), atQuantity: 1 }] }),
      );
    } else {
      const customerNumber = `CHC-${id}`;
      const companyName = `Chaos company ${id}`;
      await op('customer write', { tenant: t.n, customerNumber, companyName }, () =>
        send(base, t.token, 'PUT', '/api/customers', { customerNumber, companyName, companyEmail: `c-${id.toLowerCase()}@example.com`, pricing: 'Retail' }),
      );
    }
    await sleep(PAUSE);
  }
}

export async function checkoutLoop(base: string, t: Tenant): Promise<void> {
  for (let i = 0; !stopping; i++) {
    if (i > 0) await sleep(PAUSE);
    const customerNumber = t.customers[i % t.customers.length];
    // Cart and shipping have no Idempotency-Key: a retried cart creation may leave a spare cart, which is harmless.
    const cart = await op('cart', { tenant: t.n }, () =>
      send(base, t.token, 'POST', `/api/carts/${customerNumber}`, { customerNumber, sku: t.sku, quantity: 1 + (i % 3), orderType: 'Standard' }),
    );
    if (!cart) continue;
    const cartId = cart.body.shoppingCartId as string;
    const ship = await op('cart shipping', { tenant: t.n, cartId }, () =>
      send(base, t.token, 'PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { customerNumber, shippingAddress: address }),
    );
    if (!ship) continue;
    await op('card checkout', { tenant: t.n, cartId }, (key) =>
      send(base, t.token, 'POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { customerNumber, channel: 'Web', payment: card }, key),
    );
  }
}

export async function invoiceLoop(base: string, t: Tenant): Promise<void> {
  for (let i = 0; !stopping; i++) {
    if (i > 0) await sleep(PAUSE);
    const customerNumber = t.customers[i % t.customers.length];
    const invoiceNumber = `CHI-${t.n}-${i}-${randomBytes(2).toString('hex')}`.toUpperCase();
    const inv = await op('invoice', { tenant: t.n, invoiceNumber }, (key) =>
      send(
        base,
        t.token,
        'POST',
        '/api/invoices',
        {
          orderId: randomUUID(),
          orderNumber: `SO-${invoiceNumber}`,
          invoiceNumber,
          customer: {
            customerNumber,
            companyName: `Chaos buyer ${customerNumber}`,
            companyEmail: `${customerNumber.toLowerCase()}@example.com`,
            companyPhone: '555-0100',
            billingAddress: { address1: '1 Main St', city: 'Springfield', stateProvince: 'IL', zipPostalCode: '62701', country: 'US' },
          },
          primarySalesRep: { repNumber: 'R1', firstName: 'Sam', lastName: 'Seller', email: 'sam@example.com', phoneNumber: '555-0101' },
          invoiceDate: new Date().toISOString(),
          dueDate: new Date(Date.now() + 30 * 86_400_000).toISOString(),
          terms: 'Net30',
          currencyCode: 'USD',
          items: [{ sku: t.sku, productName: 'Chaos product', quantity: 2, price: 30 }],
        },
        key,
      ),
    );
    if (!inv) continue;
    const invoiceId = inv.body.id as string;
    const issued = await op('invoice issue', { tenant: t.n, invoiceId }, () => send(base, t.token, 'POST', `/api/invoices/${invoiceId}/issue`));
    if (!issued) continue;
    const paid = await op('invoice card payment', { tenant: t.n, invoiceId }, (key) =>
      send(
        base,
        t.token,
        'POST',
        `/api/invoices/${invoiceId}/payments`,
        { amount: 60, currencyCode: 'USD', method: 'Card', paymentDate: new Date().toISOString(), paymentProfileId: t.cards.get(customerNumber) },
        key,
      ),
    );
    if (paid && i % 2 === 0)
      await op('invoice refund', { tenant: t.n, invoiceId, amount: 15 }, (key) =>
        send(base, t.token, 'POST', `/api/invoices/${invoiceId}/refunds`, { amount: 15, reason: 'chaos partial refund' }, key),
      );
  }
}

export async function importJob(base: string, t: Tenant): Promise<void> {
  const prefix = `CHM-${t.n}-${randomBytes(2).toString('hex')}`.toUpperCase();
  const records = Array.from({ length: 300 }, (_, i) => ({
    sku: `${prefix}-${i}`,
    name: `Imported ${i}`,
    prices: [{ tier: 'Retail', price: 3 + (i % 7), atQuantity: 1 }],
  }));
  await op('import job', { tenant: t.n, prefix, count: records.length }, (key) =>
    send(base, t.token, 'POST', '/api/imports', { kind: 'products', records }, key),
  );
}

// ---- webhook receiver and mailbox ---------------------------------------------------------------

export interface Delivery {
  webhookId: string;
  type: string;
  data: string;
}
export function startReceiver(): Promise<{ url: string; deliveries: Delivery[]; close: () => void }> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let json: any = {};
      try {
        json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        /* not JSON */
      }
      deliveries.push({ webhookId: String(req.headers['webhook-id'] ?? ''), type: String(json?.type ?? ''), data: JSON.stringify(json?.data ?? null) });
      res.writeHead(200);
      res.end('ok');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, deliveries, close: () => server.close() }),
    ),
  );
}

/** Every message the catcher ever held, by (catcher generation, id): a restarted catcher starts empty and numbers from 1 again. */
export const mails = new Map<string, string>();
let mailGeneration = 0;
/** A restarted catcher numbers from 1 again: its messages count as a new generation. */
export function nextMailGeneration(): void {
  mailGeneration++;
}
export async function pollMailbox(url: string): Promise<void> {
  try {
    const list = (await (await fetch(`${url}/messages`, { signal: AbortSignal.timeout(5000) })).json()) as { id: number; messageId: string }[];
    for (const m of list) mails.set(`${mailGeneration}:${m.id}`, m.messageId);
  } catch {
    /* down: the next poll catches up */
  }
}
