import { Migration } from '@mikro-orm/migrations';

/**
 * Scale-out keys (DESIGN "Scale-out", docs/scaling.md, issue 18 item 6): every tenant table leads
 * its primary key and every foreign key to another tenant table with `organization_id`, so the
 * schema can be distributed by organization (Citus needs the distribution column in every primary
 * and unique key, and co-located foreign keys).
 *
 * 1. The five child tables that reached their organization only through their parent get
 *    `organization_id`, filled from the parent in this migration, then NOT NULL.
 * 2. For every tenant table (a NOT NULL `organization_id` column) whose primary key does not lead
 *    with it: the foreign keys that depend on that primary key are dropped, the key becomes
 *    (organization_id, <old key>), and each foreign key comes back as (organization_id, <column>)
 *    -> parent (organization_id, id) with the same ON DELETE rule (SET NULL clears only the
 *    column, never organization_id). This step reads the catalog instead of listing tables, so a
 *    table another branch added before this migration runs is converted the same way.
 * 3. The child tables' unique keys lead with organization_id.
 *
 * The old single-column foreign-key indexes stay (they serve the ORM's `where parent_id in (...)`
 * collection loads); the one-column primary-key indexes go. Not reversible: down() refuses.
 * test/tenant-keys.test.ts checks the result in information_schema.
 */
const CHILDREN = [
  { table: 'cart_item', parent: 'cart', column: 'cart_id' },
  { table: 'order_item', parent: 'sales_order', column: 'order_id' },
  { table: 'customer_address', parent: 'customer', column: 'customer_id' },
  { table: 'customer_contact', parent: 'customer', column: 'customer_id' },
  { table: 'image_ingestion_item', parent: 'image_ingestion', column: 'ingestion_id' },
] as const;

export class Migration20261124200000_tenant_keys extends Migration {

  override name = 'Migration20261124200000_tenant_keys';

  override up(): void | Promise<void> {
    for (const c of CHILDREN) {
      this.addSql(`alter table "${c.table}" add column "organization_id" uuid null;`);
      this.addSql(`update "${c.table}" x set "organization_id" = p."organization_id" from "${c.parent}" p where p."id" = x."${c.column}";`);
      this.addSql(`alter table "${c.table}" alter column "organization_id" set not null;`);
      this.addSql(`alter table "${c.table}" add constraint "${c.table}_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    }

    this.addSql(`do $$
declare
  t record;
  f record;
  pk record;
  rewrites jsonb;
  r jsonb;
begin
  for t in
    select c.oid, c.relname
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = c.oid and a.attname = 'organization_id' and a.attnotnull and not a.attisdropped
     where n.nspname = current_schema() and c.relkind in ('r', 'p')
     order by c.relname
  loop
    select con.conname, con.conindid,
           array(select att.attname::text from unnest(con.conkey) with ordinality k(num, ord)
                   join pg_attribute att on att.attrelid = con.conrelid and att.attnum = k.num order by k.ord) as cols
      into pk
      from pg_constraint con where con.conrelid = t.oid and con.contype = 'p';
    if pk.conname is null or pk.cols[1] = 'organization_id' then
      continue;
    end if;
    -- Foreign keys that use this primary key's index (other keys, e.g. to (organization_id, id) uniques, stay).
    rewrites := '[]'::jsonb;
    for f in
      select con.conname, con.conrelid::regclass::text as rel, con.confdeltype, con.confupdtype,
             array(select att.attname::text from unnest(con.conkey) with ordinality k(num, ord)
                     join pg_attribute att on att.attrelid = con.conrelid and att.attnum = k.num order by k.ord) as cols
        from pg_constraint con
       where con.contype = 'f' and con.confrelid = t.oid and con.conindid = pk.conindid
    loop
      if not exists (select 1 from pg_attribute where attrelid = f.rel::regclass and attname = 'organization_id' and attnotnull and not attisdropped) then
        raise exception 'foreign key % of % references tenant table % but % has no organization_id', f.conname, f.rel, t.relname, f.rel;
      end if;
      rewrites := rewrites || jsonb_build_object('name', f.conname, 'rel', f.rel, 'cols', to_jsonb(f.cols), 'del', f.confdeltype, 'upd', f.confupdtype);
      execute format('alter table %s drop constraint %I', f.rel, f.conname);
    end loop;
    execute format('alter table %I drop constraint %I', t.relname, pk.conname);
    execute format('alter table %I add constraint %I primary key (organization_id, %s)', t.relname, pk.conname,
                   (select string_agg(quote_ident(x), ', ') from unnest(pk.cols) x));
    for r in select * from jsonb_array_elements(rewrites)
    loop
      execute format('alter table %s add constraint %I foreign key (organization_id, %s) references %I (organization_id, %s) on delete %s on update %s',
        r->>'rel', r->>'name',
        (select string_agg(quote_ident(x), ', ') from jsonb_array_elements_text(r->'cols') x),
        t.relname,
        (select string_agg(quote_ident(x), ', ') from unnest(pk.cols) x),
        case r->>'del' when 'c' then 'cascade' when 'r' then 'restrict' when 'd' then 'set default'
          when 'n' then format('set null (%s)', (select string_agg(quote_ident(x), ', ') from jsonb_array_elements_text(r->'cols') x))
          else 'no action' end,
        case r->>'upd' when 'c' then 'cascade' when 'r' then 'restrict' else 'no action' end);
    end loop;
  end loop;
end
$$;`);

    // The name the Order entity gives this index (Migration20261124170000_customer_links named it after the table).
    this.addSql(`alter index "sales_order_org_customer_id_index" rename to "order_org_customer_id_index";`);
    this.addSql(`alter table "cart_item" drop constraint "cart_item_cart_sku_unique";`);
    this.addSql(`alter table "cart_item" add constraint "cart_item_cart_sku_unique" unique ("organization_id", "cart_id", "sku");`);
    this.addSql(`create index "cart_item_cart_id_index" on "cart_item" ("cart_id");`);
    this.addSql(`alter table "image_ingestion_item" drop constraint "image_ingestion_item_position_unique";`);
    this.addSql(`alter table "image_ingestion_item" add constraint "image_ingestion_item_position_unique" unique ("organization_id", "ingestion_id", "position");`);
    this.addSql(`create index "image_ingestion_item_ingestion_id_index" on "image_ingestion_item" ("ingestion_id");`);
    this.addSql(`alter table "product_price" drop constraint "product_price_product_tier_qty_unique";`);
    this.addSql(`alter table "product_price" add constraint "product_price_product_tier_qty_unique" unique ("organization_id", "product_id", "tier", "at_quantity");`);
    this.addSql(`create index "product_price_product_id_index" on "product_price" ("product_id");`);
  }

  override down(): void | Promise<void> {
    throw new Error('Migration20261124200000_tenant_keys is not reversible: restore from a backup taken before it.');
  }

}
