/**
 * One tenant's SMTP server that never answers does not hold up another tenant's checkout or
 * e-mail. Organization A routes its mail through its own Smtp integration, pointed at a server
 * that accepts connections and stays silent; A's on-account checkouts each start an invoice
 * e-mail and an order confirmation, which hang there until the SMTP timeouts give up and retry.
 * Organization B, meanwhile, checks out and gets its order in the answer, and its confirmation
 * reaches the deployment's mail catcher.
 *
 * Runs in the sandbox environment with a worker this file starts (test/support/sandbox-workers.ts) with
 * two commerce slots, so the hung deliveries would take them all if they held any: e-mail
 * delivery runs as an ordinary activity on the `mail` task queue (src/workflows/mail-delivery.ts).
 * Before that, deliveries were local activities holding a workflow-task slot each, and B's
 * checkout waited behind A's mail until its answer said the work was still in progress.
 */
import net from 'node:net';
import { call, createOrg, mailsFor, SANDBOX_API, waitForMail, type OrgFixture } from './support/helpers';
import { customerWithProduct, smtpIntegration } from './support/matrix-fixtures';
import { SandboxWorkers } from './support/sandbox-workers';

jest.setTimeout(240_000);
const workers = new SandboxWorkers();
let a: OrgFixture;
let b: OrgFixture;
let silent: net.Server;
let silentPort = 0;
const open = new Set<net.Socket>();

beforeAll(async () => {
  await workers.acquire();
  [a, b] = await Promise.all([createOrg({ base: SANDBOX_API }), createOrg({ base: SANDBOX_API })]);
  // Accepts every connection and never sends the SMTP greeting.
  silent = net.createServer((socket) => {
    open.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  silentPort = (silent.address() as net.AddressInfo).port;
}, 600_000);

afterAll(async () => {
  for (const s of open) s.destroy();
  await new Promise<void>((r) => silent.close(() => r()));
  await workers.leaveOneRunning();
});

const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };

/** An on-account checkout of a new customer of `org`: the answer and the buyer's address. */
async function checkoutOnAccount(org: OrgFixture) {
  const auth = { base: org.base, token: org.adminToken };
  const { customerNumber, sku } = await customerWithProduct(org, { price: 20 });
  expect((await call('PUT', `/api/customers/${customerNumber}/credit`, { ...auth, body: { creditLimit: 1000 } })).status).toBe(200);
  const cart = await call('POST', `/api/carts/${customerNumber}`, { ...auth, body: { customerNumber, sku, quantity: 1, orderType: 'Standard' } });
  expect(cart.status).toBe(201);
  const id = cart.body.shoppingCartId as string;
  expect((await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...auth, body: { customerNumber, shippingAddress: address } })).status).toBe(200);
  const res = await call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, {
    ...auth,
    body: { customerNumber, channel: 'Web', payment: { method: 'OnAccount' } },
  });
  return { res, to: `${customerNumber.toLowerCase()}@example.com` };
}

test("when one organization's SMTP server accepts connections and never answers, then another organization's checkout completes and its confirmation is delivered meanwhile", async () => {
  expect((await smtpIntegration(a, silentPort, 'A <shop@a.example>', 'Silent mail')).status).toBe(201);

  // Only this file's worker serves the sandbox from here: two commerce slots (workflow tasks and activities alike).
  workers.killOthers();
  const worker = workers.start({ WORKER_CONCURRENCY_COMMERCE: '2' }, 'two-slot worker');
  await worker.ready;

  // Three checkouts of A: six e-mails (invoice and confirmation each) bound for the silent server.
  const buyersOfA: string[] = [];
  for (let i = 0; i < 3; i++) {
    const { res, to } = await checkoutOnAccount(a);
    expect(res.status).toBe(200);
    buyersOfA.push(to);
  }
  const deadline = Date.now() + 60_000;
  while (open.size < 2) {
    if (Date.now() > deadline) throw new Error(`A's e-mails never reached its SMTP server (${open.size} connections open)`);
    await new Promise((r) => setTimeout(r, 200));
  }

  const { res, to } = await checkoutOnAccount(b);
  expect(res.status).toBe(200);
  expect(res.body.orderNumber).toEqual(expect.any(String));
  const confirmation = await waitForMail(to, (m) => m.subject.includes(res.body.orderNumber), 30_000);
  expect(confirmation.subject).toContain(res.body.orderNumber);
  // A's mail kept to A's own server: none of it went out through the deployment's catcher instead.
  for (const buyer of buyersOfA) expect(await mailsFor(buyer)).toEqual([]);
});
