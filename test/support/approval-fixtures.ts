/** A customer with a buyer (per-order limit), two Approvers (limits 1000 and none) and a priced product, built through the API. */
import { associateCustomer, call, createMemberUser, ensureCustomer, SANDBOX_API, signTestToken, stack, uniq, type OrgFixture } from './helpers';

export interface BuyerWorld {
  customerNumber: string;
  sku: string;
  buyer: { token: string; userId: string };
  approver1: { token: string; userId: string };
  approver2: { token: string; userId: string };
}

/** A member user associated with the customer and a Customer token for them, signed with the environment's key. */
async function member(org: OrgFixture, customerNumber: string) {
  const user = await createMemberUser(org);
  await associateCustomer(org, user.userId, customerNumber);
  const secret = org.base === SANDBOX_API ? stack.env.sandbox.JWT_SECRET : stack.env.production.JWT_SECRET;
  const token = signTestToken(
    { OrganizationId: org.organizationId, role: 'Customer', roles: ['Customer'], kind: 'user', cv: 1, UserId: user.userId, CustomerNumber: customerNumber, PriceTier: 'Retail', CurrencyCode: 'USD' },
    { secret },
  );
  return { token, userId: user.userId };
}

export async function setRole(org: OrgFixture, customerNumber: string, userId: string, body: Record<string, unknown>) {
  const r = await call('PUT', `/api/customers/${customerNumber}/buyers/${userId}`, { base: org.base, token: org.adminToken, body });
  if (r.status !== 200) throw new Error(`buyer role: ${r.status} ${r.text}`);
  return r.body;
}

export async function buyerWorld(org: OrgFixture, limits: { orderLimit?: number | null; monthlyLimit?: number | null } = { orderLimit: 150 }): Promise<BuyerWorld> {
  const customerNumber = uniq('BC');
  await ensureCustomer(org, customerNumber);
  const sku = uniq('BSKU-');
  const p = await call('PUT', '/api/products', { base: org.base, token: org.adminToken, body: { sku, name: `Product ${sku}`, prices: [{ tier: 'Retail', price: 100, atQuantity: 1 }] } });
  if (p.status !== 201) throw new Error(`product: ${p.status} ${p.text}`);
  const [buyer, approver1, approver2] = [await member(org, customerNumber), await member(org, customerNumber), await member(org, customerNumber)];
  await setRole(org, customerNumber, buyer.userId, { role: 'Buyer', orderLimit: limits.orderLimit ?? null, monthlyLimit: limits.monthlyLimit ?? null });
  await setRole(org, customerNumber, approver1.userId, { role: 'Approver', orderLimit: 1000 });
  await setRole(org, customerNumber, approver2.userId, { role: 'Approver', orderLimit: null });
  return { customerNumber, sku, buyer, approver1, approver2 };
}

const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
export const card = () => ({
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
});

/** The buyer's open cart with `quantity` units (100 each) and a shipping address. */
export async function buyerCart(org: OrgFixture, w: BuyerWorld, quantity: number): Promise<string> {
  const opts = { base: org.base, token: w.buyer.token };
  const c = await call('POST', `/api/carts/${w.customerNumber}`, { ...opts, body: { customerNumber: w.customerNumber, sku: w.sku, quantity, orderType: 'Standard' } });
  if (c.status !== 201) throw new Error(`cart: ${c.status} ${c.text}`);
  const id = c.body.shoppingCartId as string;
  const s = await call('PUT', `/api/carts/${w.customerNumber}/${id}/shipping`, { ...opts, body: { customerNumber: w.customerNumber, shippingAddress: address } });
  if (s.status !== 200) throw new Error(`shipping: ${s.status} ${s.text}`);
  return id;
}

export const checkout = (org: OrgFixture, w: BuyerWorld, cartId: string) =>
  call('POST', `/api/carts/${w.customerNumber}/${cartId}/complete-checkout`, { base: org.base, token: w.buyer.token, body: { customerNumber: w.customerNumber, channel: 'Web', payment: card() } });
