/**
 * Category endpoints: the tree, the children of a named category, and the Admin upsert
 * (DESIGN "Decisions": PUT /api/categories upserts { name, parentName, active }).
 * Customer tokens see only active categories (an inactive category hides its subtree).
 */
import { randomUUID } from 'node:crypto';
import { escapeLike } from '../http/paging.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import * as yup from 'yup';
import { buildCategoryTree, findCategory, wouldCreateCycle, type CategoryRow } from '../domain/categories/index.js';
import { Category } from '../entities/index.js';
import { AppError, isUniqueViolation } from '../errors.js';
import type { Principal } from '../http/auth.js';
import { created, defineRoute, ok } from '../http/route.js';


/** The id of the category named `name` (case-insensitive), created at the root when unknown. */
export async function ensureCategory(em: EntityManager, orgId: string, name: string): Promise<string> {
  const conn = em.getConnection();
  const now = new Date();
  await conn.execute(
    `insert into category (id, organization_id, name, parent_id, active, image_url, created_at, updated_at)
     values (?, ?, ?, null, true, null, ?, ?) on conflict (organization_id, lower(name)) do nothing`,
    [randomUUID(), orgId, name, now, now],
  );
  const rows = await conn.execute<{ id: string }[]>('select id from category where organization_id = ? and lower(name) = lower(?)', [orgId, name]);
  return rows[0].id;
}

async function rowsOf(em: EntityManager, orgId: string): Promise<CategoryRow[]> {
  const cats = await em.find(Category, { organization: orgId });
  return cats.map((c) => ({
    id: c.id,
    organizationId: orgId,
    name: c.name,
    parentId: c.parent ? (typeof c.parent === 'string' ? c.parent : (c.parent as { id: string }).id) : null,
    active: c.active,
    imageUrl: c.imageUrl ?? null,
  }));
}

const activeOnly = (auth: Principal) => auth.role === 'Customer' && !auth.isSuper;

const categoryInput = yup.object({
  name: yup.string().trim().min(1).max(255).required(),
  parentName: yup.string().trim().max(255).nullable(),
  active: yup.boolean().default(true),
});

export const categoryRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/categories',
    summary: 'The category tree: root categories with nested subCategories',
    tag: 'Categories',
    auth: ['Admin', 'Customer', 'SalesRep'],
    responses: { 200: '{ categories: [Category] }', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth }) {
      return ok({ categories: buildCategoryTree(await rowsOf(em, orgId), { activeOnly: activeOnly(auth) }) });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/categories/:category',
    summary: 'Direct children of the category named in the path (case-insensitive)',
    tag: 'Categories',
    auth: ['Admin', 'Customer', 'SalesRep'],
    responses: { 200: 'Array of Category (with their subCategories)', 401: 'Unauthenticated', 404: 'No such category' },
    async handler({ em, orgId, auth, params }) {
      const node = findCategory(buildCategoryTree(await rowsOf(em, orgId), { activeOnly: activeOnly(auth) }), params.category);
      if (!node) throw AppError.notFound('Category');
      return ok(node.subCategories);
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/categories',
    summary: 'Create or update a category by name (case-insensitive) with its parent and active flag',
    tag: 'Categories',
    auth: ['Admin'],
    body: categoryInput,
    responses: { 200: 'Updated category', 201: 'Created category', 400: 'Missing name, unknown parentName, or a cycle', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, body }) {
      const find = (name: string) => em.findOne(Category, { organization: orgId, name: { $ilike: escapeLike(name) } });
      const parentName = body.parentName ? body.parentName : null;
      const parent = parentName ? await find(parentName) : null;
      if (parentName && !parent) throw AppError.field('parentName', `No category named "${parentName}".`);
      let cat = await find(body.name);
      const creating = !cat;
      if (cat && parent && wouldCreateCycle(await rowsOf(em, orgId), cat.id, parent.id))
        throw AppError.field('parentName', 'A category cannot be placed under itself or one of its subcategories.');
      if (!cat) cat = em.create(Category, { organization: orgId, name: body.name, parent: parent ?? null, active: body.active });
      else {
        cat.name = body.name;
        cat.parent = parent ?? null;
        cat.active = body.active;
      }
      try {
        await em.flush();
      } catch (e) {
        if (isUniqueViolation(e, 'category_org_name_unique')) throw AppError.conflict(`A category named "${body.name}" already exists.`);
        throw e;
      }
      const node = findCategory(buildCategoryTree(await rowsOf(em, orgId)), cat.name)!;
      return creating ? created(node) : ok(node);
    },
  }),
];
