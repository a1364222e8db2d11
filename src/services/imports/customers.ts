/**
 * Set-based applier for `customers` (the PUT /api/customers body). The upsert rules are the
 * domain's own (`upsertCustomer` over a store): here the store is an in-memory view of the
 * chunk's stored customers, loaded with one query, and the writes are collected and flushed as
 * a few multi-row statements. A record equal to what is stored counts unchanged and writes nothing.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../../errors.js';
import type { AddressInput, ContactInput, CustomerFields, CustomerInput } from '../../domain/customers/rules.js';
import { customerUpsertSchema } from '../../domain/customers/schemas.js';
import { salesRepCustomerRules, withRepDefault } from '../../domain/customers/rep-rules.js';
import { upsertCustomer, type CustomerStore } from '../../domain/customers/upsert.js';
import type { ApplyContext, ChunkOutcome, ChunkRecord } from './types.js';
import { ADOPT_UNLINKED_SQL } from '../customers/links.js';
import { stableJson } from '../../domain/json.js';
import { validateRecord } from './validate-record.js';

interface Held {
  id: string;
  customerNumber: string;
  externalId: string | null;
  fields: CustomerFields;
}

const ADDRESS_KEYS = ['externalId', 'line1', 'line2', 'city', 'state', 'postalCode', 'country', 'addressType', 'phone', 'isPrimary'] as const;
const CONTACT_KEYS = ['externalId', 'title', 'firstName', 'lastName', 'email', 'phone', 'fax', 'isPrimary', 'contactType'] as const;

/** Every key present, null for absent, isPrimary false by default (as the endpoint stores them). */
function normalize<T extends object>(keys: readonly string[], item: T): Record<string, unknown> {
  const src = item as Record<string, unknown>;
  return Object.fromEntries(keys.map((k) => [k, k === 'isPrimary' ? src[k] === true : (src[k] ?? null)]));
}
const normAddresses = (xs: AddressInput[]) => xs.map((a) => normalize(ADDRESS_KEYS, a));
const normContacts = (xs: ContactInput[]) => xs.map((c) => normalize(CONTACT_KEYS, c));

const SCALARS = ['customerNumber', 'externalId', 'companyName', 'companyEmail', 'companyPhone', 'companyFax', 'pricing', 'active', 'repNumber', 'terms', 'customerAttributes'] as const;
const scalarsOf = (f: CustomerFields) => Object.fromEntries(SCALARS.map((k) => [k, f[k]]));

const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

interface Row {
  id: string;
  customer_number: string;
  external_id: string | null;
  company_name: string;
  company_email: string;
  company_phone: string | null;
  company_fax: string | null;
  pricing: string;
  active: boolean;
  rep_number: string | null;
  terms: string | null;
  customer_attributes: Record<string, string> | null;
}

const toRow = (id: string, f: CustomerFields): Row => ({
  id,
  customer_number: f.customerNumber,
  external_id: f.externalId,
  company_name: f.companyName,
  company_email: f.companyEmail,
  company_phone: f.companyPhone,
  company_fax: f.companyFax,
  pricing: f.pricing,
  active: f.active,
  rep_number: f.repNumber,
  terms: f.terms,
  customer_attributes: f.customerAttributes,
});
const ROW_COLS: [keyof Row, string][] = [
  ['id', 'uuid'],
  ['customer_number', 'text'],
  ['external_id', 'text'],
  ['company_name', 'text'],
  ['company_email', 'text'],
  ['company_phone', 'text'],
  ['company_fax', 'text'],
  ['pricing', 'text'],
  ['active', 'boolean'],
  ['rep_number', 'text'],
  ['terms', 'text'],
  ['customer_attributes', 'jsonb'],
];
const DATA = ROW_COLS.map(([c]) => c).filter((c) => c !== 'id');
const recordset = `jsonb_to_recordset($2::jsonb) as r(${ROW_COLS.map(([c, t]) => `${c} ${t}`).join(', ')})`;

