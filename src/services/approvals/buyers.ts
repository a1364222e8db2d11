/**
 * Buyer roles and spending limits of a customer's users (`/api/customers/{customerNumber}/buyers`).
 * Managed by the organization's admins and by the customer's own Approvers. A user gets a buyer
 * role only at the customer their login is associated with.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '../../adapters/temporal.js';
import { Decimal } from 'decimal.js';
import type { BuyerGrant, BuyerRole } from '../../domain/approvals/rules.js';
import { buyerChangeRefusal, monthStart } from '../../domain/approvals/rules.js';
import { moneyNumber } from '../../domain/money.js';
import type { BuyerSpending } from '../../domain/orders/admission.js';
import { CustomerBuyer, PriceTier, User, UserCustomer, type Customer } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { UUID_RE } from '../../domain/ids.js';
import type { Out } from '../../domain/contract.js';
import type { customerBuyer } from '../../domain/resources.js';
import { findVisibleCustomer } from '../customers/visibility.js';
import { approversChanged } from './revise.js';
import { boundRows } from '../../db/orm-sql.js';

export interface BuyerInput {
  role: BuyerRole;
  orderLimit?: number | null;
  monthlyLimit?: number | null;
}

/** Whether the principal is an Approver of this customer (a Customer user with that role there). */
export async function isApproverOf(em: EntityManager, orgId: string, auth: Principal, customerId: string): Promise<boolean> {
  if (auth.role !== 'Customer' || !auth.userId) return false;
  return (await em.count(CustomerBuyer, { organizationId: orgId, customerId, userId: auth.userId, role: 'Approver' })) > 0;
}

/**
 * The customer (404 unless visible) when the principal may manage its buyers: Admin, or one of its
 * Approvers (403 otherwise). With `userId`, that user must be associated with the customer (404
 * first: a user the caller may not see is never confirmed by a 403).
 */
async function managedCustomer(em: EntityManager, orgId: string, auth: Principal, customerNumber: string, userId?: string): Promise<Customer> {
  const customer = await findVisibleCustomer(em, orgId, auth, customerNumber);
  if (userId !== undefined) {
    if (!UUID_RE.test(userId) || !(await em.findOne(UserCustomer, { organization: orgId, user: userId, customer: customer.id }))) throw AppError.notFound('User associated with this customer');
  }
  if (auth.isSuper || auth.role === 'Admin') return customer;
  if (await isApproverOf(em, orgId, auth, customer.id)) return customer;
  throw AppError.forbidden("Only an admin or one of the customer's Approvers manages its buyers.");
}

export async function customerCurrency(em: EntityManager, orgId: string, customer: Customer): Promise<string> {
  const tier = await em.findOne(PriceTier, { organization: orgId, name: customer.pricing });
  return tier?.currencyCode ?? 'USD';
}

/**
 * What the user spent at the customer this calendar month (UTC): the totals of their orders (not
 * Cancelled, not waiting for approval), plus the checkouts and quote accepts admitted this month
 * whose order does not exist yet (`spending_admission`, until their hold lapses), so admissions
 * running at the same time count each other. Read through `em`'s connection: inside the
 * admission's transaction, after the buyer row's lock (src/services/orders/admission.ts).
 */
export async function spentThisMonth(em: EntityManager, orgId: string, customerId: string, userId: string, now = new Date(), exceptSubject: string | null = null): Promise<Decimal> {
  const rows = await boundRows<{ spent: string | null }>(
    em,
    `select (coalesce((select sum(total) from sales_order
                        where organization_id = $1 and customer_id = $2 and created_by_user_id = $3::text and order_date >= $4
                          and order_status not in ('Cancelled', 'PendingApproval')), 0)
           + coalesce((select sum(a.amount) from spending_admission a
                        where a.organization_id = $1 and a.customer_id = $2 and a.user_id = $5::uuid and a.admitted_at >= $4 and a.expires_at > now()
                          and ($6::text is null or a.subject_key <> $6::text)
                          and not exists (select 1 from sales_order o where o.organization_id = a.organization_id
                                             and ((a.cart_id is not null and o.origination_cart_id = a.cart_id) or (a.quote_id is not null and o.quote_id = a.quote_id)))), 0))::text as spent`,
    [orgId, customerId, userId, monthStart(now), userId, exceptSubject],
  );
  return new Decimal(rows[0]?.spent ?? 0);
}

/** A user's limits as a buyer at the customer and what they spent there this month, or null when the user has no buyer role there. */
export async function limitedBuyer(em: EntityManager, orgId: string, customerId: string, userId: string): Promise<BuyerSpending | null> {
  const buyer = await em.findOne(CustomerBuyer, { organizationId: orgId, customerId, userId });
  if (!buyer) return null;
  return { limits: { orderLimit: buyer.orderLimit ?? null, monthlyLimit: buyer.monthlyLimit ?? null }, spentThisMonth: await spentThisMonth(em, orgId, customerId, userId) };
}

/**
 * limitedBuyer under the buyer row's lock (inside the caller's transaction, held until it ends):
 * admissions of one buyer run one at a time, and each reads what the ones before it admitted.
 * `exceptSubject`: the admission being made again (a second complete-checkout of the same cart)
 * does not count against itself.
 */
