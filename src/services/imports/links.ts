/**
 * Set-based applier for `user-customer-links` (the POST /api/organizations/users/associate-customer
 * body): one read of members, customers and current links for the chunk, then one
 * INSERT ... ON CONFLICT (organization_id, user_id) DO UPDATE ... WHERE the customer differs.
 */
import { randomUUID } from 'node:crypto';
import type { FieldErrors } from '../../errors.js';
import { associationSchema, type AssociationInput } from '../../domain/customers/schemas.js';
import type { ApplyContext, ChunkOutcome, ChunkRecord } from './types.js';
import { validateRecord } from './validate-record.js';

export async function applyLinks(ctx: ApplyContext, records: ChunkRecord[]): Promise<ChunkOutcome> {
  const { sql, orgId } = ctx;
  const out: ChunkOutcome = { created: 0, updated: 0, unchanged: 0, failures: [] };
  const ok: { rec: ChunkRecord; value: AssociationInput }[] = [];
  for (const rec of records) {
    const v = validateRecord<AssociationInput>(associationSchema, rec);
    if ('errors' in v) out.failures.push({ n: rec.n, errors: v.errors });
    else ok.push({ rec, value: v.value });
  }
  const userIds = [...new Set(ok.map((x) => x.value.UserId.toLowerCase()))];
  const numbers = [...new Set(ok.map((x) => x.value.CustomerNumber))];
  const members = new Set(
    (await sql<{ user_id: string }>('select user_id from organization_member where organization_id = $1 and user_id = any($2::uuid[])', [orgId, userIds])).map((m) => m.user_id),
  );
  const customers = new Map(
    (await sql<{ id: string; customer_number: string }>('select id, customer_number from customer where organization_id = $1 and customer_number = any($2::text[])', [orgId, numbers])).map(
      (c) => [c.customer_number, c.id],
    ),
  );
  const links = new Map(
    (await sql<{ user_id: string; customer_id: string }>('select user_id, customer_id from user_customer where organization_id = $1 and user_id = any($2::uuid[])', [orgId, userIds])).map((l) => [
      l.user_id,
      l.customer_id,
    ]),
  );
  const writes = new Map<string, string>();
  for (const { rec, value } of ok) {
    const userId = value.UserId.toLowerCase();
    const errors: FieldErrors = {};
    if (!members.has(userId)) errors.UserId = ['The user is not a member of this organization.'];
    const customerId = customers.get(value.CustomerNumber);
    if (!customerId) errors.CustomerNumber = ['No customer with this number in the organization.'];
    if (Object.keys(errors).length) {
      out.failures.push({ n: rec.n, errors });
      continue;
    }
    const current = links.get(userId);
    if (current === customerId) out.unchanged += 1;
    else {
      out[current ? 'updated' : 'created'] += 1;
      links.set(userId, customerId!);
      writes.set(userId, customerId!);
    }
  }
  if (ctx.write && writes.size)
    await sql(
      `insert into user_customer (id, organization_id, user_id, customer_id, created_at, updated_at)
       select r.id, $1, r.user_id, r.customer_id, now(), now() from jsonb_to_recordset($2::jsonb) as r(id uuid, user_id uuid, customer_id uuid)
       on conflict (organization_id, user_id) do update set customer_id = excluded.customer_id, updated_at = now()
        where user_customer.customer_id is distinct from excluded.customer_id`,
      [orgId, JSON.stringify([...writes].map(([user_id, customer_id]) => ({ id: randomUUID(), user_id, customer_id })))],
    );
  return out;
}
