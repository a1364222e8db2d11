import { buildCategoryTree, findCategory, wouldCreateCycle } from '../../src/domain/categories/index';

const org = 'org-1';
const row = (id: string, name: string, parentId: string | null, active = true) => ({ id, organizationId: org, name, parentId, active, imageUrl: null });
const rows = [row('1', 'Tools', null), row('2', 'Hammers', '1'), row('3', 'Claw', '2'), row('4', 'Apparel', null), row('5', 'Saws', '1', false)];

describe('category tree', () => {
  test('when rows are nested, then roots are sorted by name with subCategories and breadcrumbs', () => {
    const tree = buildCategoryTree(rows);
    expect(tree.map((n) => n.name)).toEqual(['Apparel', 'Tools']);
    const tools = tree[1];
    expect(tools.subCategories.map((n) => n.name)).toEqual(['Hammers', 'Saws']);
    expect(tools.subCategories[0].subCategories[0]).toEqual({ id: '3', organizationId: org, name: 'Claw', breadcrumb: 'Tools Hammers Claw', parentId: '2', active: true, imageUrl: null, subCategories: [] });
    expect(tools.breadcrumb).toBe('Tools');
  });
  test('when only active categories are wanted, then inactive ones and their subtrees are left out', () => {
    const tree = buildCategoryTree([...rows, row('6', 'Hand saws', '5')], { activeOnly: true });
    expect(findCategory(tree, 'saws')).toBeNull();
    expect(findCategory(tree, 'hand saws')).toBeNull();
    expect(findCategory(tree, 'CLAW')?.id).toBe('3');
  });
  test('when a parent would be the category itself or a descendant, then it is a cycle', () => {
    expect(wouldCreateCycle(rows, '1', '3')).toBe(true);
    expect(wouldCreateCycle(rows, '2', '2')).toBe(true);
    expect(wouldCreateCycle(rows, '3', '4')).toBe(false);
    expect(wouldCreateCycle(rows, '3', null)).toBe(false);
  });
});
