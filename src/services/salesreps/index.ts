/**
 * Sales rep use cases: a global rep record per person (linked to the User it logs in as) and its
 * assignments to organizations (rep number, active flag, roles). While the rep's membership in an
 * organization waits for acceptance, that organization sees the rep only as it entered them
 * (DESIGN "Security decisions"; issue 16 finding 5).
 */
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { initialMembershipStatus } from '../../domain/organizations/membership.js';
import { normalizeRoles, planRemoval, repEmailIds } from '../../domain/salesreps/rules.js';
import { Organization, OrganizationMember, OrganizationSalesRep, SalesRep, User } from '../../entities/index.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { parseList, type ListSpec } from '../../http/paging.js';
import { queueEmail } from '../email/queue.js';
import { invitedProfile, sendAcceptLink, visibleProfile } from '../memberships/index.js';
import { orgOf } from '../organizations/index.js';

type Mailer = { temporal: Client; config: Config };

export interface RepInput {
  firstName: string;
  lastName: string;
  email: string;
  phoneNumber?: string;
  repNumber: string;
  roles?: (string | undefined)[];
}

const dupNumber = (n: string) => AppError.conflict(`Rep number "${n}" is already used in this organization.`);
const dupRep = () => AppError.conflict('A sales rep with this e-mail is already assigned to this organization.');

function repEmailData(org: Organization, rep: SalesRep, a: OrganizationSalesRep) {
  return { firstName: rep.firstName, organizationName: org.name, repNumber: a.repNumber, userId: rep.user.id, needsPasswordLink: !rep.user.passwordHash };
}

/** Memberships in the organization of these users, by user id (to tell pending reps from accepted ones). */
async function membershipsOf(em: EntityManager, orgId: string, userIds: string[]): Promise<Map<string, OrganizationMember>> {
  if (!userIds.length) return new Map();
  const members = await em.find(OrganizationMember, { organization: orgId, user: { $in: userIds } });
  return new Map(members.map((m) => [m.user.id, m]));
}

/**
 * Creates (or reuses, by e-mail) the rep, its user and membership, and assigns it to the
 * organization; e-mails a welcome (new rep) or an invitation, and an acceptance link when the
 * account existed. The answer shows the rep as submitted while the membership is pending.
 */
export async function createAssignment(em: EntityManager, deps: Mailer, orgId: string, input: RepInput) {
  const org = await orgOf(em, orgId);
  const emailLc = input.email.toLowerCase();
  let result: { rep: SalesRep; assignment: OrganizationSalesRep; isNewRep: boolean; joinsPending: boolean; pendingHere: boolean };
  try {
    result = await em.transactional(async (tx) => {
      let rep = await tx.findOne(SalesRep, { email: emailLc }, { populate: ['user'] });
      const isNewRep = !rep;
      if (rep && (await tx.count(OrganizationSalesRep, { organization: org.id, salesRep: rep.id }))) throw dupRep();
      if (await tx.count(OrganizationSalesRep, { organization: org.id, repNumber: input.repNumber })) throw dupNumber(input.repNumber);
      let userExisted = !!rep;
      if (!rep) {
        const found = await tx.findOne(User, { email: emailLc });
        userExisted = !!found;
        const user = found ?? tx.create(User, { email: emailLc, firstName: input.firstName, lastName: input.lastName, phoneNumber: input.phoneNumber ?? null, passwordHash: null });
        rep = tx.create(SalesRep, { user, firstName: input.firstName, lastName: input.lastName, email: emailLc, phoneNumber: input.phoneNumber ?? null });
      }
      // An account that existed before this request joins only when its owner accepts the e-mailed link.
      let joinsPending = false;
      let member = await tx.findOne(OrganizationMember, { organization: org.id, user: rep.user.id });
      if (!member) {
        const status = initialMembershipStatus(userExisted);
        member = tx.create(OrganizationMember, { organization: org.id, user: rep.user, isAdmin: false, status, ...invitedProfile(userExisted, input) });
        joinsPending = status === 'pending';
      }
      const assignment = tx.create(OrganizationSalesRep, { organization: org.id, salesRep: rep, repNumber: input.repNumber, roles: normalizeRoles(input.roles), active: true, activationCount: 0 });
      await tx.flush();
      return { rep, assignment, isNewRep, joinsPending, pendingHere: member.status === 'pending' };
    });
  } catch (e) {
    if (isUniqueViolation(e, 'organization_sales_rep_org_rep_number_unique')) throw dupNumber(input.repNumber);
    if (isUniqueViolation(e, 'organization_sales_rep_org_rep_unique')) throw dupRep();
    if (isUniqueViolation(e)) throw AppError.conflict('The sales rep or its user was created at the same time by another request; retry.');
    throw e;
  }
  const { rep, assignment, isNewRep, joinsPending, pendingHere } = result;
  if (joinsPending) await sendAcceptLink(deps, org, rep.user);
  await queueEmail(deps.temporal, deps.config, {
    emailId: isNewRep ? repEmailIds.welcome(assignment.id) : repEmailIds.invite(assignment.id),
    organizationId: org.id,
    template: isNewRep ? 'welcome-sales-rep' : 'invite-sales-rep',
    to: rep.email,
    data: repEmailData(org, rep, assignment),
  });
  const shown = pendingHere ? { firstName: input.firstName, lastName: input.lastName, phoneNumber: input.phoneNumber ?? null } : visibleProfile(null, rep);
  return {
    organizationId: org.id,
    organizationName: org.name,
    organizationSalesRepId: assignment.id,
    salesRepId: rep.id,
    firstName: shown.firstName,
    lastName: shown.lastName,
    email: rep.email,
    phoneNumber: shown.phoneNumber,
    repNumber: assignment.repNumber,
    identityProvider: 'local',
    identityProviderUserId: rep.user.id,
  };
}

