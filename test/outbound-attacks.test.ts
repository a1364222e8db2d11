/**
 * Issue 38 finding 9: an integration endpoint or webhook at a link-local or cloud metadata address,
 * in any spelling, is refused when it is saved, on the test stack's API, where
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS=true (the rule holds whatever the flag says).
 */
import { call, createOrg, expectProblem, uniq, type OrgFixture } from './support/helpers';

jest.setTimeout(60_000);
let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});

const SPELLINGS = [
  'https://192.0.0.192/',
  'https://169.254.169.254/',
  'https://2852039166/',
  'https://0xA9FEA9FE/',
  'https://0251.0376.0251.0376/',
  'https://[::ffff:169.254.169.254]/',
  'https://[::ffff:0:a9fe:a9fe]/',
  'https://[64:ff9b::a9fe:a9fe]/',
  'https://[2002:a9fe:a9fe::1]/',
  'https://[fd00:ec2::254]/',
  'https://[fe80::1]/',
  'https://169.254.169.254.nip.io/',
  'https://169-254-169-254.sslip.io/',
  'https://a9fea9fe.nip.io/',
  'https://192.0.0.192.nip.io/',
  'https://metadata.google.internal/',
];

describe('outbound targets at metadata addresses', () => {
  it('an integration endpoint at a metadata address in any spelling is refused at save', async () => {
    const saved: string[] = [];
    for (const endpoint of SPELLINGS) {
      for (const body of [
        { integrationType: 1, provider: 'ProviderDirect', configuration: { Endpoint: endpoint }, secrets: { ApiKey: 'sk_test_key' } },
        { integrationType: 7, provider: 'Http', configuration: { Endpoint: endpoint } },
      ]) {
        const res = await call('POST', `/api/organizations/${org.organizationId}/integrations`, { token: org.adminToken, body: { displayName: uniq('I '), isEnabled: false, ...body } });
        if (res.status !== 400) {
          saved.push(`${body.provider} ${endpoint}: ${res.status}`);
          continue;
        }
        expectProblem(res, 400);
        expect(Object.keys(res.body.errors)).toEqual(['configuration.Endpoint']);
      }
    }
    expect(saved).toEqual([]);
  });

  it('an integration moved to a metadata address in any spelling is refused and keeps its endpoint', async () => {
    const made = await call('POST', `/api/organizations/${org.organizationId}/integrations`, {
      token: org.adminToken,
      body: { displayName: uniq('I '), isEnabled: false, integrationType: 7, provider: 'Http', configuration: { Endpoint: 'https://crm.example.com/' } },
    });
    expect(made.status).toBe(201);
    const id = made.body.integrationId as string;
    for (const endpoint of SPELLINGS) {
      const res = await call('PUT', `/api/organizations/${org.organizationId}/integrations/${id}`, { token: org.adminToken, body: { configuration: { Endpoint: endpoint } } });
      expect([endpoint, res.status]).toEqual([endpoint, 400]);
    }
    const read = await call('GET', `/api/organizations/${org.organizationId}/integrations/${id}`, { token: org.adminToken });
    expect(read.body.configuration.Endpoint).toBe('https://crm.example.com/');
  });

  it('a webhook at a metadata address in any spelling is refused at save, naming url', async () => {
    const saved: string[] = [];
    for (const url of SPELLINGS) {
      const res = await call('POST', '/api/webhooks', { token: org.adminToken, body: { url: `${url}hook`, events: ['*'] } });
      if (res.status !== 400) saved.push(`${url}: ${res.status}`);
      else expect(Object.keys(res.body.errors)).toEqual(['url']);
    }
    expect(saved).toEqual([]);
  });
});
