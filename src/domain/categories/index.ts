/** Category tree rules (pure): nesting, breadcrumbs, cycle checks. */

export interface CategoryRow {
  id: string;
  organizationId: string;
  name: string;
  parentId: string | null;
  active: boolean;
  imageUrl: string | null;
}

export interface CategoryNode extends CategoryRow {
  breadcrumb: string;
  subCategories: CategoryNode[];
}

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' });

/**
 * Nests rows into trees of roots ordered by name. A row whose parent is missing is treated
 * as a root. With `activeOnly`, inactive categories and everything below them are left out.
 */
export function buildCategoryTree(rows: readonly CategoryRow[], opts: { activeOnly?: boolean } = {}): CategoryNode[] {
  const ids = new Set(rows.map((r) => r.id));
  const children = new Map<string | null, CategoryRow[]>();
  for (const r of rows) {
    const parent = r.parentId && ids.has(r.parentId) && r.parentId !== r.id ? r.parentId : null;
    const list = children.get(parent) ?? [];
    list.push(r);
    children.set(parent, list);
  }
  const visited = new Set<string>();
  const build = (row: CategoryRow, trail: string[]): CategoryNode => {
    visited.add(row.id);
    const path = [...trail, row.name];
    const kids = (children.get(row.id) ?? []).filter((c) => !visited.has(c.id) && (!opts.activeOnly || c.active)).sort(byName);
    return {
      id: row.id,
      organizationId: row.organizationId,
      name: row.name,
      breadcrumb: path.join(' '),
      parentId: row.parentId,
      active: row.active,
      imageUrl: row.imageUrl,
      subCategories: kids.map((k) => build(k, path)),
    };
  };
  return (children.get(null) ?? [])
    .filter((r) => !opts.activeOnly || r.active)
    .sort(byName)
    .map((r) => build(r, []));
}

/** Finds a node anywhere in a tree by name, case-insensitively. */
export function findCategory(tree: readonly CategoryNode[], name: string): CategoryNode | null {
  const want = name.toLowerCase();
  for (const n of tree) {
    if (n.name.toLowerCase() === want) return n;
    const hit = findCategory(n.subCategories, name);
    if (hit) return hit;
  }
  return null;
}

/**
 * True when making `parentId` the parent of `categoryId` would create a cycle (the parent is
 * the category itself or one of its descendants).
 */
export function wouldCreateCycle(rows: readonly Pick<CategoryRow, 'id' | 'parentId'>[], categoryId: string, parentId: string | null): boolean {
  const parentOf = new Map(rows.map((r) => [r.id, r.parentId]));
  let cur: string | null = parentId;
  const seen = new Set<string>();
  while (cur) {
    if (cur === categoryId) return true;
    if (seen.has(cur)) return true;
    seen.add(cur);
    cur = parentOf.get(cur) ?? null;
  }
  return false;
}
