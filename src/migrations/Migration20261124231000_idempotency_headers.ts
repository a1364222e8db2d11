import { Migration } from '@mikro-orm/migrations';

/** A replayed Idempotency-Key response repeats the stored response's headers (Location of a 201). */
export class Migration20261124231000_idempotency_headers extends Migration {
  override name = 'Migration20261124231000_idempotency_headers';

  override up(): void | Promise<void> {
    this.addSql(`alter table "idempotency_record" add column "response_headers" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "idempotency_record" drop column "response_headers";`);
  }
}
