import { Migration } from '@mikro-orm/migrations';

/**
 * Commission entry lines as compact `json` rows (issue 18, commission generation): each line is the
 * array [sku, productName, quantity, base, rule, rate, commission] instead of an object, and the
 * column is `json` instead of `jsonb`. A statement writes 10,000 entries of three lines in one
 * generation; PostgreSQL's jsonb input (key sorting and binary conversion of 30,000 objects) was
 * about 85 ms of the 195 ms the entry inserts took in PostgreSQL. The lines are written once per
 * generation and read whole for the statement view, never queried inside, so nothing uses jsonb's
 * operators or indexes. Existing rows are converted in place.
 */
export class Migration20261128013000_commission_entry_lines_json extends Migration {
  override name = 'Migration20261128013000_commission_entry_lines_json';

  override up(): void | Promise<void> {
    this.addSql(`alter table "commission_entry" add column "line_rows" json;`);
    this.addSql(
      `update "commission_entry" set "line_rows" = (
         select coalesce(json_agg(json_build_array(l->'sku', l->'productName', l->'quantity', l->'base', l->'rule', l->'rate', l->'commission') order by n), '[]'::json)
           from jsonb_array_elements("lines") with ordinality as x(l, n));`,
    );
    this.addSql(`alter table "commission_entry" drop column "lines";`);
    this.addSql(`alter table "commission_entry" rename column "line_rows" to "lines";`);
    this.addSql(`alter table "commission_entry" alter column "lines" set not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "commission_entry" add column "line_objects" jsonb;`);
    this.addSql(
      `update "commission_entry" set "line_objects" = (
         select coalesce(jsonb_agg(jsonb_build_object('sku', l->0, 'productName', l->1, 'quantity', l->2, 'base', l->3, 'rule', l->4, 'rate', l->5, 'commission', l->6) order by n), '[]'::jsonb)
           from json_array_elements("lines") with ordinality as x(l, n));`,
    );
    this.addSql(`alter table "commission_entry" drop column "lines";`);
    this.addSql(`alter table "commission_entry" rename column "line_objects" to "lines";`);
    this.addSql(`alter table "commission_entry" alter column "lines" set not null;`);
  }
}
