/**
 * Category use cases: the tree, the children of a named category, and the Admin upsert
 * (DESIGN "Decisions": PUT /api/categories upserts { name, parentName, active }).
 * Customer tokens see only active categories (an inactive category hides its subtree).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { buildCategoryTree, findCategory, wouldCreateCycle, type CategoryNode, type CategoryRow } from '../../domain/categories/index.js';
import { Category } from '../../entities/index.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { escapeLike } from '../../http/paging.js';

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

/** GET /api/categories: root categories with nested subCategories. */
export async function categoryTree(em: EntityManager, orgId: string, auth: Principal): Promise<CategoryNode[]> {
  return buildCategoryTree(await rowsOf(em, orgId), { activeOnly: activeOnly(auth) });
}

/** GET /api/categories/{category}: the direct children of the category named (case-insensitive). */
export async function categoryChildren(em: EntityManager, orgId: string, auth: Principal, name: string): Promise<CategoryNode[]> {
  const node = findCategory(await categoryTree(em, orgId, auth), name);
  if (!node) throw AppError.notFound('Category');
  return node.subCategories;
}

export interface CategoryInput {
  name: string;
  parentName?: string | null;
  active: boolean;
}

/** PUT /api/categories: create or update by name (case-insensitive) with its parent and active flag. */
export async function upsertCategory(em: EntityManager, orgId: string, body: CategoryInput): Promise<{ category: CategoryNode; created: boolean }> {
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
  return { category: findCategory(buildCategoryTree(await rowsOf(em, orgId)), cat.name)!, created: creating };
}
