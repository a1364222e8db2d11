/**
 * Customer catalogs (`/api/catalogs`, docs/catalogs.md): a named product selection (SKUs and
 * categories, each Include or Exclude) assigned to customers and/or price tiers. Admins write;
 * sales reps read (the customers listed are only theirs). What a catalog does to a customer's
 * reads, lists and orders is src/services/catalog/catalog-visibility.ts.
 *
 * Writes are set-based (one statement per table whatever the number of selections or
 * assignments) in one transaction; selections and assignments given in a write replace the
 * catalog's, absent ones are left as they are.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { UUID_RE } from '../../domain/schemas.js';
import { Catalog, CatalogSelection } from '../../entities/index.js';
import { AppError, isUniqueViolation, type FieldErrors } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { dataEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { boundRows } from '../../db/orm-sql.js';
import { visibleCustomerNumbers } from '../customers/visibility.js';

export type SelectionMode = 'Include' | 'Exclude';

export interface SelectionInput {
  sku?: string | null;
  category?: string | null;
  mode?: SelectionMode | null;
}

export interface CatalogInput {
  name?: string;
  description?: string | null;
  selections?: SelectionInput[] | null;
  customerNumbers?: string[] | null;
  priceTiers?: string[] | null;
}

export interface CatalogView {
  catalogId: string;
  organizationId: string;
  name: string;
  description: string | null;
  selectionCount: number;
  customerNumbers: string[];
  priceTiers: string[];
  createdAt: string;
  updatedAt: string;
}

export interface SelectionView {
  selectionId: string;
  mode: SelectionMode;
  sku: string | null;
  category: string | null;
  createdAt: string;
}

/** The catalog with its counts and assignments in one statement ($1 organization, $2 catalog id). */
const VIEW_SQL = `select k.id, k.organization_id, k.name, k.description, k.created_at, k.updated_at,
    (select count(*)::int from catalog_selection s where s.organization_id = k.organization_id and s.catalog_id = k.id) as selection_count,
    coalesce((select array_agg(c.customer_number order by c.customer_number) from catalog_assignment a
                join customer c on c.organization_id = a.organization_id and c.id = a.customer_id
               where a.organization_id = k.organization_id and a.catalog_id = k.id), '{}') as customer_numbers,
    coalesce((select array_agg(t.name order by t.name) from catalog_assignment a
                join price_tier t on t.organization_id = a.organization_id and t.id = a.price_tier_id
               where a.organization_id = k.organization_id and a.catalog_id = k.id), '{}') as price_tiers
  from catalog k where k.organization_id = $1 and k.id = any($2::uuid[])`;

interface ViewRow {
  id: string;
  organization_id: string;
  name: string;
  description: string | null;
  created_at: Date;
  updated_at: Date;
  selection_count: number;
  customer_numbers: string[];
  price_tiers: string[];
}

/** Catalog views by id, in the order given; a sales rep sees only its own customers among the assigned ones. */
async function viewsOf(em: EntityManager, orgId: string, auth: Principal, ids: string[]): Promise<CatalogView[]> {
  if (!ids.length) return [];
  const rows = await boundRows<ViewRow>(em, VIEW_SQL, [orgId, ids]);
  const visible = await visibleCustomerNumbers(em, orgId, auth);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids
    .map((id) => byId.get(id))
    .filter((r): r is ViewRow => !!r)
    .map((r) => ({
      catalogId: r.id,
      organizationId: r.organization_id,
      name: r.name,
      description: r.description,
      selectionCount: r.selection_count,
      customerNumbers: visible === null ? r.customer_numbers : r.customer_numbers.filter((n) => visible.includes(n)),
      priceTiers: r.price_tiers,
      createdAt: new Date(r.created_at).toISOString(),
      updatedAt: new Date(r.updated_at).toISOString(),
    }));
}

/** The catalog (404 when absent or another organization's). */
async function findCatalog(em: EntityManager, orgId: string, catalogId: string): Promise<Catalog> {
  const c = UUID_RE.test(catalogId) ? await em.findOne(Catalog, { organizationId: orgId, id: catalogId }) : null;
  if (!c) throw AppError.notFound('Catalog');
  return c;
}

/** GET /api/catalogs/{catalogId}. */
export async function readCatalog(em: EntityManager, orgId: string, auth: Principal, catalogId: string): Promise<CatalogView> {
  const c = await findCatalog(em, orgId, catalogId);
  return (await viewsOf(em, orgId, auth, [c.id]))[0];
}

export const catalogListSpec: ListSpec = {
  filters: { name: { prop: 'name', type: 'string' }, description: { prop: 'description', type: 'string' } },
  sorts: { Name: 'name', CreatedAt: 'createdAt', UpdatedAt: 'updatedAt' },
  defaultSort: 'Name',
};

