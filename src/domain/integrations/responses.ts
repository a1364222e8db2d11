/**
 * Response schemas of the integration endpoints (SPEC "Integration"); secrets are never part
 * of any. src/services/integrations/integrations.ts writes them.
 */
import { arr, bool, component, dateTime, dateTimeN, doc, int, obj, objN, open, str, strN, uri, uuid, uuidN } from '../contract.js';
import { INTEGRATION_TYPE_IDS } from './templates.js';

const integrationType = () => doc(int().oneOf([...INTEGRATION_TYPE_IDS]), '1 Payment, 2 Accounting, 3 Shipping, 4 Email, 5 Sms, 6 Analytics, 7 Crm, 8 Inventory');

const configurationField = component(
  'IntegrationConfigurationField',
  obj({ key: str(), displayName: str(), description: str(), type: doc(int(), '1 text, 2 whole number, 3 boolean, 4 URL'), required: bool(), defaultValue: str() }),
);
const secretField = component('IntegrationSecretField', obj({ key: str(), displayName: str(), description: str(), required: bool(), isSensitive: bool() }));

export const integrationTemplate = component(
  'IntegrationTemplate',
  obj({
    type: integrationType(),
    provider: str(),
    displayName: str(),
    description: str(),
    requiresOAuth: bool(),
    documentationUrl: uri(),
    logoUrl: uri(),
    supportedFeatures: arr(str()),
    configurationFields: arr(configurationField),
    secretFields: arr(secretField),
  }),
);
export const templateList = component('IntegrationTemplateList', obj({ templates: arr(integrationTemplate) }));

const availableIntegration = component(
  'AvailableIntegration',
  obj({
    provider: str(),
    displayName: str(),
    description: str(),
    logoUrl: uri(),
    requiresOAuth: bool(),
    isConfigured: bool(),
    isEnabled: bool(),
    integrationId: doc(uuidN(), 'The enabled integration of this provider, else the first configured one, else null'),
  }),
);
export const availableIntegrations = component(
  'AvailableIntegrations',
  obj({
    organizationId: uuid(),
    totalAvailable: int(),
    configuredCount: int(),
    enabledCount: int(),
    integrationsByType: doc(open(arr(availableIntegration)), 'Type name (Payment, Accounting, ...) -> its providers'),
  }),
);

const testResult = () => objN({ success: bool(), message: str(), latencyMs: int() });

const createdFields = { integrationId: uuid(), organizationId: uuid(), integrationType: integrationType(), provider: str(), displayName: str(), isEnabled: bool(), createdAt: dateTime() };
export const createdIntegration = component('CreatedIntegration', obj(createdFields));

export const integrationSummary = component(
  'IntegrationSummary',
  obj({
    integrationId: uuid(),
    integrationType: integrationType(),
    provider: str(),
    displayName: str(),
    isEnabled: bool(),
    createdAt: dateTime(),
    updatedAt: dateTime(),
    lastTestedAt: dateTimeN(),
    lastTestResult: doc(testResult(), 'Null until tested, and again after secrets or critical settings changed'),
  }),
);
export const integrationList = component('IntegrationList', obj({ integrations: arr(integrationSummary) }));

export const integrationDetail = component(
  'Integration',
  obj({
    ...createdFields,
    updatedAt: dateTime(),
    createdBy: strN(),
    configuration: doc(open(str()), 'Configuration values (never secrets), as strings'),
    lastTestedAt: dateTimeN(),
    lastTestResult: testResult(),
    availableFields: obj({ configurationFields: arr(configurationField), secretFields: arr(secretField), requiresOAuth: bool(), documentationUrl: uri(), supportedFeatures: arr(str()) }),
  }),
);

export const integrationUpdated = component(
  'IntegrationUpdated',
  obj({ testConnectionRequired: doc(bool(), 'True when secrets or critical settings (IsSandbox, Environment, endpoints) changed: run the connection test again') }),
);
export const connectionTest = component('IntegrationConnectionTest', obj({ success: bool(), message: str(), latencyMs: int(), testedAt: dateTime() }));
