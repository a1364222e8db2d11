/**
 * An organization's enabled integrations route its traffic: a Payment integration sends its
 * checkout charge to its own provider (a second provider-sandbox instance started here, read
 * through its ledger) and not to the deployment's default; an Smtp integration sends its
 * e-mails through its own server (an SMTP server started here), not the stack's catcher.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from '../scripts/lib/procs';
import { call, createOrg, mailsFor, stack, type OrgFixture } from './support/helpers';
import { customerWithProduct, smtpIntegration } from './support/matrix-fixtures';

jest.setTimeout(90_000);
const st = stack as typeof stack & { distDir?: string };
let org: OrgFixture;
let provider: ChildProcess;
let providerUrl: string;
let smtp: SMTPServer;
let smtpPort = 0;
const received: { to: string[]; subject: string; from: string }[] = [];

beforeAll(async () => {
  org = await createOrg();
  const port = await freePort();
  providerUrl = `http://127.0.0.1:${port}`;
  provider = spawn(process.execPath, [path.join(st.distDir!, 'scripts/provider-sandbox/main.js')], {
    env: { ...process.env, PORT: String(port), PROVIDER_CALLBACK_SECRET: randomBytes(16).toString('hex'), PROVIDER_PUBLIC_URL: providerUrl },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(`${providerUrl}/health`)).ok) break;
    } catch {
      if (Date.now() > deadline) throw new Error('second provider sandbox did not start');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, cb) {
      void simpleParser(stream).then((m) => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), subject: m.subject ?? '', from: m.from?.text ?? '' });
        cb();
      }, cb);
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  smtpPort = (smtp.server.address() as { port: number }).port;
});
afterAll(async () => {
  provider?.kill('SIGTERM');
  await new Promise<void>((r) => smtp.close(() => r()));
});

const ledger = async (base: string, idempotencyKey: string) =>
  ((await (await fetch(`${base}/ledger?idempotencyKey=${idempotencyKey}`)).json()) as { entries: any[] }).entries;

test('when an organization has Payment and Smtp integrations, then its checkout charges its own provider and its confirmation goes through its own SMTP server', async () => {
  const A = { base: org.base, token: org.adminToken };
  const pay = await call('POST', `/api/organizations/${org.organizationId}/integrations`, {
    ...A,
    body: {
      integrationType: 1,
      provider: 'ProviderDirect',
      displayName: 'Own processor',
      configuration: { Endpoint: providerUrl, IsSandbox: true },
      secrets: { ApiKey: `sk_own_${randomBytes(8).toString('hex')}` },
    },
  });
  expect(pay.status).toBe(201);
  const mail = await smtpIntegration(org, smtpPort, 'Own Shop <shop@own.example>');
  expect(mail.status).toBe(201);

  const { customerNumber, sku } = await customerWithProduct(org, { price: 12.5 });
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...A, body: { customerNumber, sku, quantity: 2, orderType: 'Standard' } });
  const id = c.body.shoppingCartId as string;
  await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, {
    ...A,
    body: { customerNumber, shippingAddress: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' } },
  });
  const res = await call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, {
    ...A,
    body: {
      customerNumber,
      channel: 'Web',
      payment: {
        billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
        creditCard: {
          cardNumber: '4111111111111111',
          cardholderName: 'Ada Buyer',
          expiryMonth: '12',
          expiryYear: String(new Date().getFullYear() + 2),
          cvv: '123',
        },
      },
    },
  });
  expect(res.status).toBe(200);
  const own = (await ledger(providerUrl, `checkout-${id}`)).filter((e) => e.kind === 'charge');
  expect(own).toEqual([expect.objectContaining({ chargeId: res.body.confirmationId, amount: '25.00', currency: 'USD', reference: res.body.orderNumber })]);
  expect(await ledger(stack.urls.provider, `checkout-${id}`)).toEqual([]);

  const to = `${customerNumber.toLowerCase()}@example.com`;
  const deadline = Date.now() + 30_000;
  // The checkout also issues an invoice whose e-mail goes to the same buyer, in either order: wait
  // for the order confirmation itself, and every mail to the buyer must leave through the own server.
  const isConfirmation = (x: { to: string[]; subject: string }) => x.to.includes(to) && x.subject.includes(res.body.orderNumber);
  while (!received.some(isConfirmation) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 300));
  const m = received.find(isConfirmation);
  expect(m).toBeDefined();
  for (const x of received.filter((y) => y.to.includes(to))) expect(x.from).toBe('"Own Shop" <shop@own.example>');
  expect(await mailsFor(to)).toEqual([]);
});
