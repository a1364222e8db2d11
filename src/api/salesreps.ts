/**
 * Sales rep endpoints: a global rep record per person (linked to the User it logs in as)
 * and its assignments to organizations (rep number, active flag, roles). Also registers
 * the login context resolver that turns an active assignment into the SalesRep role.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { initialMembershipStatus } from '../domain/organizations/membership.js';
import { sendAcceptLink } from '../services/memberships/index.js';
import * as yup from 'yup';
import { normalizeRoles, planRemoval, repEmailIds } from '../domain/salesreps/rules.js';
import { Organization, OrganizationMember, OrganizationSalesRep, SalesRep, User } from '../entities/index.js';
import { AppError, isUniqueViolation } from '../errors.js';
import type { Deps } from '../deps.js';
import { parseList, type ListSpec } from '../http/paging.js';
import { defineRoute, created, ok } from '../http/route.js';
import { queueEmail } from '../integrations/temporal.js';
import { orgOf } from './organizations.js';
import { email, name, uuid } from './schemas.js';


const repNumber = () => yup.string().trim().min(1, '${path} must not be empty.').max(50);
const roleName = () => yup.string().trim().matches(/^[A-Za-z][A-Za-z0-9_-]{0,49}$/, '${path} must be a role name such as SalesRep.');
const roles = () => yup.array(roleName().required()).max(10);

const createInput = yup.object({
  firstName: name().required(),
  lastName: name().required(),
  email: email().required(),
  phoneNumber: name(40),
  repNumber: repNumber().required(),
  roles: roles(),
});

const createInputPascal = yup.object({
  FirstName: name().required(),
  LastName: name().required(),
  Email: email().required(),
  PhoneNumber: name(40),
  RepNumber: repNumber().required(),
  Roles: roles(),
});

const assignmentId = yup.object({ organizationSalesRepId: uuid().required() });

interface RepInput {
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

/** Creates (or reuses, by e-mail) the rep, its user and membership, and assigns it to the organization. */
async function createAssignment(em: EntityManager, deps: Deps, orgId: string, input: RepInput) {
  const org = await orgOf(em, orgId);
  const emailLc = input.email.toLowerCase();
  let result: { rep: SalesRep; assignment: OrganizationSalesRep; isNewRep: boolean; joinsPending: boolean };
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
      if (!(await tx.count(OrganizationMember, { organization: org.id, user: rep.user.id }))) {
        const member = tx.create(OrganizationMember, { organization: org.id, user: rep.user, isAdmin: false, status: initialMembershipStatus(userExisted) });
        joinsPending = member.status === 'pending';
      }
      const assignment = tx.create(OrganizationSalesRep, { organization: org.id, salesRep: rep, repNumber: input.repNumber, roles: normalizeRoles(input.roles), active: true, activationCount: 0 });
      await tx.flush();
      return { rep, assignment, isNewRep, joinsPending };
    });
  } catch (e) {
    if (isUniqueViolation(e, 'organization_sales_rep_org_rep_number_unique')) throw dupNumber(input.repNumber);
    if (isUniqueViolation(e, 'organization_sales_rep_org_rep_unique')) throw dupRep();
    if (isUniqueViolation(e)) throw AppError.conflict('The sales rep or its user was created at the same time by another request; retry.');
    throw e;
  }
  const { rep, assignment, isNewRep, joinsPending } = result;
  if (joinsPending) await sendAcceptLink(deps, org, rep.user);
  await queueEmail(deps.temporal, deps.config, {
    emailId: isNewRep ? repEmailIds.welcome(assignment.id) : repEmailIds.invite(assignment.id),
    organizationId: org.id,
    template: isNewRep ? 'welcome-sales-rep' : 'invite-sales-rep',
    to: rep.email,
    data: repEmailData(org, rep, assignment),
  });
  return created({
    organizationId: org.id,
    organizationName: org.name,
    organizationSalesRepId: assignment.id,
    salesRepId: rep.id,
    firstName: rep.firstName,
    lastName: rep.lastName,
    email: rep.email,
    phoneNumber: rep.phoneNumber ?? null,
    repNumber: assignment.repNumber,
    identityProvider: 'local',
    identityProviderUserId: rep.user.id,
  });
}

async function findAssignment(em: EntityManager, orgId: string, id: string, lock = false): Promise<OrganizationSalesRep> {
  const a = await em.findOne(OrganizationSalesRep, { id, organization: orgId }, { populate: ['salesRep', 'salesRep.user', 'organization'], ...(lock ? { lockMode: 4 /* PESSIMISTIC_WRITE */ } : {}) });
  if (!a) throw AppError.notFound('Sales rep');
  return a;
}

