import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';

/**
 * Exact row counts per organization and table (`kind`: 'product'), maintained ONLY by
 * PostgreSQL statement-level triggers in the same transaction as the write (migration
 * Migration20261124203000_read_caches), so an unfiltered list's total is one primary-key read
 * instead of a count over the tenant's rows (docs/decisions.md "Read path"). `active` counts
 * the rows a Customer or SalesRep sees. The application never writes it.
 */
export const RowCount = defineEntity({
  name: 'RowCount',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade'),
    kind: p.string().length(20).primary(),
    total: p.bigint().default(0),
    active: p.bigint().default(0),
  },
});
export type RowCount = InferEntity<typeof RowCount>;
