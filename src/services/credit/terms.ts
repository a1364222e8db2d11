/**
 * Payment terms of an organization (`/api/organizations/payment-terms`, Admin): PascalCase views
 * like the other organization endpoints, the generic paged envelope. A term in use by a customer
 * cannot be deleted (409).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { UUID_RE } from '../../domain/schemas.js';
import { termErrors, termLabel, type TermType } from '../../domain/credit/terms.js';
import { Customer, PaymentTerm } from '../../entities/index.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';

export interface PaymentTermInput {
  Name: string;
  Type: string;
  Days?: number | null;
}

export interface PaymentTermView {
  PaymentTermId: string;
  Name: string;
  Type: TermType;
  Days: number;
  Description: string;
}

export const paymentTermView = (t: PaymentTerm): PaymentTermView => ({
  PaymentTermId: t.id,
  Name: t.name,
  Type: t.type,
  Days: t.days,
  Description: termLabel({ type: t.type, days: t.days }),
});

/** Paging, sorting and filters of the payment-term list (the route documents them from this). */
export const paymentTermListSpec: ListSpec = {
  filters: { Name: { prop: 'name', type: 'string' }, Type: { prop: 'type', type: 'string' } },
  sorts: { Name: 'name', Days: 'days' },
  defaultSort: 'Name',
  names: { page: 'page', size: 'size', sortOn: 'sort', sortDirection: 'direction' },
};

export async function listPaymentTerms(em: EntityManager, orgId: string, query: Record<string, unknown>) {
  const q = parseList(query, paymentTermListSpec);
  const [rows, total] = await em.findAndCount(PaymentTerm, { $and: [{ organizationId: orgId }, q.where] }, { orderBy: [q.orderBy, { id: 'asc' }], limit: q.pageSize, offset: q.offset });
  return genericEnvelope(rows.map(paymentTermView), total, q);
}

export async function findPaymentTerm(em: EntityManager, orgId: string, id: string): Promise<PaymentTerm> {
  const t = UUID_RE.test(id) ? await em.findOne(PaymentTerm, { organizationId: orgId, id }) : null;
  if (!t) throw AppError.notFound('Payment term');
  return t;
}

function check(input: PaymentTermInput): { type: TermType; days: number } {
  const errors = termErrors({ type: input.Type, days: input.Days ?? 0 });
  if (Object.keys(errors).length) throw AppError.validation(errors, 'The payment term is not valid.');
  return { type: input.Type as TermType, days: input.Days ?? 0 };
}

const duplicate = (name: string) => AppError.conflict(`A payment term named "${name}" already exists in this organization.`);

export async function createPaymentTerm(em: EntityManager, orgId: string, input: PaymentTermInput): Promise<PaymentTermView> {
  const rule = check(input);
  const t = em.create(PaymentTerm, { organizationId: orgId, name: input.Name, ...rule });
  try {
    await em.flush();
  } catch (e) {
    if (isUniqueViolation(e, 'payment_term_org_name_unique')) throw duplicate(input.Name);
    throw e;
  }
  return paymentTermView(t);
}

/** Changes a term; invoices already issued keep their due dates (only new invoices use the new rule). */
export async function updatePaymentTerm(em: EntityManager, orgId: string, id: string, input: PaymentTermInput): Promise<PaymentTermView> {
  const t = await findPaymentTerm(em, orgId, id);
  Object.assign(t, { name: input.Name, ...check(input) });
  try {
    await em.flush();
  } catch (e) {
    if (isUniqueViolation(e, 'payment_term_org_name_unique')) throw duplicate(input.Name);
    throw e;
  }
  return paymentTermView(t);
}

export async function deletePaymentTerm(em: EntityManager, orgId: string, id: string): Promise<void> {
  const t = await findPaymentTerm(em, orgId, id);
  const users = await em.count(Customer, { organization: orgId, paymentTermsId: id });
  if (users) throw AppError.conflict(`The payment term is the default of ${users} customer(s); give them other terms first.`);
  await em.remove(t).flush();
}