const listSpec: ListSpec = {
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

export const salesRepRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/salesreps/organizations',
    summary: 'Organizations the sales rep of the token (UserId claim) is assigned to',
    tag: 'Sales reps',
    auth: ['Admin', 'SalesRep'],
    responses: { 200: '{ salesRepOrganizations: [ assignment ] }', 401: 'Unauthenticated', 403: 'Customer token' },
    async handler({ em, auth }) {
      if (!auth.userId) return ok({ salesRepOrganizations: [] });
      const rows = await em.find(
        OrganizationSalesRep,
        { salesRep: { user: auth.userId } },
        { populate: ['organization', 'salesRep', 'salesRep.user'], orderBy: [{ organization: { name: 'asc' } }, { id: 'asc' }] },
      );
      return ok({
        salesRepOrganizations: rows.map((a) => ({
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
        })),
      });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/salesreps',
    summary: 'List the sales reps of the organization (pageNumber, pageSize, sortOn RepNumber|FirstName|LastName|Email, sortDirection, filters)',
    tag: 'Sales reps',
    auth: ['Admin'],
    responses: { 200: 'Array of { organizationId, organizationSalesRepId, salesRepId, firstName, lastName, email, phoneNumber, repNumber, active }', 400: 'Bad paging, sort or filter', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query }) {
      const q = parseList(query, listSpec);
      const rows = await em.find(
        OrganizationSalesRep,
        { organization: orgId, ...q.where },
        { populate: ['salesRep'], orderBy: [q.orderBy, { id: 'asc' }], limit: q.pageSize, offset: q.offset },
      );
      return ok(
        rows.map((a) => ({
          organizationId: orgId,
          organizationSalesRepId: a.id,
          salesRepId: a.salesRep.id,
          firstName: a.salesRep.firstName,
          lastName: a.salesRep.lastName,
          email: a.salesRep.email,
          phoneNumber: a.salesRep.phoneNumber ?? null,
          repNumber: a.repNumber,
          active: a.active,
        })),
      );
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/organizations/salesreps',
    summary: 'Create a sales rep in the organization (an existing rep with the same e-mail is reused); sends a welcome or invitation e-mail',
    tag: 'Sales reps',
    auth: ['Admin'],
    body: createInput,
    responses: { 201: 'Created assignment', 400: 'Missing or malformed fields', 401: 'Unauthenticated', 403: 'Not Admin', 409: 'Rep number taken, or the rep is already assigned here' },
    async handler({ em, deps, orgId, body }) {
      return createAssignment(em, deps, orgId, body);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/organizations/:organizationId/salesreps',
    summary: 'Create a sales rep in the organization (PascalCase form of PUT /api/organizations/salesreps)',
    tag: 'Sales reps',
    auth: ['Admin'],
    body: createInputPascal,
    responses: { 201: 'Created assignment', 400: 'Missing or malformed fields', 401: 'Unauthenticated', 403: 'Not Admin or another organization', 409: 'Rep number taken, or the rep is already assigned here' },
    async handler({ em, deps, orgId, body }) {
      return createAssignment(em, deps, orgId, {
        firstName: body.FirstName,
        lastName: body.LastName,
        email: body.Email,
        phoneNumber: body.PhoneNumber,
        repNumber: body.RepNumber,
        roles: body.Roles,
      });
    },
  }),

  defineRoute({
    method: 'patch',
    path: '/api/organizations/salesreps',
    summary: "Change a sales rep's number in the organization",
    tag: 'Sales reps',
    auth: ['Admin'],
    body: yup.object({ organizationSalesRepId: uuid().required(), repNumber: repNumber().required() }),
    responses: { 200: 'organizationId, organizationSalesRepId, salesRepId, repNumber, firstName, lastName, email, success', 400: 'Missing or malformed fields', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such rep in the organization', 409: 'Rep number taken' },
    async handler({ em, orgId, body }) {
      const a = await findAssignment(em, orgId, body.organizationSalesRepId);
      if (a.repNumber !== body.repNumber) {
        if (await em.count(OrganizationSalesRep, { organization: orgId, repNumber: body.repNumber })) throw dupNumber(body.repNumber);
        a.repNumber = body.repNumber;
        try {
          await em.flush();
        } catch (e) {
          if (isUniqueViolation(e, 'organization_sales_rep_org_rep_number_unique')) throw dupNumber(body.repNumber);
          throw e;
        }
      }
      return ok({
        organizationId: orgId,
        organizationSalesRepId: a.id,
        salesRepId: a.salesRep.id,
        repNumber: a.repNumber,
        firstName: a.salesRep.firstName,
        lastName: a.salesRep.lastName,
        email: a.salesRep.email,
        success: true,
      });
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/organizations/salesreps/activate',
    summary: 'Activate a sales rep (restores login; sends a re-invitation e-mail)',
    tag: 'Sales reps',
    auth: ['Admin'],
    body: assignmentId,
    responses: { 200: 'Empty body', 400: 'Missing or malformed id', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such rep in the organization' },
    async handler({ em, deps, orgId, body }) {
      const reactivated = await em.transactional(async (tx) => {
        const a = await findAssignment(tx, orgId, body.organizationSalesRepId, true);
        if (a.active) return null;
        a.active = true;
        a.activationCount += 1;
        await tx.flush();
        return a;
      });
      if (reactivated) {
        const rep = reactivated.salesRep;
        await queueEmail(deps.temporal, deps.config, {
          emailId: repEmailIds.reinvite(reactivated.id, reactivated.activationCount),
          organizationId: orgId,
          template: 'reinvite-sales-rep',
          to: rep.email,
          data: repEmailData(reactivated.organization, rep, reactivated),
        });
      }
      return ok();
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/organizations/salesreps/deactivate',
    summary: 'Deactivate a sales rep (login to this organization is refused; the record is kept)',
    tag: 'Sales reps',
    auth: ['Admin'],
    body: assignmentId,
    responses: { 200: 'Empty body', 400: 'Missing or malformed id', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such rep in the organization' },
    async handler({ em, orgId, body }) {
      const a = await findAssignment(em, orgId, body.organizationSalesRepId);
      a.active = false;
      await em.flush();
      return ok();
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/api/organizations/salesreps',
    summary: "Remove a sales rep from the organization; a rep in no other organization is deleted with its user account (unless the user is used elsewhere)",
    tag: 'Sales reps',
    auth: ['Admin'],
    body: assignmentId,
    responses: { 200: '{ success }', 400: 'Missing or malformed id', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such rep in the organization' },
    async handler({ em, orgId, body }) {
      await em.transactional(async (tx) => {
        const a = await findAssignment(tx, orgId, body.organizationSalesRepId, true);
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
      return ok({ success: true });
    },
  }),
];
