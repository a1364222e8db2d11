/**
 * Test driver for the per-customer credit lock (test/credit.test.ts): `n` on-account orders of one
 * customer recorded at once against DATABASE_URL, each through createOrder with reserveCredit in
 * its transaction, exactly as checkout's createOrderFromCart records an on-account order. (SPEC
 * allows one active cart per customer, so HTTP checkouts of one customer cannot overlap; this
 * drives the same code path with overlapping transactions.) Prints `{ placed, refused }` as JSON.
 *
 *   DATABASE_URL=… node dist/scripts/chaos/credit-race.js <organizationId> <customerNumber> <n> <price>
 */
import { openOrm } from '../../src/db/orm.js';
import { Customer } from '../../src/entities/index.js';
import { reserveCredit } from '../../src/services/credit/accounts.js';
import { createOrder, customerSnapshot } from '../../src/services/orders/create.js';

const [orgId, customerNumber, n, price] = process.argv.slice(2);
const orm = await openOrm(process.env.DATABASE_URL ?? '', Number(n) + 2);
try {
  const customer = await orm.em.fork().findOneOrFail(Customer, { organization: orgId, customerNumber }, { populate: ['addresses'] });
  const results = await Promise.allSettled(
    Array.from({ length: Number(n) }, (_, i) =>
      createOrder(
        orm.em.fork(),
        orgId,
        {
          // Not in the generated SO- format: no order-number counter lock, so only the credit check's customer lock orders these transactions.
          orderNumber: `RACE-${customerNumber}-${i}`,
          orderType: 'Standard',
          poNumber: null,
          priceTier: customer.pricing,
          currencyCode: 'USD',
          terms: null,
          channel: 'race',
          externalId: null,
          notes: null,
          originationCartId: null,
          customer: customerSnapshot(customer, null),
          customerId: customer.id,
          primarySalesRep: null,
          takenBySalesRep: null,
          repNumber: null,
          shippingDetails: null,
          tax: 0,
          items: [{ sku: 'RACE', productName: 'Race', quantity: 1, price }],
          createdByUserId: null,
          createdByUserType: null,
        },
        { withinTransaction: (tem, o) => reserveCredit(tem, orgId, o) },
      ),
    ),
  );
  const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason instanceof Error ? r.reason.message : String(r.reason)] : []));
  console.log(JSON.stringify({ placed: results.length - refused.length, refused }));
} finally {
  await orm.close();
}
