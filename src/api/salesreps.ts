/**
 * Sales rep endpoints: a global rep record per person (linked to the User it logs in as) and its
 * assignments to organizations (rep number, active flag, roles). Use cases in src/services/salesreps.
 */
import * as yup from 'yup';
import { created, defineRoute, empty, json, ok } from '../http/route.js';
import * as out from '../domain/contract.js';

const CREATED_ASSIGNMENT = json(
  out.obj({
    organizationId: out.uuid(),
    organizationName: out.str(),
    organizationSalesRepId: out.uuid(),
    salesRepId: out.uuid(),
    firstName: out.strN(),
    lastName: out.strN(),
    email: out.str(),
    phoneNumber: out.strN(),
    repNumber: out.str(),
    identityProvider: out.str(),
    identityProviderUserId: out.uuid(),
  }),
  'The assignment (a pending member shows the names the organization entered)',
);
import { activateRep, changeRepNumber, createAssignment, deactivateRep, listReps, ownAssignments, removeRep, salesRepListSpec } from '../services/salesreps/index.js';
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

/** The list read that shows one rep (reps have no read by id). */
const repLocation = (repNumber: string) => `/api/organizations/salesreps?${new URLSearchParams({ filters: JSON.stringify([{ field: 'RepNumber', operator: 'equals', value: repNumber }]) })}`;

export const salesRepRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/salesreps/organizations',
    operationId: 'listSalesRepOrganizations',
    summary: 'Organizations the sales rep of the token (UserId claim) is assigned to',
    tag: 'Sales reps',
    auth: ['Admin', 'SalesRep'],
    responses: {
      200: json(
        out.obj({
          salesRepOrganizations: out.arr(
            out.obj({
              organizationId: out.uuid(),
              organizationName: out.str(),
              identityOrganizationId: out.str(),
              identityProviderUserId: out.uuid(),
              organizationSalesRepId: out.uuid(),
              salesRepId: out.uuid(),
              repNumber: out.str(),
              firstName: out.strN(),
              lastName: out.strN(),
              email: out.str(),
              phoneNumber: out.strN(),
              active: out.bool(),
              roles: out.arr(out.str()),
            }),
          ),
        }),
        "The caller's rep assignments in every organization",
      ), 401: 'Unauthenticated', 403: 'Customer token' },
    async handler({ em, auth }) {
      return ok({ salesRepOrganizations: await ownAssignments(em, auth) });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/salesreps',
    operationId: 'listSalesReps',
    summary: 'List the sales reps of the organization (pageNumber, pageSize, sortOn RepNumber|FirstName|LastName|Email, sortDirection, filters)',
    tag: 'Sales reps',
    auth: ['Admin'],
    paged: salesRepListSpec,
    responses: {
      200: json(
        out.arr(
          out.obj({
            organizationId: out.uuid(),
            organizationSalesRepId: out.uuid(),
            salesRepId: out.uuid(),
            firstName: out.strN(),
            lastName: out.strN(),
            email: out.str(),
            phoneNumber: out.strN(),
            repNumber: out.str(),
            active: out.bool(),
          }),
        ),
        'One page of the reps (a plain array, as SPEC has it)',
      ), 400: 'Bad paging, sort or filter', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query }) {
      return ok(await listReps(em, orgId, query));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/organizations/salesreps',
    operationId: 'createSalesRep',
    summary: 'Create a sales rep in the organization (an existing rep with the same e-mail is reused); sends a welcome or invitation e-mail',
    tag: 'Sales reps',
    auth: ['Admin'],
    body: createInput,
    responses: { 201: CREATED_ASSIGNMENT, 400: 'Missing or malformed fields', 401: 'Unauthenticated', 403: 'Not Admin', 409: 'Rep number taken, or the rep is already assigned here' },
    async handler({ em, deps, orgId, body }) {
      return created(await createAssignment(em, deps, orgId, body), repLocation(body.repNumber));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/organizations/:organizationId/salesreps',
    operationId: 'createSalesRepInOrganization',
    summary: 'Create a sales rep in the organization (PascalCase form of PUT /api/organizations/salesreps)',
    tag: 'Sales reps',
    auth: ['Admin'],
    body: createInputPascal,
    responses: { 201: CREATED_ASSIGNMENT, 400: 'Missing or malformed fields', 401: 'Unauthenticated', 403: 'Not Admin or another organization', 409: 'Rep number taken, or the rep is already assigned here' },
    async handler({ em, deps, orgId, body }) {
      const { FirstName: firstName, LastName: lastName, Email: email, PhoneNumber: phoneNumber, RepNumber: repNumber, Roles: roles } = body;
      return created(await createAssignment(em, deps, orgId, { firstName, lastName, email, phoneNumber, repNumber, roles }), repLocation(repNumber));
    },
  }),

  defineRoute({
    method: 'patch',
    path: '/api/organizations/salesreps',
    operationId: 'updateSalesRep',
    summary: "Change a sales rep's number in the organization",
    tag: 'Sales reps',
    auth: ['Admin'],
    body: yup.object({ organizationSalesRepId: uuid().required(), repNumber: repNumber().required() }),
    responses: {
      200: json(
        out.obj({ organizationId: out.uuid(), organizationSalesRepId: out.uuid(), salesRepId: out.uuid(), repNumber: out.str(), firstName: out.strN(), lastName: out.strN(), email: out.str(), success: out.bool() }),
        'The assignment with its new number',
      ), 400: 'Missing or malformed fields', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such rep in the organization', 409: 'Rep number taken' },
    async handler({ em, orgId, body }) {
      return ok(await changeRepNumber(em, orgId, body));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/organizations/salesreps/activate',
    operationId: 'activateSalesRep',
    summary: 'Activate a sales rep (restores login; sends a re-invitation e-mail)',
    tag: 'Sales reps',
    auth: ['Admin'],
    body: assignmentId,
    responses: { 200: empty('Empty body'), 400: 'Missing or malformed id', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such rep in the organization' },
    async handler({ em, deps, orgId, body }) {
      await activateRep(em, deps, orgId, body.organizationSalesRepId);
      return ok();
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/organizations/salesreps/deactivate',
    operationId: 'deactivateSalesRep',
    summary: 'Deactivate a sales rep (login to this organization is refused; the record is kept)',
    tag: 'Sales reps',
    auth: ['Admin'],
    body: assignmentId,
    responses: { 200: empty('Empty body'), 400: 'Missing or malformed id', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such rep in the organization' },
    async handler({ em, orgId, body }) {
      await deactivateRep(em, orgId, body.organizationSalesRepId);
      return ok();
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/api/organizations/salesreps',
    operationId: 'removeSalesRep',
    summary: "Remove a sales rep from the organization; a rep in no other organization is deleted with its user account (unless the user is used elsewhere)",
    tag: 'Sales reps',
    auth: ['Admin'],
    body: assignmentId,
    responses: { 200: json(out.obj({ success: out.bool() }), 'Removed'), 400: 'Missing or malformed id', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such rep in the organization' },
    async handler({ em, orgId, body }) {
      await removeRep(em, orgId, body.organizationSalesRepId);
      return ok({ success: true });
    },
  }),
];
