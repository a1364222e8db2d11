/**
 * Integrations (SPEC "Integration", DESIGN "Integrations (Admin)"): templates, the available
 * overview, create, list, detail, update, secret rotation, connection tests and delete.
 * Secrets are encrypted at rest and never returned, logged or echoed in errors.
 */
import type { createdIntegration, integrationSummary } from '../../domain/integrations/responses.js';
import type { Out } from '../../domain/contract.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { UUID_RE } from '../../domain/ids.js';
import {
  checkConfiguration,
  checkSecrets,
  FIELD_TYPES,
  findTemplate,
  INTEGRATION_TYPES,
  needsConnectionTest,
  TEMPLATES,
  type IntegrationTemplate,
  type IntegrationTypeId,
} from '../../domain/integrations/templates.js';
import { decryptJson, encryptJson } from '../../domain/secrets/crypto.js';
import { Integration } from '../../entities/Integration.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import { encryptionKeys } from '../secrets.js';
import { hostProblem, savedUrlProblem } from '../../adapters/http-client.js';
import { testConnection } from './connection-test.js';

export function templateView(t: IntegrationTemplate) {
  return { ...t, supportedFeatures: [...t.supportedFeatures] };
}

export function createdView(i: Integration) {
  return {
    integrationId: i.id,
    organizationId: i.organizationId,
    integrationType: i.integrationType,
    provider: i.provider,
    displayName: i.displayName,
    isEnabled: i.isEnabled,
    createdAt: i.createdAt.toISOString(),
  } satisfies Out<typeof createdIntegration>;
}

export function summaryView(i: Integration) {
  return {
    integrationId: i.id,
    integrationType: i.integrationType,
    provider: i.provider,
    displayName: i.displayName,
    isEnabled: i.isEnabled,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
    lastTestedAt: i.lastTestedAt ? i.lastTestedAt.toISOString() : null,
    lastTestResult: i.lastTestResult ?? null,
  } satisfies Out<typeof integrationSummary>;
}

export function detailView(i: Integration) {
  const t = templateOf(i);
  return {
    ...createdView(i),
    updatedAt: i.updatedAt.toISOString(),
    createdBy: i.createdBy ?? null,
    configuration: { ...i.configuration },
    lastTestedAt: i.lastTestedAt ? i.lastTestedAt.toISOString() : null,
    lastTestResult: i.lastTestResult ?? null,
    availableFields: {
      configurationFields: t.configurationFields,
      secretFields: t.secretFields,
      requiresOAuth: t.requiresOAuth,
      documentationUrl: t.documentationUrl,
      supportedFeatures: t.supportedFeatures,
    },
  };
}

function templateOf(i: Integration): IntegrationTemplate {
  const t = findTemplate(i.integrationType, i.provider);
  if (!t) throw new Error(`integration ${i.id} has no template ${i.integrationType}/${i.provider}`);
  return t;
}

export async function findIntegration(em: EntityManager, orgId: string, id: string): Promise<Integration> {
  const i = UUID_RE.test(id) ? await em.findOne(Integration, { id, organizationId: orgId }) : null;
  if (!i) throw AppError.notFound('Integration');
  return i;
}

async function flushOrConflict(em: EntityManager, i: Integration): Promise<void> {
  try {
    await em.flush();
  } catch (e) {
    if (isUniqueViolation(e, 'integration_one_enabled_per_type'))
      throw AppError.conflict(
        `Another ${INTEGRATION_TYPES[i.integrationType as IntegrationTypeId]} integration is already enabled; disable it first (one enabled integration per type).`,
      );
    throw e;
  }
}

/** The organization's integrations, oldest first, filtered by type and enabled flag. */
export async function listIntegrations(em: EntityManager, orgId: string, q: { integrationType?: number; isEnabled?: boolean }): Promise<Integration[]> {
  const where = {
    organizationId: orgId,
    ...(q.integrationType !== undefined ? { integrationType: q.integrationType } : {}),
    ...(q.isEnabled !== undefined ? { isEnabled: q.isEnabled } : {}),
  };
  return em.find(Integration, where, { orderBy: { createdAt: 'asc' } });
}

