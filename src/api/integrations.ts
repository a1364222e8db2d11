/**
 * Integration endpoints (SPEC "Integration endpoints", Admin; DESIGN "Integrations"):
 * templates, the available overview, create, list, detail, update, rotate-secrets, test and
 * delete. Use cases: src/services/integrations/.
 */
import * as yup from 'yup';
import { INTEGRATION_TYPE_IDS, TEMPLATES } from '../domain/integrations/templates.js';
import * as schema from '../domain/integrations/responses.js';
import { created, defineRoute, json, LOCATION, noContent, ok } from '../http/route.js';
import {
  availableIntegrations,
  createdView,
  createIntegration,
  deleteIntegration,
  detailView,
  findIntegration,
  listIntegrations,
  rotateSecrets,
  runConnectionTest,
  summaryView,
  templateView,
  updateIntegration,
} from '../services/integrations/integrations.js';

const TAG = 'Integrations';
const ADMIN = ['Admin'] as const;
const common = { 401: 'Unauthenticated', 403: 'Not Admin, or another organization in the path' };
const BASE = '/api/organizations/:organizationId/integrations';

const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
/** A free-form key/value object (keys are checked against the template by the service). */
const keyValues = (name: string) =>
  yup
    .mixed<Record<string, unknown>>()
    .meta({ openapi: { type: 'object', additionalProperties: true } })
    .test('object', `${name} must be an object of key/value pairs.`, (v) => v === undefined || v === null || isPlainObject(v));
const integrationType = () =>
  yup
    .number()
    .integer()
    .oneOf(
      INTEGRATION_TYPE_IDS,
      `integrationType must be one of: ${INTEGRATION_TYPE_IDS.join(', ')} (1 Payment, 2 Accounting, 3 Shipping, 4 Email, 5 Sms, 6 Analytics, 7 Crm, 8 Inventory).`,
    );

const createBody = yup.object({
  integrationType: integrationType().required('integrationType is required.'),
  provider: yup.string().trim().required('provider is required.').max(50),
  displayName: yup.string().trim().required('displayName is required.').max(200),
  isEnabled: yup.boolean().default(true),
  configuration: keyValues('configuration'),
  secrets: keyValues('secrets'),
});
const updateBody = yup.object({
  displayName: yup.string().trim().min(1).max(200),
  isEnabled: yup.boolean(),
  configuration: keyValues('configuration'),
  secrets: keyValues('secrets'),
});
const rotateBody = yup.object({
  secrets: keyValues('secrets').required('secrets is required.'),
});