/** `customers`: upsert by externalId or customerNumber, never a duplicate. */
export async function applyCustomers(ctx: ApplyContext, records: ChunkRecord[]): Promise<ChunkOutcome> {
  const { sql, orgId } = ctx;
  const out: ChunkOutcome = { created: 0, updated: 0, unchanged: 0, failures: [] };
  const ok: { rec: ChunkRecord; value: CustomerInput }[] = [];
  for (const rec of records) {
    const v = validateRecord<CustomerInput>(customerUpsertSchema, rec);
    if ('errors' in v) out.failures.push({ n: rec.n, errors: v.errors });
    else ok.push({ rec, value: defined(v.value) });
  }
  const numbers = ok.map((x) => x.value.customerNumber!).filter(Boolean);
  const externalIds = ok.map((x) => x.value.externalId).filter((x): x is string => !!x);
  const rows = await sql<Row>(
    `select id, customer_number, external_id, company_name, company_email, company_phone, company_fax, pricing, active, rep_number, terms, customer_attributes
       from customer where organization_id = $1 and (customer_number = any($2::text[]) or external_id = any($3::text[]))`,
    [orgId, numbers, externalIds],
  );
  const ids = rows.map((r) => r.id);
  const addresses = ids.length
    ? await sql<Record<string, unknown> & { customer_id: string }>(
        `select customer_id, external_id as "externalId", line1, line2, city, state, postal_code as "postalCode", country, address_type as "addressType", phone, is_primary as "isPrimary"
           from customer_address where customer_id = any($1::uuid[]) order by customer_id, position`,
        [ids],
      )
    : [];
  const contacts = ids.length
    ? await sql<Record<string, unknown> & { customer_id: string }>(
        `select customer_id, external_id as "externalId", title, first_name as "firstName", last_name as "lastName", email, phone, fax, is_primary as "isPrimary", contact_type as "contactType"
           from customer_contact where customer_id = any($1::uuid[]) order by customer_id, position`,
        [ids],
      )
    : [];
  const tiers = await sql<{ name: string }>('select name from price_tier where organization_id = $1', [orgId]);
  // Rows come from one SQL read with the child table's columns; T names the row shape the caller selected.
  const childrenOf = <T>(list: (Record<string, unknown> & { customer_id: string })[], id: string) =>
    list.filter((x) => x.customer_id === id).map(({ customer_id: _c, ...rest }) => rest as unknown as T);

  const held = rows.map<Held>((r) => ({
    id: r.id,
    customerNumber: r.customer_number,
    externalId: r.external_id,
    fields: {
      customerNumber: r.customer_number,
      externalId: r.external_id,
      companyName: r.company_name,
      companyEmail: r.company_email,
      companyPhone: r.company_phone,
      companyFax: r.company_fax,
      pricing: r.pricing,
      active: r.active,
      repNumber: r.rep_number,
      terms: r.terms,
      addresses: childrenOf<AddressInput>(addresses, r.id),
      contacts: childrenOf<ContactInput>(contacts, r.id),
      customerAttributes: r.customer_attributes ?? {},
    },
  }));
  const byNumber = new Map(held.map((h) => [h.customerNumber, h]));
  const byExternalId = new Map(held.filter((h) => h.externalId).map((h) => [h.externalId!, h]));
  const created = new Set<string>();
  const changed = new Set<string>();
  const childrenChanged = new Set<string>();
  let last: 'created' | 'updated' | 'unchanged' = 'unchanged';

  const index = (h: Held) => {
    byNumber.set(h.customerNumber, h);
    if (h.externalId) byExternalId.set(h.externalId, h);
  };
  const store: CustomerStore<Held> = {
    findByExternalId: async (x) => byExternalId.get(x) ?? null,
    findByNumber: async (n) => byNumber.get(n) ?? null,
    tierName: async (name) => tiers.find((t) => t.name.toLowerCase() === name.toLowerCase())?.name ?? null,
    fields: (h) => h.fields,
    async create(f) {
      // normAddresses/normContacts return the stored (all-keys, null-for-absent) form of the same inputs.
      const fields = { ...f, addresses: normAddresses(f.addresses) as unknown as AddressInput[], contacts: normContacts(f.contacts) as unknown as ContactInput[] };
      const h: Held = { id: randomUUID(), customerNumber: f.customerNumber, externalId: f.externalId, fields };
      index(h);
      created.add(h.id);
      childrenChanged.add(h.id);
      last = 'created';
      return h;
    },
    async update(h, f) {
      const before = h.fields;
      const sameScalars = stableJson(scalarsOf(before)) === stableJson(scalarsOf(f));
      const a = normAddresses(f.addresses);
      const c = normContacts(f.contacts);
      const sameChildren = stableJson(normAddresses(before.addresses)) === stableJson(a) && stableJson(normContacts(before.contacts)) === stableJson(c);
      if (sameScalars && sameChildren) {
        last = 'unchanged';
        return h;
      }
      if (before.customerNumber !== f.customerNumber) byNumber.delete(before.customerNumber);
      if (before.externalId && before.externalId !== f.externalId) byExternalId.delete(before.externalId);
      h.customerNumber = f.customerNumber;
      h.externalId = f.externalId;
      // The stored (all-keys, null-for-absent) form of the same inputs, as in create().
      h.fields = { ...f, addresses: a as unknown as AddressInput[], contacts: c as unknown as ContactInput[] };
      index(h);
      if (!sameScalars && !created.has(h.id)) changed.add(h.id);
      if (!sameChildren) childrenChanged.add(h.id);
      last = 'updated';
      return h;
    },
  };

  // A SalesRep's records (DESIGN "Security decisions"): its own customers only, never their tier or terms (403 per record).
  const caller = ctx.caller;
  const rules = caller ? salesRepCustomerRules<Held>(caller.repNumber) : {};
  for (const { rec, value } of ok) {
    try {
      await upsertCustomer(store, caller ? withRepDefault(caller.repNumber, value) : value, rules);
      out[last] += 1;
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      out.failures.push({ n: rec.n, errors: e.errors ?? { customerNumber: [e.message] }, ...(e.kind === 'forbidden' ? { kind: 'forbidden' as const } : {}) });
    }
  }
  if (!ctx.write) return out;

  const all = [...new Set([...byNumber.values()])];
  const creates = all.filter((h) => created.has(h.id)).map((h) => toRow(h.id, h.fields));
  const updates = all.filter((h) => changed.has(h.id)).map((h) => toRow(h.id, h.fields));
  const cols = ROW_COLS.map(([c]) => c).join(', ');
  if (creates.length)
    await sql(`insert into customer (${cols}, organization_id, created_at, updated_at) select ${ROW_COLS.map(([c]) => `r.${c}`).join(', ')}, $1, now(), now() from ${recordset}`, [
      orgId,
      JSON.stringify(creates),
    ]);
  if (updates.length)
    await sql(
      `update customer c set ${DATA.map((x) => `${x} = r.${x}`).join(', ')}, updated_at = now() from ${recordset}
        where c.organization_id = $1 and c.id = r.id and (${DATA.map((x) => `c.${x}`).join(', ')}) is distinct from (${DATA.map((x) => `r.${x}`).join(', ')})`,
      [orgId, JSON.stringify(updates)],
    );
  // Customers created or renumbered take the unlinked orders and invoices of their number (src/services/customers/links.ts).
  const linked = all.filter((h) => created.has(h.id) || changed.has(h.id)).map((h) => h.id);
  if (linked.length) for (const q of ADOPT_UNLINKED_SQL) await sql(q, [orgId, linked]);
  const kids = all.filter((h) => childrenChanged.has(h.id));
  if (kids.length) {
    const ids2 = kids.filter((h) => !created.has(h.id)).map((h) => h.id);
    if (ids2.length) {
      await sql('delete from customer_address where organization_id = $1 and customer_id = any($2::uuid[])', [orgId, ids2]);
      await sql('delete from customer_contact where organization_id = $1 and customer_id = any($2::uuid[])', [orgId, ids2]);
      await sql('update customer set updated_at = now() where organization_id = $1 and id = any($2::uuid[])', [orgId, ids2]);
    }
    const addr = kids.flatMap((h) => h.fields.addresses.map((a, position) => ({ ...a, customer_id: h.id, position })));
    const cont = kids.flatMap((h) => h.fields.contacts.map((c, position) => ({ ...c, customer_id: h.id, position })));
    if (addr.length)
      await sql(
        `insert into customer_address (id, organization_id, customer_id, position, external_id, line1, line2, city, state, postal_code, country, address_type, phone, is_primary)
         select gen_random_uuid(), $2, r.customer_id, r.position, r."externalId", r.line1, r.line2, r.city, r.state, r."postalCode", r.country, r."addressType", r.phone, r."isPrimary"
           from jsonb_to_recordset($1::jsonb) as r(customer_id uuid, position int, "externalId" text, line1 text, line2 text, city text, state text, "postalCode" text, country text, "addressType" text, phone text, "isPrimary" boolean)`,
        [JSON.stringify(addr), orgId],
      );
    if (cont.length)
      await sql(
        `insert into customer_contact (id, organization_id, customer_id, position, external_id, title, first_name, last_name, email, phone, fax, is_primary, contact_type)
         select gen_random_uuid(), $2, r.customer_id, r.position, r."externalId", r.title, r."firstName", r."lastName", r.email, r.phone, r.fax, r."isPrimary", r."contactType"
           from jsonb_to_recordset($1::jsonb) as r(customer_id uuid, position int, "externalId" text, title text, "firstName" text, "lastName" text, email text, phone text, fax text, "isPrimary" boolean, "contactType" text)`,
        [JSON.stringify(cont), orgId],
      );
  }
  return out;
}
