import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 40 items 3 and 5: customer catalogs (docs/catalogs.md) and the catalog-assignments import kind. A catalog is a product selection (SKUs
 * and categories, each included or excluded) assigned to customers and/or price tiers. Every key
 * and index leads with organization_id (DESIGN "Scale-out"). Two product-side indexes serve the
 * set-based visibility (src/services/catalog/catalog-visibility.ts): products by category and
 * categories by parent, so a customer's catalog is expanded from its rules, never by walking the
 * tenant's products.
 */
export class Migration20261129130000_catalogs extends Migration {
  override name = 'Migration20261129130000_catalogs';

  override up(): void | Promise<void> {
    this.addSql(`create table "catalog" (
      "organization_id" uuid not null references "organization" ("id") on delete cascade,
      "id" uuid not null,
      "name" varchar(255) not null,
      "description" text null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      primary key ("organization_id", "id"));`);
    this.addSql(`create unique index "catalog_org_name_unique" on "catalog" ("organization_id", lower("name"));`);

    this.addSql(`create table "catalog_selection" (
      "organization_id" uuid not null,
      "id" uuid not null,
      "catalog_id" uuid not null,
      "mode" varchar(10) not null check ("mode" in ('Include', 'Exclude')),
      "sku" varchar(100) null,
      "category_id" uuid null,
      "category_name" varchar(255) null,
      "created_at" timestamptz not null,
      primary key ("organization_id", "id"),
      constraint "catalog_selection_one_target" check (("sku" is null) <> ("category_id" is null)),
      constraint "catalog_selection_catalog_foreign" foreign key ("organization_id", "catalog_id") references "catalog" ("organization_id", "id") on delete cascade,
      constraint "catalog_selection_category_foreign" foreign key ("organization_id", "category_id") references "category" ("organization_id", "id") on delete cascade);`);
    this.addSql(`create unique index "catalog_selection_sku_unique" on "catalog_selection" ("organization_id", "catalog_id", "sku") where "sku" is not null;`);
    this.addSql(`create unique index "catalog_selection_category_unique" on "catalog_selection" ("organization_id", "catalog_id", "category_id") where "category_id" is not null;`);

    this.addSql(`create table "catalog_assignment" (
      "organization_id" uuid not null,
      "id" uuid not null,
      "catalog_id" uuid not null,
      "customer_id" uuid null,
      "price_tier_id" uuid null,
      "created_at" timestamptz not null,
      primary key ("organization_id", "id"),
      constraint "catalog_assignment_one_target" check (("customer_id" is null) <> ("price_tier_id" is null)),
      constraint "catalog_assignment_catalog_foreign" foreign key ("organization_id", "catalog_id") references "catalog" ("organization_id", "id") on delete cascade,
      constraint "catalog_assignment_customer_foreign" foreign key ("organization_id", "customer_id") references "customer" ("organization_id", "id") on delete cascade,
      constraint "catalog_assignment_price_tier_foreign" foreign key ("organization_id", "price_tier_id") references "price_tier" ("organization_id", "id") on delete cascade);`);
    this.addSql(`create unique index "catalog_assignment_customer_unique" on "catalog_assignment" ("organization_id", "customer_id", "catalog_id") where "customer_id" is not null;`);
    this.addSql(`create unique index "catalog_assignment_tier_unique" on "catalog_assignment" ("organization_id", "price_tier_id", "catalog_id") where "price_tier_id" is not null;`);
    this.addSql(`create index "catalog_assignment_catalog_index" on "catalog_assignment" ("organization_id", "catalog_id");`);

    this.addSql(`create index if not exists "product_org_category_index" on "product" ("organization_id", "category_id") where "category_id" is not null;`);
    this.addSql(`create index if not exists "category_org_parent_index" on "category" ("organization_id", "parent_id") where "parent_id" is not null;`);

    // The catalog-assignments import kind. 'price-lists' (issue 40 item 5, another branch) is allowed here too, so whichever
    // of the two migrations runs last keeps both kinds.
    this.addSql(`alter table "import_job" drop constraint if exists "import_job_kind_check";`);
    this.addSql(
      `alter table "import_job" add constraint "import_job_kind_check" check (kind in ('customers', 'products', 'prices', 'orders', 'invoices', 'user-customer-links', 'catalog-assignments', 'price-lists'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "import_job" drop constraint if exists "import_job_kind_check";`);
    this.addSql(`alter table "import_job" add constraint "import_job_kind_check" check (kind in ('customers', 'products', 'prices', 'orders', 'invoices', 'user-customer-links'));`);
    this.addSql(`drop index if exists "category_org_parent_index";`);
    this.addSql(`drop index if exists "product_org_category_index";`);
    this.addSql(`drop table if exists "catalog_assignment";`);
    this.addSql(`drop table if exists "catalog_selection";`);
    this.addSql(`drop table if exists "catalog";`);
  }
}
