/**
 * User-customer associations: an Admin links a member user to one customer per organization;
 * the user's logins and token enrichment then carry that customer's CustomerNumber, PriceTier
 * and CurrencyCode (src/services/auth/claims.ts reads the link).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '../../adapters/temporal.js';
import type { AssociationInput } from '../../domain/customers/schemas.js';
import { Customer, OrganizationMember, UserCustomer } from '../../entities/index.js';
import { AppError, isUniqueViolation, type FieldErrors } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { approversChanged } from '../approvals/revise.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';

export interface AssociationView {
  UserId: string;
  CustomerNumber: string;
  OrganizationId: string;
}

const associationView = (a: UserCustomer): AssociationView => ({ UserId: a.user.id, CustomerNumber: a.customer.customerNumber, OrganizationId: a.organization.id });

export const associationListSpec: ListSpec = {
  filters: {
    UserId: { prop: 'user', type: 'uuid' },
    CustomerNumber: { prop: 'customer.customerNumber', type: 'string' },
  },
  sorts: { UserId: 'user', CustomerNumber: 'customer.customerNumber' },
  defaultSort: 'UserId',
  comparisons: true,
  names: { page: 'page', size: 'size', sortOn: 'sort', sortDirection: 'direction' },
};

/**
 * Links a member user (pending members too) to a customer of the organization, replacing an earlier
 * link. The user's buyer role at the earlier customer ends with it (trigger on user_customer), and
 * that customer's open approval requests revise their chains at once.
 */
export async function associateCustomer(deps: { em: EntityManager; temporal: Client }, orgId: string, input: AssociationInput): Promise<AssociationView> {
  const { em } = deps;
  let previous: string | null = null;
  const [member, customer] = await Promise.all([
    em.findOne(OrganizationMember, { organization: orgId, user: input.UserId }),
    em.findOne(Customer, { organization: orgId, customerNumber: input.CustomerNumber }),
  ]);
  const errors: FieldErrors = {};
  if (!member) errors.UserId = ['The user is not a member of this organization.'];
  if (!customer) errors.CustomerNumber = ['No customer with this number in the organization.'];
  if (!member || !customer) throw AppError.validation(errors);
  const save = async () => {
    const link = await em.findOne(UserCustomer, { organization: orgId, user: input.UserId });
    if (link && link.customer.id !== customer.id) previous = link.customer.id;
    if (link) link.customer = customer;
    else em.create(UserCustomer, { organization: orgId, user: input.UserId, customer });
    await em.flush();
  };
  try {
    await save();
  } catch (e) {
    if (!isUniqueViolation(e, 'user_customer_org_user_unique')) throw e;
    em.clear();
    await save(); // a concurrent request created the link first: update it instead
  }
  if (previous) await approversChanged(em, deps.temporal, orgId);
  return { UserId: input.UserId, CustomerNumber: customer.customerNumber, OrganizationId: orgId };
}

/** One page of the organization's associations (page, size, sort, direction, filters). */
export async function listAssociations(em: EntityManager, orgId: string, query: Record<string, unknown>) {
  const q = parseList(query, associationListSpec);
  const [rows, total] = await em.findAndCount(
    UserCustomer,
    { $and: [{ organization: orgId }, { customer: { organization: orgId } }, q.where] },
    { populate: ['customer'], orderBy: [q.orderBy, { id: 'asc' }], limit: q.pageSize, offset: q.offset },
  );
  return genericEnvelope(rows.map(associationView), total, q);
}

/** The user's association in this organization; 404 when there is none. */
export async function findAssociation(em: EntityManager, orgId: string, userId: string): Promise<AssociationView> {
  const link = await em.findOne(UserCustomer, { organization: orgId, user: userId }, { populate: ['customer'] });
  if (!link) throw AppError.notFound('Customer association');
  return associationView(link);
}

/**
 * A user's associations across organizations, as far as the caller may see them: nothing when
 * the user is not a member of the caller's organization; only this organization's while that
 * membership is pending (issue 16 finding 5); otherwise those of every organization the user
 * has accepted (a pending membership elsewhere shows nothing of that organization). Super sees all.
 */
export async function userAssociations(em: EntityManager, orgId: string, auth: Principal, userId: string): Promise<AssociationView[]> {
  const links = await em.find(UserCustomer, { user: userId }, { populate: ['customer'], orderBy: { organization: 'asc' } });
  if (auth.isSuper) return links.map(associationView);
  const memberships = await em.find(OrganizationMember, { user: userId }, { fields: ['organization', 'status'] });
  const here = memberships.find((m) => m.organization.id === orgId);
  if (!here) return [];
  const visible = new Set(here.status === 'pending' ? [orgId] : memberships.filter((m) => m.status === 'active' || m.organization.id === orgId).map((m) => m.organization.id));
  return links.filter((l) => visible.has(l.organization.id)).map(associationView);
}