export async function lockedBuyer(tx: EntityManager, orgId: string, customerId: string, userId: string, exceptSubject: string | null = null): Promise<BuyerSpending | null> {
  const [row] = await boundRows<{ orderLimit: string | null; monthlyLimit: string | null }>(
    tx,
    `select order_limit::text as "orderLimit", monthly_limit::text as "monthlyLimit" from customer_buyer
      where organization_id = $1 and customer_id = $2 and user_id = $3 for no key update`,
    [orgId, customerId, userId],
  );
  if (!row) return null;
  return { limits: { orderLimit: row.orderLimit, monthlyLimit: row.monthlyLimit }, spentThisMonth: await spentThisMonth(tx, orgId, customerId, userId, new Date(), exceptSubject) };
}

async function buyerView(em: EntityManager, orgId: string, b: CustomerBuyer, currency: string): Promise<Out<typeof customerBuyer>> {
  const user = await em.findOne(User, { id: b.userId });
  const num = (v: string | null | undefined) => (v === null || v === undefined ? null : moneyNumber(v, currency));
  return {
    userId: b.userId,
    email: user?.email ?? null,
    firstName: user?.firstName ?? null,
    lastName: user?.lastName ?? null,
    role: b.role,
    currencyCode: currency,
    orderLimit: num(b.orderLimit),
    monthlyLimit: num(b.monthlyLimit),
    spentThisMonth: moneyNumber(await spentThisMonth(em, orgId, b.customerId, b.userId), currency),
    updatedAt: b.updatedAt.toISOString(),
  };
}

export const buyerListSpec: ListSpec = { filters: { role: { prop: 'role', type: 'string' } }, sorts: { CreatedAt: 'createdAt', Role: 'role' }, defaultSort: 'CreatedAt' };

export async function listBuyers(em: EntityManager, orgId: string, auth: Principal, customerNumber: string, query: Record<string, unknown>) {
  const customer = await managedCustomer(em, orgId, auth, customerNumber);
  const q = parseList(query, buyerListSpec);
  const [rows, total] = await em.findAndCount(CustomerBuyer, { $and: [{ organizationId: orgId, customerId: customer.id }, q.where] }, { orderBy: [q.orderBy, { userId: 'asc' }], limit: q.pageSize, offset: q.offset });
  const currency = await customerCurrency(em, orgId, customer);
  return genericEnvelope(await Promise.all(rows.map((b) => buyerView(em, orgId, b, currency))), total, q);
}

const grantOf = (b: Pick<CustomerBuyer, 'role' | 'orderLimit' | 'monthlyLimit'>): BuyerGrant => ({ role: b.role, orderLimit: b.orderLimit ?? null, monthlyLimit: b.monthlyLimit ?? null });

/**
 * The target's buyer row, once the principal may change it to `next` (null: remove it): nobody
 * changes their own row, only admins change an Approver's, and an Approver grants at most its own
 * role and limits (src/domain/approvals/rules.ts `buyerChangeRefusal`; 403 naming the fields).
 */
async function changeableBuyer(em: EntityManager, orgId: string, auth: Principal, customer: Customer, userId: string, next: BuyerGrant | null): Promise<CustomerBuyer | null> {
  const [current, own] = await Promise.all([
    em.findOne(CustomerBuyer, { organizationId: orgId, customerId: customer.id, userId }),
    auth.role === 'Customer' && auth.userId ? em.findOne(CustomerBuyer, { organizationId: orgId, customerId: customer.id, userId: auth.userId }) : null,
  ]);
  if (next === null && !current) throw AppError.notFound('Buyer');
  const refusal = buyerChangeRefusal({ isAdmin: auth.isSuper || auth.role === 'Admin', userId: auth.userId, own: own ? grantOf(own) : null }, { userId, current: current ? grantOf(current) : null }, next);
  if (refusal) throw new AppError('forbidden', refusal.message, refusal.errors);
  return current;
}

/** Sets a user's buyer role and limits at the customer (the user must be associated with this customer). */
export async function putBuyer(em: EntityManager, temporal: Client, orgId: string, auth: Principal, customerNumber: string, userId: string, input: BuyerInput) {
  const customer = await managedCustomer(em, orgId, auth, customerNumber, userId);
  const values = { role: input.role, orderLimit: input.orderLimit === undefined || input.orderLimit === null ? null : String(input.orderLimit), monthlyLimit: input.monthlyLimit === undefined || input.monthlyLimit === null ? null : String(input.monthlyLimit) };
  let b = await changeableBuyer(em, orgId, auth, customer, userId, values);
  const wasApprover = b?.role === 'Approver';
  if (b) em.assign(b, { ...values, updatedAt: new Date() });
  else b = em.create(CustomerBuyer, { organizationId: orgId, customerId: customer.id, userId, ...values });
  await em.flush();
  // The chain of open requests is built from the Approvers and their limits.
  if (wasApprover || values.role === 'Approver') await approversChanged(em, temporal, orgId);
  return buyerView(em, orgId, b, await customerCurrency(em, orgId, customer));
}

export async function deleteBuyer(em: EntityManager, temporal: Client, orgId: string, auth: Principal, customerNumber: string, userId: string): Promise<void> {
  const customer = await managedCustomer(em, orgId, auth, customerNumber, userId);
  const current = await changeableBuyer(em, orgId, auth, customer, userId, null);
  const n = await em.nativeDelete(CustomerBuyer, { organizationId: orgId, customerId: customer.id, userId });
  if (!n) throw AppError.notFound('Buyer');
  if (current?.role === 'Approver') await approversChanged(em, temporal, orgId);
}
