/**
 * Integrations over HTTP against the real stack: templates, create/list/detail/update,
 * one enabled integration per type, rotate-secrets, real connection tests (provider sandbox,
 * an SMTP server with authentication started here, an HTTP endpoint), delete, and the
 * re-encrypt command. Every response and the service logs are scanned for the secrets.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { SMTPServer } from 'smtp-server';
import { call, createOrg, dbQuery, expectProblem, stack, type OrgFixture, type Res } from './support/helpers';

jest.setTimeout(60_000);
const st = stack as typeof stack & { distDir?: string };
const secret = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;
const SECRETS: string[] = [];
const seen: Res[] = [];
const mk = (label: string) => {
  const s = secret(label);
  SECRETS.push(s);
  return s;
};
let org: OrgFixture;
let smtp: SMTPServer;
let smtpPort = 0;
const smtpUser = 'mailer';
const smtpPass = mk('smtp-pass');

beforeAll(async () => {
  org = await createOrg();
  smtp = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, cb) {
      if (auth.username === smtpUser && auth.password === smtpPass) return cb(null, { user: auth.username });
      cb(new Error('Invalid username or password'));
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  smtpPort = (smtp.server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((r) => smtp.close(() => r()));
});

async function api(method: string, p: string, body?: unknown, o: OrgFixture = org): Promise<Res> {
  const res = await call(method, p.replace(':org', o.organizationId), { base: o.base, token: o.adminToken, body });
  seen.push(res);
  return res;
}
const payment = (o: OrgFixture, over: Record<string, unknown> = {}) =>
  api(
    'POST',
    '/api/organizations/:org/integrations',
    {
      integrationType: 1,
      provider: 'ProviderDirect',
      displayName: 'Our card processor',
      configuration: { Endpoint: stack.urls.provider, MerchantId: 'M-1', IsSandbox: true },
      secrets: { ApiKey: mk('api-key'), CallbackSecret: mk('cb') },
      ...over,
    },
    o,
  );

describe('templates', () => {
  test('when templates are listed, then Payment, Smtp and Http templates carry their fields; a filter narrows them', async () => {
    const all = await api('GET', '/api/integration-templates');
    expect(all.status).toBe(200);
    expect(all.body.templates.map((t: any) => `${t.type}:${t.provider}`)).toEqual([
      '1:ProviderDirect',
      '1:ProviderHosted',
      '4:Smtp',
      '2:Http',
      '3:Http',
      '5:Http',
      '6:Http',
      '7:Http',
      '8:Http',
    ]);
    const pay = await api('GET', '/api/integration-templates?integrationType=1');
    expect(pay.body.templates).toHaveLength(2);
    expect(pay.body.templates[0]).toMatchObject({
      type: 1,
      provider: 'ProviderDirect',
      requiresOAuth: false,
      configurationFields: [
        expect.objectContaining({ key: 'Endpoint', required: true }),
        expect.objectContaining({ key: 'MerchantId' }),
        { key: 'IsSandbox', displayName: 'Sandbox mode', description: expect.any(String), type: 3, required: false, defaultValue: 'true' },
      ],
      secretFields: [expect.objectContaining({ key: 'ApiKey', required: true, isSensitive: true }), expect.objectContaining({ key: 'CallbackSecret' })],
    });
    expect(pay.body.templates[0].callbackUrl).toBeUndefined();
    expectProblem(await api('GET', '/api/integration-templates?integrationType=9'), 400);
  });
});

describe('integrations', () => {
  test('when a Payment integration is created, then reads show configuration but never secrets; a second enabled one is 409', async () => {
    const o = await createOrg();
    const res = await payment(o);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      integrationId: expect.any(String),
      organizationId: o.organizationId,
      integrationType: 1,
      provider: 'ProviderDirect',
      displayName: 'Our card processor',
      isEnabled: true,
      createdAt: expect.any(String),
    });
    const id = res.body.integrationId;
    const detail = await api('GET', `/api/organizations/:org/integrations/${id}`, undefined, o);
    expect(detail.body).toMatchObject({
      integrationId: id,
      createdBy: o.adminUserId,
      configuration: { Endpoint: stack.urls.provider, MerchantId: 'M-1', IsSandbox: 'true' },
      lastTestedAt: null,
      availableFields: {
        requiresOAuth: false,
        supportedFeatures: expect.arrayContaining(['Refunds']),
        configurationFields: expect.any(Array),
        secretFields: expect.any(Array),
      },
    });
    expect(detail.body.secrets).toBeUndefined();
    const list = await api('GET', '/api/organizations/:org/integrations', undefined, o);
    expect(list.body.integrations).toEqual([
      {
        integrationId: id,
        integrationType: 1,
        provider: 'ProviderDirect',
        displayName: 'Our card processor',
        isEnabled: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        lastTestedAt: null,
        lastTestResult: null,
      },
    ]);
    expect((await api('GET', '/api/organizations/:org/integrations?integrationType=4', undefined, o)).body.integrations).toEqual([]);
    expect((await api('GET', '/api/organizations/:org/integrations?isEnabled=false', undefined, o)).body.integrations).toEqual([]);
    const second = await payment(o, { provider: 'ProviderHosted' });
    expectProblem(second, 409);
    const disabled = await payment(o, { provider: 'ProviderHosted', isEnabled: false });
    expect(disabled.status).toBe(201);
    expectProblem(await api('PUT', `/api/organizations/:org/integrations/${disabled.body.integrationId}`, { isEnabled: true }, o), 409);
    const avail = await api('GET', '/api/integrations/available', undefined, o);
    expect(avail.body).toMatchObject({ organizationId: o.organizationId, totalAvailable: 9, configuredCount: 2, enabledCount: 1 });
    expect(avail.body.integrationsByType.Payment).toEqual([
      expect.objectContaining({ provider: 'ProviderDirect', isConfigured: true, isEnabled: true, integrationId: id }),
      expect.objectContaining({ provider: 'ProviderHosted', isConfigured: true, isEnabled: false, integrationId: disabled.body.integrationId }),
    ]);
    expect(avail.body.integrationsByType.Email).toEqual([
      expect.objectContaining({ provider: 'Smtp', isConfigured: false, isEnabled: false, integrationId: null }),
    ]);
    expect((await api('DELETE', `/api/organizations/:org/integrations/${id}`, undefined, o)).status).toBe(204);
    expectProblem(await api('GET', `/api/organizations/:org/integrations/${id}`, undefined, o), 404);
    expect((await api('PUT', `/api/organizations/:org/integrations/${disabled.body.integrationId}`, { isEnabled: true }, o)).status).toBe(200);
  });

  test('when the body is wrong, then 400 names every bad field without echoing secret values', async () => {
    const bad = await api('POST', '/api/organizations/:org/integrations', { integrationType: 1, provider: 'Nope', displayName: 'x' });
    expectProblem(bad, 400);
    expect(Object.keys(bad.body.errors)).toEqual(['provider']);
    const leaked = mk('leak');
    const res = await api('POST', '/api/organizations/:org/integrations', {
      integrationType: 1,
      provider: 'ProviderDirect',
      displayName: 'x',
      configuration: { Endpoint: 'not a url', Colour: 'red' },
      secrets: { Token: leaked },
    });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['configuration.Colour', 'configuration.Endpoint', 'secrets.ApiKey', 'secrets.Token']);
    const missing = await api('POST', '/api/organizations/:org/integrations', { displayName: 'x', configuration: 'text' });
    expectProblem(missing, 400);
    expect(Object.keys(missing.body.errors).sort()).toEqual(['configuration', 'integrationType', 'provider']);
  });

  test('when an integration is updated, then configuration merges and testConnectionRequired is true only for secrets or critical keys', async () => {
    const o = await createOrg();
    const id = (await payment(o)).body.integrationId;
    const U = (body: unknown) => api('PUT', `/api/organizations/:org/integrations/${id}`, body, o);
    expect((await U({ displayName: 'Renamed' })).body).toEqual({ testConnectionRequired: false });
    expect((await U({ configuration: { MerchantId: 'M-1' } })).body).toEqual({ testConnectionRequired: false });
    expect((await U({ configuration: { IsSandbox: false } })).body).toEqual({ testConnectionRequired: true });
    expect((await U({ secrets: { ApiKey: mk('api-key') } })).body).toEqual({ testConnectionRequired: true });
    const d = await api('GET', `/api/organizations/:org/integrations/${id}`, undefined, o);
    expect(d.body).toMatchObject({ displayName: 'Renamed', configuration: { Endpoint: stack.urls.provider, MerchantId: 'M-1', IsSandbox: 'false' } });
    expectProblem(await U({ configuration: { Unknown: 1 } }), 400);
    expectProblem(await api('PUT', `/api/organizations/:org/integrations/00000000-0000-4000-8000-000000000000`, { displayName: 'x' }, o), 404);
  });

  test('when connections are tested, then the provider, an SMTP server and an HTTP endpoint are really reached', async () => {
    const o = await createOrg();
    const pay = (await payment(o)).body.integrationId;
    const t = await api('POST', `/api/organizations/:org/integrations/${pay}/test`, undefined, o);
    expect(t.status).toBe(200);
    expect(t.body).toEqual({
      success: true,
      message: 'The provider is reachable and accepted the API key.',
      latencyMs: expect.any(Number),
      testedAt: expect.any(String),
    });
    const listed = (await api('GET', '/api/organizations/:org/integrations', undefined, o)).body.integrations[0];
    expect(listed).toMatchObject({ lastTestedAt: t.body.testedAt, lastTestResult: { success: true, message: t.body.message, latencyMs: t.body.latencyMs } });
    await api('PUT', `/api/organizations/:org/integrations/${pay}`, { configuration: { Endpoint: 'http://127.0.0.1:9' } }, o);
    const down = await api('POST', `/api/organizations/:org/integrations/${pay}/test`, undefined, o);
    expect(down.body).toMatchObject({ success: false, message: 'The remote server could not be reached.' });

    const mail = await api(
      'POST',
      '/api/organizations/:org/integrations',
      {
        integrationType: 4,
        provider: 'Smtp',
        displayName: 'Our mail server',
        configuration: { Host: '127.0.0.1', Port: smtpPort, From: 'Acme <no-reply@acme.example>', Secure: false },
        secrets: { Username: smtpUser, Password: smtpPass },
      },
      o,
    );
    expect(mail.status).toBe(201);
    const mid = mail.body.integrationId;
    expect((await api('POST', `/api/organizations/:org/integrations/${mid}/test`, undefined, o)).body).toMatchObject({
      success: true,
      message: 'Connected and authenticated.',
    });
    const wrong = mk('wrong-pass');
    expect(
      (await api('POST', `/api/organizations/:org/integrations/${mid}/rotate-secrets`, { secrets: { Username: smtpUser, Password: wrong } }, o)).body,
    ).toEqual({ testConnectionRequired: true });
    const refused = await api('POST', `/api/organizations/:org/integrations/${mid}/test`, undefined, o);
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toBe('The server refused the credentials.');
    expectProblem(await api('POST', `/api/organizations/:org/integrations/${mid}/rotate-secrets`, { secrets: { Nope: 'x' } }, o), 400);

    const http = await api(
      'POST',
      '/api/organizations/:org/integrations',
      {
        integrationType: 7,
        provider: 'Http',
        displayName: 'CRM',
        configuration: { Endpoint: `${stack.urls.provider}/health` },
        secrets: { ApiKey: mk('crm') },
      },
      o,
    );
    expect((await api('POST', `/api/organizations/:org/integrations/${http.body.integrationId}/test`, undefined, o)).body).toMatchObject({
      success: true,
      message: 'The endpoint answered HTTP 200.',
    });
  });

  test("when another organization's id is in the path, then 403; another organization's integration is 404", async () => {
    const other = await createOrg();
    const id = (await payment(other)).body.integrationId;
    expectProblem(await api('GET', `/api/organizations/${other.organizationId}/integrations`), 403);
    expectProblem(await api('GET', `/api/organizations/:org/integrations/${id}`), 404);
  });

  test('when secrets:reencrypt runs with a new first key, then stored envelopes move to it and still decrypt', async () => {
    const o = await createOrg();
    const id = (await payment(o)).body.integrationId;
    const hook = await api('POST', '/api/webhooks', { url: 'https://example.com/hook', events: ['*'] }, o);
    const oldKeys = stack.env.production.ENCRYPTION_KEYS;
    const newKey = `k9:${randomBytes(32).toString('base64')}`;
    const run = (keys: string) =>
      promisify(execFile)(process.execPath, [path.join(st.distDir!, 'scripts/ops/secrets-reencrypt.js'), '--organization', o.organizationId], {
        env: { ...process.env, DATABASE_URL: stack.env.production.DATABASE_URL, ENCRYPTION_KEYS: keys },
      });
    const out = await run(`${newKey},${oldKeys}`);
    expect(JSON.parse(out.stdout)).toEqual({ currentKey: 'k9', integrations: 1, webhooks: 1, alreadyCurrent: 0 });
    const [row] = await dbQuery('select secrets_ciphertext from integration where id = $1', [id]);
    expect(row.secrets_ciphertext).toMatch(/^k9:/);
    const [w] = await dbQuery('select secret_ciphertext from webhook_subscription where id = $1', [hook.body.webhookId]);
    expect(w.secret_ciphertext).toMatch(/^k9:/);
    // Back to the key the running API knows; the API then decrypts them again (a real connection test).
    expect(JSON.parse((await run(`${oldKeys},${newKey}`)).stdout)).toMatchObject({ integrations: 1, webhooks: 1 });
    expect((await api('POST', `/api/organizations/:org/integrations/${id}/test`, undefined, o)).body.success).toBe(true);
  });
});

afterAll(() => {
  // No secret in any response of this file, nor in the service logs.
  const leaks: string[] = [];
  for (const r of seen) for (const s of SECRETS) if (r.text.includes(s)) leaks.push(`${r.status} response contains ${s.split('-')[0]}`);
  for (const f of readdirSync(stack.logDir)) {
    const text = readFileSync(path.join(stack.logDir, f), 'utf8');
    for (const s of SECRETS) if (text.includes(s)) leaks.push(`log ${f} contains ${s.split('-')[0]}`);
  }
  expect(leaks).toEqual([]);
});
