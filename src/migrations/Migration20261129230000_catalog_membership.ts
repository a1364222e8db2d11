import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 40 item 6: catalog membership (docs/catalogs.md "How it is computed"). `catalog_member`
 * holds, per catalog, the active products its selection rules admit now; `catalog_member_count`
 * their number. A customer's list page and its exact total read these (a catalog's page is an
 * index range of (organization_id, catalog_id, sku), its total one row), never the rules against
 * the tenant's products.
 *
 * Kept exact in the writing transaction by statement-level triggers with transition tables (like
 * `row_count`), whoever writes (API, bulk, import, a benchmark's plain SQL):
 * - catalog_selection insert/update/delete: the catalogs touched are recomputed from their rules
 *   (`catalog_member_refresh_catalog`: the rules expanded, the difference written);
 * - product insert, and update of sku, category_id or active: those products are re-admitted
 *   against every catalog of the organization (`catalog_member_refresh_products`);
 *   a product delete cascades (foreign key);
 * - category update of parent_id (a move, or a parent deleted): every catalog of the organization
 *   with a category rule is recomputed; a category delete sets its products' category to null
 *   (a product update) and deletes the rules naming it (a selection delete);
 * - catalog_member insert/delete: catalog_member_count adjusted (a catalog delete cascades).
 * Organizations without catalogs pay one primary-key probe per product statement.
 * Every statement names organization_id first in its index condition.
 */
const fn = (sig: string, returns: string, lang: 'sql' | 'plpgsql', body: string) =>
  `create or replace function ${sig} returns ${returns} language ${lang} as $fn$
${body}
$fn$;`;

const FUNCTIONS: string[] = [
  // The active products one catalog's rules admit (an exclusion wins; categories include their subcategories).
  fn(
    'catalog_member_want(org uuid, cat uuid)',
    'table (product_id uuid, sku varchar)',
    'sql',
    `  with recursive sub(mode, category_id, depth) as (
    select s.mode, s.category_id, 0::int from catalog_selection s
     where s.organization_id = org and s.catalog_id = cat and s.category_id is not null
    union all
    select x.mode, c.id, x.depth + 1 from sub x join category c on c.organization_id = org and c.parent_id = x.category_id
     where x.depth < 64
  ),
  candidates as (
    select p.id, p.sku, p.category_id from catalog_selection s
      join product p on p.organization_id = org and p.sku = s.sku and p.active
     where s.organization_id = org and s.catalog_id = cat and s.mode = 'Include' and s.sku is not null
    union all
    select p.id, p.sku, p.category_id from sub x
      join product p on p.organization_id = org and p.category_id = x.category_id and p.active
     where x.mode = 'Include'
  )
  select distinct h.id, h.sku from candidates h
   where not exists (select 1 from catalog_selection e where e.organization_id = org and e.catalog_id = cat and e.mode = 'Exclude' and e.sku = h.sku)
     and not exists (select 1 from sub e where e.mode = 'Exclude' and e.category_id = h.category_id)`,
  ),
  // Recomputes one catalog's members: removes those no longer admitted, adds (or re-skus) the others. One statement: the
  // delete and the upsert touch disjoint rows (those not wanted, those wanted).
  fn(
    'catalog_member_refresh_catalog(org uuid, cat uuid)',
    'void',
    'sql',
    `  with want as materialized (select w.product_id, w.sku from catalog_member_want(org, cat) w),
  gone as (
    delete from catalog_member m where m.organization_id = org and m.catalog_id = cat
       and not exists (select 1 from want w where w.product_id = m.product_id))
  insert into catalog_member (organization_id, catalog_id, product_id, sku)
  select org, cat, w.product_id, w.sku from want w
  on conflict (organization_id, catalog_id, product_id) do update set sku = excluded.sku where catalog_member.sku is distinct from excluded.sku`,
  ),
  // Re-admits the products ids against every catalog of the organization (one statement, as above).
  fn(
    'catalog_member_refresh_products(org uuid, ids uuid[])',
    'void',
    'plpgsql',
    `begin
  if not exists (select 1 from catalog k where k.organization_id = org) then return; end if;
  with recursive changed as materialized (select distinct i.id from unnest(ids) i(id)),
  prod as materialized (
    select p.id, p.sku, p.category_id from changed i join product p on p.organization_id = org and p.id = i.id where p.active
  ),
  anc(id, category_id, depth) as (
    select p.id, p.category_id, 0::int from prod p where p.category_id is not null
    union all
    select a.id, c.parent_id, a.depth + 1 from anc a join category c on c.organization_id = org and c.id = a.category_id
     where c.parent_id is not null and a.depth < 64
  ),
  cats as materialized (select k.id from catalog k where k.organization_id = org),
  hits as (
    select s.catalog_id, p.id, p.sku, s.mode from cats k cross join prod p
      join catalog_selection s on s.organization_id = org and s.catalog_id = k.id and s.sku = p.sku
    union all
    select s.catalog_id, a.id, p.sku, s.mode from cats k cross join anc a join prod p on p.id = a.id
      join catalog_selection s on s.organization_id = org and s.catalog_id = k.id and s.category_id = a.category_id
  ),
  want as materialized (
    select h.catalog_id, h.id, min(h.sku) as sku from hits h group by h.catalog_id, h.id
    having bool_or(h.mode = 'Include') and not bool_or(h.mode = 'Exclude')
  ),
  gone as (
    delete from catalog_member m using changed i where m.organization_id = org and m.product_id = i.id
       and not exists (select 1 from want w where w.catalog_id = m.catalog_id and w.id = m.product_id))
  insert into catalog_member (organization_id, catalog_id, product_id, sku)
  select org, w.catalog_id, w.id, w.sku from want w
  on conflict (organization_id, catalog_id, product_id) do update set sku = excluded.sku where catalog_member.sku is distinct from excluded.sku;
end`,
  ),
  // Every catalog of the organization with a category rule (the category tree changed).
  fn(
    'catalog_member_refresh_tree(org uuid)',
    'void',
    'plpgsql',
    `declare cat uuid;
begin
  for cat in select k.id from catalog k where k.organization_id = org
               and exists (select 1 from catalog_selection s where s.organization_id = org and s.catalog_id = k.id and s.category_id is not null)
  loop
    perform catalog_member_refresh_catalog(org, cat);
  end loop;
end`,
  ),
  // Triggers.
  fn(
    'catalog_member_on_selection()',
    'trigger',
    'plpgsql',
    `declare r record; orgs uuid[] := '{}'; cats uuid[] := '{}'; o uuid[]; c uuid[];
begin
  -- Each transition table is referenced only in the branch of the operation that has it.
  if tg_op <> 'DELETE' then
    select array_agg(n.organization_id), array_agg(n.catalog_id) into o, c from catalog_member_sel_new n;
    orgs := orgs || coalesce(o, '{}'); cats := cats || coalesce(c, '{}');
  end if;
  if tg_op <> 'INSERT' then
    select array_agg(d.organization_id), array_agg(d.catalog_id) into o, c from catalog_member_sel_old d;
    orgs := orgs || coalesce(o, '{}'); cats := cats || coalesce(c, '{}');
  end if;
  for r in select distinct x.organization_id, x.catalog_id from unnest(orgs, cats) x(organization_id, catalog_id)
  loop
    if exists (select 1 from catalog k where k.organization_id = r.organization_id and k.id = r.catalog_id) then
      perform catalog_member_refresh_catalog(r.organization_id, r.catalog_id);
    end if;
  end loop;
  return null;
end`,
  ),
  fn(
    'catalog_member_on_product_insert()',
    'trigger',
    'plpgsql',
    `declare r record;
begin
  for r in select n.organization_id, array_agg(n.id) as ids from catalog_member_prod_new n where n.active group by n.organization_id
  loop
    perform catalog_member_refresh_products(r.organization_id, r.ids);
  end loop;
  return null;
end`,
  ),
  fn(
    'catalog_member_on_product_update()',
    'trigger',
    'plpgsql',
    `declare r record;
begin
  for r in select n.organization_id, array_agg(n.id) as ids from catalog_member_prod_new n join catalog_member_prod_old o on o.id = n.id
            where n.sku is distinct from o.sku or n.category_id is distinct from o.category_id or n.active is distinct from o.active
            group by n.organization_id
  loop
    perform catalog_member_refresh_products(r.organization_id, r.ids);
  end loop;
  return null;
end`,
  ),
  fn(
    'catalog_member_on_category_update()',
    'trigger',
    'plpgsql',
    `declare org uuid;
begin
  for org in select distinct n.organization_id from catalog_member_cat_new n join catalog_member_cat_old o on o.id = n.id
              where n.parent_id is distinct from o.parent_id
  loop
    perform catalog_member_refresh_tree(org);
  end loop;
  return null;
end`,
  ),
  fn(
    'catalog_member_count_insert()',
    'trigger',
    'plpgsql',
    `begin
  insert into catalog_member_count (organization_id, catalog_id, held)
  select n.organization_id, n.catalog_id, count(*) from catalog_member_cnt_new n group by n.organization_id, n.catalog_id
  on conflict (organization_id, catalog_id) do update set held = catalog_member_count.held + excluded.held;
  return null;
end`,
  ),
  // Plain update (never an upsert): when the catalog itself is being deleted, its row is already gone.
  fn(
    'catalog_member_count_delete()',
    'trigger',
    'plpgsql',
    `begin
  update catalog_member_count c set held = c.held - d.n
    from (select o.organization_id, o.catalog_id, count(*) as n from catalog_member_cnt_old o group by o.organization_id, o.catalog_id) d
   where c.organization_id = d.organization_id and c.catalog_id = d.catalog_id;
  return null;
end`,
  ),
];

const TRIGGERS: string[] = [
  `create trigger catalog_member_selection_insert after insert on catalog_selection referencing new table as catalog_member_sel_new for each statement execute function catalog_member_on_selection();`,
  `create trigger catalog_member_selection_update after update on catalog_selection referencing old table as catalog_member_sel_old new table as catalog_member_sel_new for each statement execute function catalog_member_on_selection();`,
  `create trigger catalog_member_selection_delete after delete on catalog_selection referencing old table as catalog_member_sel_old for each statement execute function catalog_member_on_selection();`,
  `create trigger catalog_member_product_insert after insert on product referencing new table as catalog_member_prod_new for each statement execute function catalog_member_on_product_insert();`,
  `create trigger catalog_member_product_update after update on product referencing old table as catalog_member_prod_old new table as catalog_member_prod_new for each statement execute function catalog_member_on_product_update();`,
  `create trigger catalog_member_category_update after update on category referencing old table as catalog_member_cat_old new table as catalog_member_cat_new for each statement execute function catalog_member_on_category_update();`,
  `create trigger catalog_member_count_insert after insert on catalog_member referencing new table as catalog_member_cnt_new for each statement execute function catalog_member_count_insert();`,
  `create trigger catalog_member_count_delete after delete on catalog_member referencing old table as catalog_member_cnt_old for each statement execute function catalog_member_count_delete();`,
];

export class Migration20261129230000_catalog_membership extends Migration {
  override name = 'Migration20261129230000_catalog_membership';

  override up(): void | Promise<void> {
    this.addSql(`create table "catalog_member" (
      "organization_id" uuid not null,
      "catalog_id" uuid not null,
      "product_id" uuid not null,
      "sku" varchar(100) not null,
      primary key ("organization_id", "catalog_id", "product_id"),
      constraint "catalog_member_catalog_foreign" foreign key ("organization_id", "catalog_id") references "catalog" ("organization_id", "id") on delete cascade,
      constraint "catalog_member_product_foreign" foreign key ("organization_id", "product_id") references "product" ("organization_id", "id") on delete cascade);`);
    // A catalog's page in sku order; a product's memberships (re-admission, the product foreign key's cascade).
    this.addSql(`create index "catalog_member_sku_index" on "catalog_member" ("organization_id", "catalog_id", "sku");`);
    this.addSql(`create index "catalog_member_product_index" on "catalog_member" ("organization_id", "product_id");`);
    this.addSql(`create table "catalog_member_count" (
      "organization_id" uuid not null,
      "catalog_id" uuid not null,
      "held" bigint not null default 0,
      primary key ("organization_id", "catalog_id"),
      constraint "catalog_member_count_catalog_foreign" foreign key ("organization_id", "catalog_id") references "catalog" ("organization_id", "id") on delete cascade);`);
    for (const s of FUNCTIONS) this.addSql(s);
    for (const s of TRIGGERS) this.addSql(s);
    // Backfill: every existing catalog (its count follows through the trigger).
    this.addSql(`select catalog_member_refresh_catalog(k.organization_id, k.id) from catalog k;`);
  }

  override down(): void | Promise<void> {
    for (const [name, table] of [
      ['catalog_member_selection_insert', 'catalog_selection'],
      ['catalog_member_selection_update', 'catalog_selection'],
      ['catalog_member_selection_delete', 'catalog_selection'],
      ['catalog_member_product_insert', 'product'],
      ['catalog_member_product_update', 'product'],
      ['catalog_member_category_update', 'category'],
    ])
      this.addSql(`drop trigger if exists ${name} on "${table}";`);
    this.addSql(`drop table if exists "catalog_member_count";`);
    this.addSql(`drop table if exists "catalog_member";`);
    for (const f of [
      'catalog_member_on_selection()',
      'catalog_member_on_product_insert()',
      'catalog_member_on_product_update()',
      'catalog_member_on_category_update()',
      'catalog_member_count_insert()',
      'catalog_member_count_delete()',
      'catalog_member_refresh_tree(uuid)',
      'catalog_member_refresh_products(uuid, uuid[])',
      'catalog_member_refresh_catalog(uuid, uuid)',
      'catalog_member_want(uuid, uuid)',
    ])
      this.addSql(`drop function if exists ${f};`);
  }
}
