/**
 * Which products a customer's catalogs hold (docs/catalogs.md), as SQL fragments the product
 * reads, the product lists and every write path share:
 *
 * - A customer's catalogs in force: those assigned to the customer directly; when there are none,
 *   those assigned to its price tier. None at all: the customer sees the whole catalog, as before.
 * - A catalog holds a product when one of its Include rules names its SKU or its category (or an
 *   ancestor category) and none of its Exclude rules does (an exclusion wins within a catalog).
 *   A customer with several catalogs sees their union.
 *
 * Two shapes of the same rule: `catalogAdmitsSql` tests one product row against the rules (a read
 * by sku, a cart line, a checkout line: a few index probes per product); a list page reads the
 * membership the database maintains from the same rules (`catalogHeldCte`, `catalog_member`,
 * `catalog_member_count`), so neither its page nor its exact total evaluates the rules per request.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundSql } from '../../db/orm-sql.js';
import { rowsOf, type Sql } from '../../db/sql.js';
import { AppError, type FieldErrors } from '../../errors.js';

/** Catalog ids in force for the customer `customerId` (an SQL expression; null: none), as rows of `id`. */
export const effectiveCatalogsSql = (org: string, customerId: string) => `
  select a.catalog_id as id from catalog_assignment a where a.organization_id = ${org} and a.customer_id = ${customerId}
  union all
  select a.catalog_id from customer cu
    join price_tier t on t.organization_id = cu.organization_id and lower(t.name) = lower(cu.pricing)
    join catalog_assignment a on a.organization_id = cu.organization_id and a.price_tier_id = t.id
   where cu.organization_id = ${org} and cu.id = ${customerId}
     and not exists (select 1 from catalog_assignment d where d.organization_id = ${org} and d.customer_id = ${customerId})`;

/** The id of the customer with this number (an SQL expression of a text parameter), for token callers. */
export const customerIdByNumberSql = (org: string, customerNumber: string) =>
  `(select cn.id from customer cn where cn.organization_id = ${org} and cn.customer_number = ${customerNumber})`;

/** The product's category and its ancestors (categories cannot form cycles; depth capped anyway). */
const ancestorsSql = (p: string) => `array(with recursive anc(id, depth) as (
      select ${p}.category_id, 0::int where ${p}.category_id is not null
      union all
      select ca.parent_id, anc.depth + 1 from anc join category ca on ca.organization_id = ${p}.organization_id and ca.id = anc.id
       where ca.parent_id is not null and anc.depth < 64)
    select anc.id from anc)`;

const ruleHits = (p: string, k: string, mode: 'Include' | 'Exclude') => `(
      exists (select 1 from catalog_selection s where s.organization_id = ${p}.organization_id and s.catalog_id = ${k}.id and s.mode = '${mode}' and s.sku = ${p}.sku)
      or exists (select 1 from catalog_selection s where s.organization_id = ${p}.organization_id and s.catalog_id = ${k}.id and s.mode = '${mode}'
                  and s.category_id = any(${ancestorsSql(p)})))`;

/**
 * True when the product row `p` (organization_id, sku, category_id) may be seen and bought by the
 * customer `customerId` (an SQL expression; null: no customer, everything admitted).
 */
export const catalogAdmitsSql = (p: string, customerId: string) => `(
  not exists (${effectiveCatalogsSql(`${p}.organization_id`, customerId)})
  or exists (select 1 from (${effectiveCatalogsSql(`${p}.organization_id`, customerId)}) k
              where ${ruleHits(p, 'k', 'Include')} and not ${ruleHits(p, 'k', 'Exclude')}))`;

/**
 * A CTE `catalog_held(id)` (for a list's `with`): the active products the catalogs `catalogs` (a
 * uuid[] parameter) hold, read from their maintained membership (`catalog_member`, kept exact by
 * triggers on rules, products and categories: src/migrations/Migration20261129230000_catalog_membership.ts).
 * A product held by several catalogs appears once per catalog (semi-join it, or count distinct).
 * `org` is the organization parameter.
 */
export const catalogHeldCte = (org: string, catalogs: string) =>
  `catalog_held as not materialized (select m.product_id as id from catalog_member m where m.organization_id = ${org} and m.catalog_id = any(${catalogs}))`;

const CATALOGS_OF_NUMBER = `select coalesce(array_agg(distinct e.id), '{}'::uuid[]) as ids from (${effectiveCatalogsSql('$1::uuid', customerIdByNumberSql('$1::uuid', '$2::text'))}) e`;

/** The catalog ids in force for the customer with this number (empty: none, the customer sees everything). One statement. */
export async function catalogsOfCustomerNumber(em: EntityManager, orgId: string, customerNumber: string): Promise<string[]> {
  const [row] = await rowsOf<{ ids: string[] }>(em, CATALOGS_OF_NUMBER, [orgId, customerNumber]);
  return row?.ids ?? [];
}

/**
 * The (customer, sku) pairs whose SKU the customer's catalogs do not hold (a SKU of no product is
 * not held either, so a refusal says nothing about whether the SKU exists). Customers without a
 * catalog hold everything. One statement for any number of lines.
 */
const OUTSIDE_SQL = `select l.n::int as n from unnest($2::uuid[], $3::text[]) with ordinality l(customer_id, sku, n)
  left join product p on p.organization_id = $1 and p.sku = l.sku
 where exists (${effectiveCatalogsSql('$1', 'l.customer_id')})
   and (p.id is null or not ${catalogAdmitsSql('p', 'l.customer_id')})`;

/** Positions (0-based) of the lines outside their customer's catalogs. */
export async function linesOutsideCatalogs(run: Sql, orgId: string, lines: readonly { customerId: string | null; sku: string }[]): Promise<number[]> {
  const withCustomer = lines.map((l, i) => ({ ...l, i })).filter((l) => l.customerId);
  if (!withCustomer.length) return [];
  const rows = await run<{ n: number }>(OUTSIDE_SQL, [orgId, withCustomer.map((l) => l.customerId), withCustomer.map((l) => l.sku)]);
  return rows.map((r) => withCustomer[r.n - 1].i);
}

/** The message of a refused line (the same whether or not the SKU exists). */
export const outsideCatalogMessage = (sku: string) => `The product "${sku}" is not in the customer's catalog.`;

/**
 * The field errors of lines whose SKU the customer's catalogs do not hold, naming each line:
 * `field(i)` gives the field name (`sku`, `items[2].sku`). Empty when all are held.
 */
export async function catalogLineErrors(
  em: EntityManager,
  orgId: string,
  customerId: string | null,
  lines: readonly { sku: string }[],
  field: (i: number) => string,
): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  if (!customerId || !lines.length) return errors;
  const outside = await linesOutsideCatalogs(boundSql(em), orgId, lines.map((l) => ({ customerId, sku: l.sku })));
  for (const i of outside) errors[field(i)] = [outsideCatalogMessage(lines[i].sku)];
  return errors;
}

/** Refuses (400) lines outside the customer's catalogs, naming each (carts, admin orders). */
export async function assertLinesInCatalog(em: EntityManager, orgId: string, customerId: string | null, lines: readonly { sku: string }[], field: (i: number) => string): Promise<void> {
  const errors = await catalogLineErrors(em, orgId, customerId, lines, field);
  if (Object.keys(errors).length) throw AppError.validation(errors, "Some lines are not in the customer's catalog.");
}
