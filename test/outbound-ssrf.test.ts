/**
 * SSRF through integrations (issue 16 finding 4), attacked over HTTP. The test stack allows
 * private networks (OUTBOUND_ALLOW_PRIVATE_NETWORKS=true); the attacks that need the production
 * setting run against a second API process of the production environment started here with
 * the flag off (same database: integrations are saved through the stack's API and tested through it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { freePort } from '../scripts/lib/procs';
import { call, createOrg, ensureCustomer, expectProblem, stack, uniq, type OrgFixture } from './support/helpers';

jest.setTimeout(90_000);
const st = stack as typeof stack & { distDir?: string };
const UNIFORM = 'The remote server could not be reached.';

let org: OrgFixture;
let strictApi = '';
let strict: ChildProcess | null = null;
let openServer: Server;
let openPort = 0;
let closedPort = 0;
/** Everything a hostile "payment provider" writes back; none of it may reach a caller. */
const MARK = 'REFLECTED-7f3a';

beforeAll(async () => {
  org = await createOrg();
  // An open port on loopback that answers like a provider, with its own text everywhere.
  openServer = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.endsWith('/health')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ status: 'ok', note: MARK }));
      }
      if (req.url?.startsWith('/direct/customer-profiles')) {
        res.writeHead(400, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { code: `${MARK}<a href="http://evil.test">x</a>`, message: MARK, fields: { 'card.number': MARK, [`${MARK}-key`]: MARK } } }));
      }
      res.writeHead(402, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: MARK, message: MARK } }));
    });
  });
  await new Promise<void>((r) => openServer.listen(0, '127.0.0.1', () => r()));
  openPort = (openServer.address() as AddressInfo).port;
  closedPort = await freePort();

  const port = await freePort();
  strictApi = `http://127.0.0.1:${port}`;
  strict = spawn(process.execPath, [path.join(st.distDir!, 'server.js')], {
    env: { ...process.env, ...stack.env.production, PORT: String(port), PUBLIC_BASE_URL: strictApi, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${strictApi}/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the flag-off API did not start');
});

afterAll(async () => {
  if (strict && strict.exitCode === null) strict.kill('SIGTERM');
  await new Promise<void>((r) => openServer.close(() => r()));
});

async function integration(body: Record<string, unknown>) {
  return call('POST', `/api/organizations/${org.organizationId}/integrations`, { token: org.adminToken, body: { displayName: uniq('I '), isEnabled: false, ...body } });
}
const httpIntegration = async (endpoint: string) => {
  const res = await integration({ integrationType: 7, provider: 'Http', configuration: { Endpoint: endpoint } });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.body.integrationId as string;
};
const paymentIntegration = async (endpoint: string) => {
  const res = await integration({ integrationType: 1, provider: 'ProviderDirect', configuration: { Endpoint: endpoint }, secrets: { ApiKey: 'sk_test_key' } });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.body.integrationId as string;
};
/** The connection test, run by the API whose OUTBOUND_ALLOW_PRIVATE_NETWORKS is off. */
const testOnStrictApi = (id: string) => call('POST', `/api/organizations/${org.organizationId}/integrations/${id}/test`, { base: strictApi, token: org.adminToken });

describe('SSRF through integrations (flag off)', () => {
  test('port scan: when the connection test targets an open and a closed loopback port by IP literal, then both answer the same uniform message', async () => {
    const results = [];
    for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '2130706433', '0x7f.1']) {
      for (const port of [openPort, closedPort]) {
        const http = await testOnStrictApi(await httpIntegration(`https://${host}:${port}/`));
        const pay = await testOnStrictApi(await paymentIntegration(`https://${host}:${port}`));
        for (const r of [http, pay]) {
          expect(r.status).toBe(200);
          results.push(r.body.message);
          expect(r.body.success).toBe(false);
        }
      }
    }
    expect(new Set(results)).toEqual(new Set([UNIFORM]));
  });

  test('port scan over plain http: when an http endpoint on loopback is tested, then the answer is the same uniform message for an open and a closed port', async () => {
    const open = await testOnStrictApi(await httpIntegration(`http://127.0.0.1:${openPort}/`));
    const closed = await testOnStrictApi(await httpIntegration(`http://127.0.0.1:${closedPort}/`));
    expect(open.body).toMatchObject({ success: false, message: UNIFORM });
    expect(closed.body).toMatchObject({ success: false, message: UNIFORM });
  });

  test('when a webhook or an integration is saved with a loopback literal or plain http, then it is refused at save', async () => {
    const hook = await call('POST', '/api/webhooks', { base: strictApi, token: org.adminToken, body: { url: `https://2130706433:${openPort}/hook`, events: ['*'] } });
    expectProblem(hook, 400);
    expect(Object.keys(hook.body.errors)).toEqual(['url']);
    const plain = await call('POST', `/api/organizations/${org.organizationId}/integrations`, {
      base: strictApi,
      token: org.adminToken,
      body: { integrationType: 7, provider: 'Http', displayName: 'CRM', isEnabled: false, configuration: { Endpoint: `http://crm.example.com/` } },
    });
    expectProblem(plain, 400);
    expect(plain.body.errors).toEqual({ 'configuration.Endpoint': ['must use https.'] });
  });
});

