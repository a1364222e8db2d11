/** Fixtures for the security-matrix test: each creates one resource of its kind and returns its path key. */
import type { OrgFixture } from './helpers';
import { call, uniq } from './helpers';

export const matrixFixtures: Record<string, (org: OrgFixture) => Promise<string>> = {};

matrixFixtures.sku = async (org) => {
  const sku = uniq('SKU-');
  const res = await call('PUT', '/api/products', { base: org.base, token: org.adminToken, body: { sku, name: `Product ${sku}` } });
  if (res.status !== 201) throw new Error(`create product failed: ${res.status} ${res.text}`);
  return sku;
};

matrixFixtures.category = async (org) => {
  const name = uniq('Cat');
  const res = await call('PUT', '/api/categories', { base: org.base, token: org.adminToken, body: { name, parentName: null, active: true } });
  if (res.status !== 201) throw new Error(`create category failed: ${res.status} ${res.text}`);
  return name;
};
