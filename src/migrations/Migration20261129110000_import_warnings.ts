import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 38 item 8: an import keeps ignoring fields and CSV columns that its kind does not know, and
 * now lists each of them once on the job (`warnings`: field, message, how many records carried
 * it, the first of them), written when the input is read.
 */
export class Migration20261129110000_import_warnings extends Migration {
  override name = 'Migration20261129110000_import_warnings';

  override up(): void | Promise<void> {
    this.addSql(`alter table "import_job" add column "warnings" jsonb not null default '[]';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "import_job" drop column "warnings";`);
  }
}