async function findAssignment(em: EntityManager, orgId: string, id: string, lock = false): Promise<OrganizationSalesRep> {
  // The lock (when asked) is taken on the assignment row alone: locking the joined organization and
  // user rows too would wait on every insert that references them (FOR KEY SHARE).
  const a = await em.findOne(OrganizationSalesRep, { id, organization: orgId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!a) throw AppError.notFound('Sales rep');
  await em.populate(a, ['salesRep', 'salesRep.user', 'organization']);
  return a;
}

/** The assignments of the token's own rep record, in every organization (a token without a user: none). */
export async function ownAssignments(em: EntityManager, auth: Principal) {
  if (!auth.userId) return [];
  const rows = await em.find(
    OrganizationSalesRep,
    { salesRep: { user: auth.userId } },
    { populate: ['organization', 'salesRep', 'salesRep.user'], orderBy: [{ organization: { name: 'asc' } }, { id: 'asc' }] },
  );
  return rows.map((a) => ({
    organizationId: a.organization.id,
    organizationName: a.organization.name,
    identityOrganizationId: a.organization.identityOrganizationId,
    identityProviderUserId: a.salesRep.user.id,
    organizationSalesRepId: a.id,
    salesRepId: a.salesRep.id,
    repNumber: a.repNumber,
    firstName: a.salesRep.firstName,
    lastName: a.salesRep.lastName,
    email: a.salesRep.email,
    phoneNumber: a.salesRep.phoneNumber ?? null,
    active: a.active,
    roles: [...a.roles],
  }));
}

export const salesRepListSpec: ListSpec = {
  filters: {
    repNumber: { prop: 'repNumber', type: 'string' },
    firstName: { prop: 'salesRep.firstName', type: 'string' },
    lastName: { prop: 'salesRep.lastName', type: 'string' },
    email: { prop: 'salesRep.email', type: 'string' },
    active: { prop: 'active', type: 'boolean' },
  },
  sorts: { RepNumber: 'repNumber', FirstName: 'salesRep.firstName', LastName: 'salesRep.lastName', Email: 'salesRep.email' },
  defaultSort: 'RepNumber',
};

/** One page of the organization's reps; a rep whose membership is pending shows the names the organization entered. */
export async function listReps(em: EntityManager, orgId: string, query: Record<string, unknown>) {
  const q = parseList(query, salesRepListSpec);
  const rows = await em.find(OrganizationSalesRep, { organization: orgId, ...q.where }, { populate: ['salesRep'], orderBy: [q.orderBy, { id: 'asc' }], limit: q.pageSize, offset: q.offset });
  const members = await membershipsOf(em, orgId, rows.map((a) => a.salesRep.user.id));
  return rows.map((a) => {
    const p = visibleProfile(members.get(a.salesRep.user.id) ?? null, a.salesRep);
    return {
      organizationId: orgId,
      organizationSalesRepId: a.id,
      salesRepId: a.salesRep.id,
      firstName: p.firstName,
      lastName: p.lastName,
      email: a.salesRep.email,
      phoneNumber: p.phoneNumber,
      repNumber: a.repNumber,
      active: a.active,
    };
  });
}

/** Changes the rep number of an assignment (unique in the organization). */
export async function changeRepNumber(em: EntityManager, orgId: string, input: { organizationSalesRepId: string; repNumber: string }) {
  const a = await findAssignment(em, orgId, input.organizationSalesRepId);
  if (a.repNumber !== input.repNumber) {
    if (await em.count(OrganizationSalesRep, { organization: orgId, repNumber: input.repNumber })) throw dupNumber(input.repNumber);
    a.repNumber = input.repNumber;
    try {
      await em.flush();
    } catch (e) {
      if (isUniqueViolation(e, 'organization_sales_rep_org_rep_number_unique')) throw dupNumber(input.repNumber);
      throw e;
    }
  }
  const p = visibleProfile(await em.findOne(OrganizationMember, { organization: orgId, user: a.salesRep.user.id }), a.salesRep);
  return {
    organizationId: orgId,
    organizationSalesRepId: a.id,
    salesRepId: a.salesRep.id,
    repNumber: a.repNumber,
    firstName: p.firstName,
    lastName: p.lastName,
    email: a.salesRep.email,
    success: true,
  };
}

/** Reactivates an assignment (login restored) and e-mails a re-invitation; an active one is left alone. */
export async function activateRep(em: EntityManager, deps: Mailer, orgId: string, id: string): Promise<void> {
  const reactivated = await em.transactional(async (tx) => {
    const a = await findAssignment(tx, orgId, id, true);
    if (a.active) return null;
    a.active = true;
    a.activationCount += 1;
    await tx.flush();
    return a;
  });
  if (!reactivated) return;
  const rep = reactivated.salesRep;
  await queueEmail(deps.temporal, deps.config, {
    emailId: repEmailIds.reinvite(reactivated.id, reactivated.activationCount),
    organizationId: orgId,
    template: 'reinvite-sales-rep',
    to: rep.email,
    data: repEmailData(reactivated.organization, rep, reactivated),
  });
}

/** Deactivates an assignment: the rep can no longer sign in to this organization; the record stays. */
export async function deactivateRep(em: EntityManager, orgId: string, id: string): Promise<void> {
  const a = await findAssignment(em, orgId, id);
  a.active = false;
  await em.flush();
}

/** Removes the rep from the organization (and the rep record and user account when nothing else uses them). */
export async function removeRep(em: EntityManager, orgId: string, id: string): Promise<void> {
  await em.transactional(async (tx) => {
    const a = await findAssignment(tx, orgId, id, true);
    const rep = a.salesRep;
    const user = rep.user;
    const member = await tx.findOne(OrganizationMember, { organization: orgId, user: user.id });
    const plan = planRemoval({
      otherAssignments: await tx.count(OrganizationSalesRep, { salesRep: rep.id, id: { $ne: a.id } }),
      adminHere: member?.isAdmin ?? false,
      otherMemberships: await tx.count(OrganizationMember, { user: user.id, organization: { $ne: orgId } }),
      isSuper: user.isSuper,
    });
    if (plan.removeUser) {
      // The user's rep record, assignments, memberships and password links go with it (FK cascades).
      await tx.nativeDelete(User, { id: user.id });
      return;
    }
    tx.remove(a);
    if (plan.removeMembership && member) tx.remove(member);
    if (plan.removeSalesRep) tx.remove(rep);
    await tx.flush();
  });
}