/** Deletes an integration with its encrypted secrets. */
export async function deleteIntegration(em: EntityManager, orgId: string, id: string): Promise<void> {
  await em.remove(await findIntegration(em, orgId, id)).flush();
}

export async function availableIntegrations(em: EntityManager, orgId: string) {
  const rows = await em.find(Integration, { organizationId: orgId }, { orderBy: { createdAt: 'asc' } });
  const byType: Record<string, unknown[]> = {};
  for (const t of TEMPLATES) {
    const mine = rows.filter((r) => r.integrationType === t.type && r.provider === t.provider);
    const enabled = mine.find((r) => r.isEnabled);
    (byType[INTEGRATION_TYPES[t.type]] ??= []).push({
      provider: t.provider,
      displayName: t.displayName,
      description: t.description,
      logoUrl: t.logoUrl,
      requiresOAuth: t.requiresOAuth,
      isConfigured: mine.length > 0,
      isEnabled: !!enabled,
      integrationId: (enabled ?? mine[0])?.id ?? null,
    });
  }
  return {
    organizationId: orgId,
    totalAvailable: TEMPLATES.length,
    configuredCount: rows.length,
    enabledCount: rows.filter((r) => r.isEnabled).length,
    integrationsByType: byType,
  };
}

function fail(errors: Record<string, string[]>): void {
  if (Object.keys(errors).length) throw AppError.validation(errors);
}

/**
 * Where the submitted configuration points the service (URL fields, an SMTP Host), checked
 * like every outbound target (DESIGN "Security decisions"): link-local and metadata addresses
 * are refused whatever OUTBOUND_ALLOW_PRIVATE_NETWORKS says; without it, plain http and private
 * addresses too. A host name is judged by what it resolves to now; it is checked again on every call.
 */
async function targetErrors(t: IntegrationTemplate, values: Record<string, string>, config: Config): Promise<Record<string, string[]>> {
  const targets = { allowPrivateNetworks: config.outboundAllowPrivateNetworks };
  const errors: Record<string, string[]> = {};
  for (const f of t.configurationFields) {
    const v = values[f.key];
    if (v === undefined || v === '') continue;
    const problem = f.type === FIELD_TYPES.Url ? await savedUrlProblem(v, targets) : f.key === 'Host' ? await hostProblem(v, targets) : null;
    if (problem) errors[`configuration.${f.key}`] = [problem];
  }
  return errors;
}

export async function createIntegration(
  em: EntityManager,
  config: Config,
  orgId: string,
  createdBy: string | null,
  input: {
    integrationType: number;
    provider: string;
    displayName: string;
    isEnabled: boolean;
    configuration: Record<string, unknown>;
    secrets: Record<string, unknown>;
  },
) {
  const t = findTemplate(input.integrationType, input.provider);
  if (!t) {
    const offered = TEMPLATES.filter((x) => x.type === input.integrationType).map((x) => x.provider);
    throw AppError.field('provider', `No template ${input.provider} for integrationType ${input.integrationType}; available: ${offered.join(', ') || 'none'}.`);
  }
  const c = checkConfiguration(t, input.configuration, { requireAll: true });
  const s = checkSecrets(t, input.secrets, { requireAll: true });
  fail({ ...c.errors, ...s.errors });
  fail(await targetErrors(t, c.values, config));
  const i = em.create(Integration, {
    organizationId: orgId,
    integrationType: t.type,
    provider: t.provider,
    displayName: input.displayName,
    isEnabled: input.isEnabled,
    configuration: c.values,
    secretsCiphertext: Object.keys(s.values).length ? encryptJson(s.values, encryptionKeys(config)) : null,
    createdBy,
    lastTestedAt: null,
    lastTestResult: null,
  });
  await flushOrConflict(em, i);
  return i;
}

