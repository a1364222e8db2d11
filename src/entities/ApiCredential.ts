import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';

/**
 * ClientId/ClientSecret and a static API key for an organization. Only hashes are stored.
 * At most one active set per organization (partial unique index); issuing a new set
 * deactivates the old one and bumps the organization's credential version.
 */
export const ApiCredential = defineEntity({
  name: 'ApiCredential',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    clientId: p.string().unique(),
    clientSecretHash: p.string().hidden(),
    apiKeyHash: p.string().unique().hidden(),
    version: p.integer(),
    active: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
  },
  uniques: [
    {
      name: 'api_credential_one_active_per_org',
      expression: 'create unique index "api_credential_one_active_per_org" on "api_credential" ("organization_id") where "active"',
    },
  ],
});
export type ApiCredential = InferEntity<typeof ApiCredential>;
