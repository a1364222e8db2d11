/**
 * POST /api/invoices/bulk for a caller: the import applier in one transaction, limited to what the
 * caller may see (a SalesRep: its assigned customers' invoices; a key naming another invoice is
 * a 404 for its row, nothing changes) and, for a rep, by the rep rules of ./rep-rules.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../http/auth.js';
import { writeScopeOf } from '../imports/scope.js';
import { upsertInvoicesInBulk } from '../imports/sync.js';
import { invoiceLinks } from './invoices.js';
import { repPriced } from './rep-rules.js';

export async function upsertInvoicesFor(em: EntityManager, databaseUrl: string, orgId: string, auth: Principal, entries: unknown[]) {
  const scope = await writeScopeOf(em, orgId, auth);
  if (scope) scope.priceInvoice = (value, stored) => repPriced(em, orgId, auth, value, stored);
  const out = await upsertInvoicesInBulk(databaseUrl, orgId, entries, scope);
  return out.map((r) => ({ data: { id: r.id, invoiceNumber: r.number }, links: invoiceLinks(r.id) }));
}