/** GET /api/catalogs: paged, sorted and filtered per `catalogListSpec`. */
export async function listCatalogs(em: EntityManager, orgId: string, auth: Principal, query: Record<string, unknown>) {
  const q = parseList(query, catalogListSpec);
  const [rows, total] = await em.findAndCount(Catalog, { $and: [{ organizationId: orgId }, q.where as FilterQuery<Catalog>] }, {
    fields: ['id'],
    orderBy: [q.orderBy, { id: 'asc' }],
    limit: q.pageSize,
    offset: q.offset,
  });
  return dataEnvelope(await viewsOf(em, orgId, auth, rows.map((r) => r.id)), total, q);
}

export const selectionListSpec: ListSpec = {
  filters: { sku: { prop: 'sku', type: 'string' }, category: { prop: 'categoryName', type: 'string' }, mode: { prop: 'mode', type: 'string' } },
  sorts: { Sku: 'sku', Category: 'categoryName', Mode: 'mode', CreatedAt: 'createdAt' },
  defaultSort: 'CreatedAt',
};

/** GET /api/catalogs/{catalogId}/selections: the catalog's rules, paged and filtered. */
export async function listSelections(em: EntityManager, orgId: string, catalogId: string, query: Record<string, unknown>) {
  const q = parseList(query, selectionListSpec);
  const c = await findCatalog(em, orgId, catalogId);
  const [rows, total] = await em.findAndCount(
    CatalogSelection,
    { $and: [{ organizationId: orgId, catalogId: c.id }, q.where as FilterQuery<CatalogSelection>] },
    { orderBy: [q.orderBy, { id: 'asc' }], limit: q.pageSize, offset: q.offset },
  );
  const data: SelectionView[] = rows.map((s) => ({ selectionId: s.id, mode: s.mode, sku: s.sku ?? null, category: s.categoryName ?? null, createdAt: s.createdAt.toISOString() }));
  return dataEnvelope(data, total, q);
}

interface ResolvedSelection {
  mode: SelectionMode;
  sku: string | null;
  categoryId: string | null;
  categoryName: string | null;
}

/** Selections with their categories resolved (by name, case-insensitive); every bad entry named. */
async function resolveSelections(em: EntityManager, orgId: string, input: SelectionInput[], errors: FieldErrors): Promise<ResolvedSelection[]> {
  const names = [...new Set(input.filter((s) => s.category).map((s) => s.category!.toLowerCase()))];
  const cats = names.length
    ? await boundRows<{ id: string; name: string }>(em, 'select id, name from category where organization_id = $1 and lower(name) = any($2::text[])', [orgId, names])
    : [];
  const byName = new Map(cats.map((c) => [c.name.toLowerCase(), c]));
  const seen = new Map<string, number>();
  const out: ResolvedSelection[] = [];
  input.forEach((s, i) => {
    const sku = s.sku?.trim() || null;
    const category = s.category?.trim() || null;
    if (!sku === !category) {
      errors[`selections[${i}]`] = ['Give exactly one of sku or category.'];
      return;
    }
    const cat = category ? byName.get(category.toLowerCase()) : undefined;
    if (category && !cat) {
      errors[`selections[${i}].category`] = [`No category named "${category}".`];
      return;
    }
    const key = sku ? `s:${sku}` : `c:${cat!.id}`;
    const first = seen.get(key);
    if (first !== undefined) {
      errors[`selections[${i}]`] = [`selections[${first}] already names this ${sku ? 'sku' : 'category'}; give each once (Include or Exclude).`];
      return;
    }
    seen.set(key, i);
    out.push({ mode: s.mode ?? 'Include', sku, categoryId: cat?.id ?? null, categoryName: cat?.name ?? null });
  });
  return out;
}

/** Customer ids and price tier ids of the assignments; unknown ones are named. */
async function resolveAssignments(em: EntityManager, orgId: string, input: CatalogInput, errors: FieldErrors) {
  let customerIds: string[] | null = null;
  let tierIds: string[] | null = null;
  if (input.customerNumbers) {
    const numbers = [...new Set(input.customerNumbers)];
    const rows = numbers.length
      ? await boundRows<{ id: string; customer_number: string }>(em, 'select id, customer_number from customer where organization_id = $1 and customer_number = any($2::text[])', [orgId, numbers])
      : [];
    const byNumber = new Map(rows.map((r) => [r.customer_number, r.id]));
    input.customerNumbers.forEach((n, i) => {
      if (!byNumber.has(n)) errors[`customerNumbers[${i}]`] = [`No customer with number "${n}".`];
    });
    customerIds = [...byNumber.values()];
  }
  if (input.priceTiers) {
    const names = [...new Set(input.priceTiers.map((t) => t.toLowerCase()))];
    const rows = names.length
      ? await boundRows<{ id: string; name: string }>(em, 'select id, name from price_tier where organization_id = $1 and lower(name) = any($2::text[])', [orgId, names])
      : [];
    const byName = new Map(rows.map((r) => [r.name.toLowerCase(), r.id]));
    input.priceTiers.forEach((t, i) => {
      if (!byName.has(t.toLowerCase())) errors[`priceTiers[${i}]`] = [`No price tier named "${t}".`];
    });
    tierIds = [...byName.values()];
  }
  return { customerIds, tierIds };
}

