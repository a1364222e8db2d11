/**
 * Sets an organization's own limit on authenticated requests per minute (issue 21), or with
 * `default` returns it to the deployment default: `npm run rate-limit -- <organizationId> <perMinute|default>`.
 * The platform operator's tool (DATABASE_URL): a tenant cannot raise its own limit.
 */
import '../../src/compat/node20.js';
import { openOrm } from '../../src/db/orm.js';
import { setOrganizationRateLimit } from '../../src/services/organizations/index.js';

async function main(): Promise<void> {
  const [orgId, value] = process.argv.slice(2);
  const perMinute = value === 'default' ? null : Number(value);
  if (!orgId || !process.env.DATABASE_URL || (perMinute !== null && !(Number.isInteger(perMinute) && perMinute > 0)))
    throw new Error('usage: DATABASE_URL=... npm run rate-limit -- <organizationId> <requests per minute|default>');
  const orm = await openOrm(process.env.DATABASE_URL, 1);
  try {
    await setOrganizationRateLimit(orm.em.fork(), orgId, perMinute);
    console.log(`${orgId}: ${perMinute === null ? 'deployment default' : `${perMinute} requests per minute`} (takes effect at once on every API instance)`);
  } finally {
    await orm.close();
  }
}

main().catch((e) => {
  console.error(String(e instanceof Error ? e.message : e));
  process.exit(1);
});