function storedSecrets(i: Integration, config: Config): Record<string, string> {
  return i.secretsCiphertext ? decryptJson(i.secretsCiphertext, encryptionKeys(config)) : {};
}

export async function updateIntegration(
  em: EntityManager,
  config: Config,
  orgId: string,
  id: string,
  input: { displayName?: string; isEnabled?: boolean; configuration?: Record<string, unknown>; secrets?: Record<string, unknown> },
): Promise<{ testConnectionRequired: boolean }> {
  const i = await findIntegration(em, orgId, id);
  const t = templateOf(i);
  const c = checkConfiguration(t, input.configuration ?? {}, { requireAll: false });
  const s = checkSecrets(t, input.secrets ?? {}, { requireAll: false });
  fail({ ...c.errors, ...s.errors });
  fail(await targetErrors(t, c.values, config));
  const before = { ...i.configuration };
  const after = { ...before, ...c.values };
  const secretsChanged = Object.keys(s.values).length > 0;
  if (input.displayName !== undefined) i.displayName = input.displayName;
  if (input.isEnabled !== undefined) i.isEnabled = input.isEnabled;
  i.configuration = after;
  if (secretsChanged) i.secretsCiphertext = encryptJson({ ...storedSecrets(i, config), ...s.values }, encryptionKeys(config));
  const testConnectionRequired = needsConnectionTest(before, after, secretsChanged);
  if (testConnectionRequired) {
    i.lastTestedAt = null;
    i.lastTestResult = null;
  }
  await flushOrConflict(em, i);
  return { testConnectionRequired };
}

/** Replaces all secrets (required ones must be present). */
export async function rotateSecrets(
  em: EntityManager,
  config: Config,
  orgId: string,
  id: string,
  secrets: Record<string, unknown>,
): Promise<{ testConnectionRequired: true }> {
  const i = await findIntegration(em, orgId, id);
  const s = checkSecrets(templateOf(i), secrets, { requireAll: true });
  fail(s.errors);
  i.secretsCiphertext = Object.keys(s.values).length ? encryptJson(s.values, encryptionKeys(config)) : null;
  i.lastTestedAt = null;
  i.lastTestResult = null;
  await em.flush();
  return { testConnectionRequired: true };
}

export async function runConnectionTest(em: EntityManager, config: Config, orgId: string, id: string) {
  const i = await findIntegration(em, orgId, id);
  const result = await testConnection(i.provider, i.configuration, storedSecrets(i, config), config.outboundAllowPrivateNetworks);
  const testedAt = new Date();
  i.lastTestedAt = testedAt;
  i.lastTestResult = result;
  await em.flush();
  return { ...result, testedAt: testedAt.toISOString() };
}

/**
 * Settings of the enabled integration of a type for an organization, secrets decrypted, for
 * the code that talks to the provider (payments, e-mail). Null when none is enabled: the
 * deployment's defaults apply.
 */
export async function enabledIntegrationSettings(
  em: EntityManager,
  config: Config,
  orgId: string,
  type: IntegrationTypeId,
  cache?: IntegrationSettingsCache,
): Promise<{ provider: string; configuration: Record<string, string>; secrets: Record<string, string> } | null> {
  const load = async () => {
    const i = await em.findOne(Integration, { organizationId: orgId, integrationType: type, isEnabled: true });
    return i ? { provider: i.provider, configuration: { ...i.configuration }, secrets: storedSecrets(i, config) } : null;
  };
  const s = cache ? await cache.integration(orgId, type, load) : await load();
  // Copies: a caller never changes what the cache holds.
  return s ? { provider: s.provider, configuration: { ...s.configuration }, secrets: { ...s.secrets } } : null;
}

/** Where enabled integration settings may be cached: the process's ReadCache (invalidated by LISTEN/NOTIFY when the rows change). */
export interface IntegrationSettingsCache {
  integration<T>(organizationId: string, type: number, load: () => Promise<T>): Promise<T>;
}