/** Replaces the catalog's selections (one delete, one insert). */
export async function replaceSelections(em: EntityManager, orgId: string, catalogId: string, rows: ResolvedSelection[]): Promise<void> {
  await boundRows(em, 'delete from catalog_selection where organization_id = $1 and catalog_id = $2', [orgId, catalogId]);
  if (!rows.length) return;
  await boundRows(
    em,
    `insert into catalog_selection (organization_id, id, catalog_id, mode, sku, category_id, category_name, created_at)
     select $1::uuid, gen_random_uuid(), $2::uuid, x.mode, x.sku, x.category_id, x.category_name, now() + (x.n * interval '1 microsecond')
       from unnest($3::text[], $4::text[], $5::uuid[], $6::text[]) with ordinality x(mode, sku, category_id, category_name, n)`,
    [orgId, catalogId, rows.map((r) => r.mode), rows.map((r) => r.sku), rows.map((r) => r.categoryId), rows.map((r) => r.categoryName)],
  );
}

/** Replaces the catalog's customer assignments, tier assignments, or both (null: left as they are). */
export async function replaceAssignments(em: EntityManager, orgId: string, catalogId: string, customerIds: string[] | null, tierIds: string[] | null): Promise<void> {
  if (customerIds) {
    await boundRows(em, 'delete from catalog_assignment where organization_id = $1 and catalog_id = $2 and customer_id is not null', [orgId, catalogId]);
    await boundRows(
      em,
      `insert into catalog_assignment (organization_id, id, catalog_id, customer_id, created_at) select $1::uuid, gen_random_uuid(), $2::uuid, x, now() from unnest($3::uuid[]) x`,
      [orgId, catalogId, customerIds],
    );
  }
  if (tierIds) {
    await boundRows(em, 'delete from catalog_assignment where organization_id = $1 and catalog_id = $2 and price_tier_id is not null', [orgId, catalogId]);
    await boundRows(
      em,
      `insert into catalog_assignment (organization_id, id, catalog_id, price_tier_id, created_at) select $1::uuid, gen_random_uuid(), $2::uuid, x, now() from unnest($3::uuid[]) x`,
      [orgId, catalogId, tierIds],
    );
  }
}

const duplicateName = (name: string) => AppError.conflict(`A catalog named "${name}" already exists in this organization.`);

/** POST /api/catalogs (catalogId absent) and PUT /api/catalogs/{catalogId}: one transaction; 400 names every bad field. */
export async function saveCatalog(em: EntityManager, orgId: string, auth: Principal, input: CatalogInput, catalogId?: string): Promise<CatalogView> {
  const existing = catalogId === undefined ? null : await findCatalog(em, orgId, catalogId);
  const errors: FieldErrors = {};
  if (!existing && !input.name?.trim()) errors.name = ['name is required.'];
  const selections = input.selections ? await resolveSelections(em, orgId, input.selections, errors) : null;
  const { customerIds, tierIds } = await resolveAssignments(em, orgId, input, errors);
  if (Object.keys(errors).length) throw AppError.validation(errors, 'The catalog is not valid.');
  const id = existing?.id ?? randomUUID();
  try {
    await em.transactional(async (tx) => {
      if (existing) {
        await boundRows(tx, 'update catalog set name = coalesce($3, name), description = case when $4::boolean then $5 else description end, updated_at = now() where organization_id = $1 and id = $2', [
          orgId,
          id,
          input.name?.trim() ?? null,
          input.description !== undefined,
          input.description ?? null,
        ]);
      } else {
        await boundRows(tx, 'insert into catalog (organization_id, id, name, description, created_at, updated_at) values ($1, $2, $3, $4, now(), now())', [orgId, id, input.name!.trim(), input.description ?? null]);
      }
      if (selections) await replaceSelections(tx, orgId, id, selections);
      await replaceAssignments(tx, orgId, id, customerIds, tierIds);
    });
  } catch (e) {
    if (isUniqueViolation(e, 'catalog_org_name_unique')) throw duplicateName(input.name!.trim());
    throw e;
  }
  return (await viewsOf(em, orgId, auth, [id]))[0];
}

/** DELETE /api/catalogs/{catalogId}: its selections and assignments go with it (customers it held see what their other catalogs, or everything, hold). */
export async function deleteCatalog(em: EntityManager, orgId: string, catalogId: string): Promise<void> {
  const c = await findCatalog(em, orgId, catalogId);
  await boundRows(em, 'delete from catalog where organization_id = $1 and id = $2', [orgId, c.id]);
}