describe('cloud metadata through a payment provider', () => {
  test.each(['http://169.254.169.254', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/', 'http://0xA9FEA9FE/', 'http://[::ffff:169.254.169.254]/'])(
    'when a Payment integration is saved with Endpoint %s, then it is refused whatever the flag (400 naming the field)',
    async (endpoint) => {
      const res = await integration({ integrationType: 1, provider: 'ProviderDirect', configuration: { Endpoint: endpoint }, secrets: { ApiKey: 'sk_test_key' } });
      expectProblem(res, 400);
      expect(res.body.errors).toEqual({ 'configuration.Endpoint': ['must not point to a link-local or metadata address.'] });
    },
  );

  test('when an existing Payment integration is moved to the metadata address, then the update is refused and nothing changes', async () => {
    const id = await paymentIntegration(`http://127.0.0.1:${openPort}`);
    const res = await call('PUT', `/api/organizations/${org.organizationId}/integrations/${id}`, { token: org.adminToken, body: { configuration: { Endpoint: 'http://169.254.169.254' } } });
    expectProblem(res, 400);
    const detail = await call('GET', `/api/organizations/${org.organizationId}/integrations/${id}`, { token: org.adminToken });
    expect(detail.body.configuration.Endpoint).toBe(`http://127.0.0.1:${openPort}`);
  });
});

describe('provider answer reflection', () => {
  test("when the organization's payment provider answers with its own text, then none of it reaches the caller", async () => {
    const o = await createOrg();
    const pay = await call('POST', `/api/organizations/${o.organizationId}/integrations`, {
      token: o.adminToken,
      body: { integrationType: 1, provider: 'ProviderDirect', displayName: 'Hostile', configuration: { Endpoint: `http://127.0.0.1:${openPort}` }, secrets: { ApiKey: 'sk_test_key' } },
    });
    expect(pay.status).toBe(201);
    const cn = uniq('C');
    await ensureCustomer(o, cn);
    const card = {
      customerNumber: cn,
      emailAddress: 'buyer@example.com',
      cardNumber: '4111111111111111',
      expirationMonth: '12',
      expirationYear: String(new Date().getUTCFullYear() + 2),
      cardCode: '123',
      billingAddress: { firstName: 'Ada', lastName: 'Buyer', address1: '1 Main St', city: 'Springfield', state: 'IL', zipCode: '62701', country: 'US' },
    };
    const res = await call('POST', '/api/payments/payment-methods', { token: o.adminToken, body: card });
    expectProblem(res, 400);
    expect(res.body.errors).toEqual({ 'card.number': ['was refused by the payment provider.'] });
    expect(res.text).not.toContain(MARK);
    expect(res.text).not.toContain('evil.test');

    const test = await call('POST', `/api/organizations/${o.organizationId}/integrations/${pay.body.integrationId}/test`, { token: o.adminToken });
    expect(test.text).not.toContain(MARK);
  });
});
