import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export interface IntegrationTestResult {
  success: boolean;
  message: string;
  latencyMs: number;
}

/**
 * A third-party integration of an organization. Secrets are one AES-256-GCM envelope
 * (key id inside, src/domain/secrets/crypto.ts) and never leave the service. At most one
 * enabled integration per type (partial unique index).
 */
export const Integration = defineEntity({
  name: 'Integration',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    organizationId: p.uuid(),
    integrationType: p.integer(),
    provider: p.string().length(50),
    displayName: p.string().length(200),
    isEnabled: p.boolean().default(true),
    configuration: p.json<Record<string, string>>(),
    secretsCiphertext: p.text().nullable(),
    createdBy: p.string().length(100).nullable(),
    lastTestedAt: p.datetime().nullable(),
    lastTestResult: p.json<IntegrationTestResult>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  indexes: [{ name: 'integration_org_type_index', properties: ['organizationId', 'integrationType'] }],
  uniques: [
    {
      name: 'integration_one_enabled_per_type',
      expression: 'create unique index "integration_one_enabled_per_type" on "integration" ("organization_id", "integration_type") where "is_enabled"',
    },
  ],
});
export type Integration = InferEntity<typeof Integration>;
