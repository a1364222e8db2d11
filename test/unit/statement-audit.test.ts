import { unscopedScans, type PlanNode } from '../../scripts/lib/statement-audit';

const tenant = new Set(['invoice', 'cart', 'cart_item', 'product']);
const tenantLed = new Set(['invoice_pkey', 'cart_pkey', 'product_pkey', 'product_org_sku_unique']);
const scans = (plan: PlanNode) => unscopedScans(plan, tenant, tenantLed);

describe('unscopedScans', () => {
  it('flags a tenant-led key used without organization_id (a skip scan)', () => {
    const plan: PlanNode = {
      'Node Type': 'ModifyTable',
      Plans: [{ 'Node Type': 'Index Scan', 'Relation Name': 'invoice', 'Index Name': 'invoice_pkey', 'Index Cond': '(id = $2)' }],
    };
    expect(scans(plan)).toEqual(['Index Scan using invoice_pkey without organization_id ((id = $2))']);
  });

  it('accepts the same key with organization_id in its condition', () => {
    const plan: PlanNode = {
      'Node Type': 'Index Scan',
      'Relation Name': 'invoice',
      'Index Name': 'invoice_pkey',
      'Index Cond': '((organization_id = $1) AND (id = $2))',
    };
    expect(scans(plan)).toEqual([]);
  });

  it('finds bitmap index scans and nodes deep in joins', () => {
    const plan: PlanNode = {
      'Node Type': 'Nested Loop',
      Plans: [
        { 'Node Type': 'Index Scan', 'Relation Name': 'cart', 'Index Name': 'cart_pkey', 'Index Cond': '((organization_id = $1) AND (id = $2))' },
        {
          'Node Type': 'Bitmap Heap Scan',
          'Relation Name': 'product',
          Plans: [{ 'Node Type': 'Bitmap Index Scan', 'Index Name': 'product_org_sku_unique', 'Index Cond': '(sku = $3)' }],
        },
      ],
    };
    expect(scans(plan)).toEqual(['Bitmap Index Scan using product_org_sku_unique without organization_id ((sku = $3))']);
  });

  it('accepts an index that does not lead with organization_id (a child read by its parent)', () => {
    const plan: PlanNode = {
      'Node Type': 'Index Scan',
      'Relation Name': 'cart_item',
      'Index Name': 'cart_item_cart_id_index',
      'Index Cond': '(cart_id = c.id)',
    };
    expect(scans(plan)).toEqual([]);
  });

  it('flags a sequential scan of a tenant table, not of a reference table', () => {
    expect(scans({ 'Node Type': 'Seq Scan', 'Relation Name': 'cart', Filter: "(status = 'PENDING'::text)" })).toEqual([
      "Seq Scan on cart (filter (status = 'PENDING'::text))",
    ]);
    expect(scans({ 'Node Type': 'Seq Scan', 'Relation Name': 'app_user' })).toEqual([]);
  });
});
