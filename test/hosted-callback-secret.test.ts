/**
 * Hosted-payment callbacks of an organization with its own ProviderHosted integration are
 * verified with that integration's CallbackSecret, not the deployment's PROVIDER_CALLBACK_SECRET.
 */
import { randomBytes } from 'node:crypto';
import { withSignature } from '../src/domain/payments/callback-signature';
import { call, createOrg, ensureCustomer, stack, uniq } from './support/helpers';

jest.setTimeout(60_000);

async function postCallback(fields: Record<string, string>) {
  const res = await fetch(`${stack.urls.api}/api/payments/hosted/callback`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location') };
}

test("when an organization has its own ProviderHosted integration, then its callbacks verify with its CallbackSecret and the deployment's secret is refused", async () => {
  const org = await createOrg();
  const A = { base: org.base, token: org.adminToken };
  const own = randomBytes(16).toString('hex');
  const integ = await call('POST', `/api/organizations/${org.organizationId}/integrations`, {
    ...A,
    body: {
      integrationType: 1,
      provider: 'ProviderHosted',
      displayName: 'Own hosted page',
      configuration: { Endpoint: stack.urls.provider, IsSandbox: true },
      secrets: { ApiKey: stack.env.production.PAYMENT_PROVIDER_API_KEY, CallbackSecret: own },
    },
  });
  expect(integ.status).toBe(201);
  const cn = uniq('C');
  await ensureCustomer(org, cn);
  const setup = await call('POST', '/api/payments/hosted/transaction-setup', {
    ...A,
    body: { customerNumber: cn, transactionAmount: 0, applicationReturnUrl: 'https://shop.example.com/payments/return', marketCode: 'Default', isDefault: false },
  });
  expect(setup.status).toBe(201);
  const fields = { TransactionSetupID: setup.body.transactionSetupId as string, Result: 'Declined', Amount: '0.00', CardType: 'Visa', LastFour: '0002', PaymentProfileId: '', TransactionId: '' };
  const deployment = await postCallback(withSignature(fields, stack.env.production.PROVIDER_CALLBACK_SECRET));
  expect(deployment.status).toBe(401);
  const signed = await postCallback(withSignature(fields, own));
  expect(signed.status).toBe(302);
  expect(signed.location).toContain(`transactionSetupId=${setup.body.transactionSetupId}`);
  expect(signed.location).toContain('result=Declined');
});