export const integrationRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/integration-templates',
    operationId: 'listIntegrationTemplates',
    summary: 'Integration templates (optionally of one integrationType)',
    tag: TAG,
    auth: ADMIN,
    query: yup.object({ integrationType: integrationType() }),
    responses: { 200: json(schema.templateList, 'The templates (of one type with integrationType)'), 400: 'Unknown integrationType', ...common },
    async handler({ query }) {
      const list = query.integrationType === undefined ? TEMPLATES : TEMPLATES.filter((t) => t.type === query.integrationType);
      return ok({ templates: list.map(templateView) });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/integrations/available',
    operationId: 'getAvailableIntegrations',
    summary: 'Every template with whether the organization configured and enabled it, keyed by type name',
    tag: TAG,
    auth: ADMIN,
    responses: { 200: json(schema.availableIntegrations, 'Every provider by type, with whether the organization configured and enabled it'), ...common },
    async handler({ em, orgId }) {
      return ok(await availableIntegrations(em, orgId));
    },
  }),
  defineRoute({
    method: 'post',
    path: BASE,
    operationId: 'createIntegration',
    summary: 'Configure an integration from a template; secrets are stored encrypted and never returned',
    tag: TAG,
    auth: ADMIN,
    body: createBody,
    responses: {
      201: json(schema.createdIntegration, 'The created integration (no secrets)', { headers: LOCATION }),
      400: 'Unknown provider, configuration or secret keys, missing required values',
      409: 'Another integration of this type is enabled',
      ...common,
    },
    async handler({ em, deps, orgId, auth, body }) {
      const i = await createIntegration(em, deps.config, orgId, auth.userId ?? auth.subject, {
        integrationType: body.integrationType,
        provider: body.provider,
        displayName: body.displayName,
        isEnabled: body.isEnabled,
        configuration: body.configuration ?? {},
        secrets: body.secrets ?? {},
      });
      return created(createdView(i), `${BASE.replace(':organizationId', orgId)}/${i.id}`);
    },
  }),
  defineRoute({
    method: 'get',
    path: BASE,
    operationId: 'listIntegrations',
    summary: 'Integrations of the organization (no secrets); filters integrationType, isEnabled',
    tag: TAG,
    auth: ADMIN,
    query: yup.object({ integrationType: integrationType(), isEnabled: yup.boolean() }),
    responses: { 200: json(schema.integrationList, 'Integrations, oldest first (no secrets)'), 400: 'Bad filter', ...common },
    async handler({ em, orgId, query }) {
      const rows = await listIntegrations(em, orgId, query);
      return ok({ integrations: rows.map(summaryView) });
    },
  }),
  defineRoute({
    method: 'get',
    path: `${BASE}/:integrationId`,
    operationId: 'getIntegration',
    summary: 'Integration detail: configuration (no secrets) and the template fields',
    tag: TAG,
    auth: ADMIN,
    responses: { 200: json(schema.integrationDetail, 'The integration with its configuration and template fields (no secrets)'), 404: 'No such integration', ...common },
    async handler({ em, orgId, params }) {
      return ok(detailView(await findIntegration(em, orgId, params.integrationId)));
    },
  }),
  defineRoute({
    method: 'put',
    path: `${BASE}/:integrationId`,
    operationId: 'updateIntegration',
    summary: 'Update: configuration is merged, supplied secrets overwrite; says whether a new connection test is required',
    tag: TAG,
    auth: ADMIN,
    body: updateBody,
    responses: {
      200: json(schema.integrationUpdated, 'Whether a new connection test is required'),
      400: 'Unknown keys or bad values',
      404: 'No such integration',
      409: 'Another integration of this type is enabled',
      ...common,
    },
    async handler({ em, deps, orgId, params, body }) {
      return ok(
        await updateIntegration(em, deps.config, orgId, params.integrationId, {
          displayName: body.displayName,
          isEnabled: body.isEnabled,
          configuration: body.configuration ?? undefined,
          secrets: body.secrets ?? undefined,
        }),
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: `${BASE}/:integrationId/rotate-secrets`,
    operationId: 'rotateIntegrationSecrets',
    summary: 'Replace all secrets',
    tag: TAG,
    auth: ADMIN,
    body: rotateBody,
    responses: { 200: json(schema.integrationUpdated, 'Always true: test the connection with the new secrets'), 400: 'Unknown or missing secret keys', 404: 'No such integration', ...common },
    async handler({ em, deps, orgId, params, body }) {
      return ok(await rotateSecrets(em, deps.config, orgId, params.integrationId, body.secrets));
    },
  }),
  defineRoute({
    method: 'post',
    path: `${BASE}/:integrationId/test`,
    operationId: 'testIntegration',
    summary: 'Really connect (Payment: health and API key; Smtp: connect and authenticate; Http: GET the endpoint)',
    tag: TAG,
    auth: ADMIN,
    responses: { 200: json(schema.connectionTest, 'The outcome of the test (also stored as lastTestResult)'), 404: 'No such integration', ...common },
    async handler({ em, deps, orgId, params }) {
      return ok(await runConnectionTest(em, deps.config, orgId, params.integrationId));
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${BASE}/:integrationId`,
    operationId: 'deleteIntegration',
    summary: 'Delete an integration and its secrets',
    tag: TAG,
    auth: ADMIN,
    responses: { 204: 'Deleted', 404: 'No such integration', ...common },
    async handler({ em, orgId, params }) {
      await deleteIntegration(em, orgId, params.integrationId);
      return noContent();
    },
  }),
];
