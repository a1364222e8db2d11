/**
 * Fixtures for the security-matrix test: for a path parameter name, create a resource of
 * that kind in the given organization and return the value to put in the path.
 */
import { call, uniq, type OrgFixture } from './helpers';

/** Creates the price tier `name` in the organization unless it already exists. */
export async function ensurePriceTier(org: OrgFixture, name = 'Retail', currencyCode = 'USD'): Promise<string> {
  const res = await call('POST', '/api/organizations/price-tiers', { base: org.base, token: org.adminToken, body: { Name: name, CurrencyCode: currencyCode } });
  if (res.status !== 200 && res.status !== 409) throw new Error(`create price tier failed: ${res.status} ${res.text}`);
  return name;
}

export const matrixFixtures: Record<string, (org: OrgFixture) => Promise<string>> = {
  async customerNumber(org) {
    const pricing = await ensurePriceTier(org);
    const customerNumber = uniq('C');
    const res = await call('PUT', '/api/customers', {
      base: org.base,
      token: org.adminToken,
      body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${customerNumber.toLowerCase()}@example.com`, pricing },
    });
    if (res.status !== 201 && res.status !== 200) throw new Error(`create customer failed: ${res.status} ${res.text}`);
    return customerNumber;
  },
};
