import { Migration } from '@mikro-orm/migrations';

/** A pending membership keeps the names and phone the organization entered (issue 16 finding 5). */
export class Migration20261124153000_pending_member_profile extends Migration {

  override name = 'Migration20261124153000_pending_member_profile';

  override up(): void | Promise<void> {
    this.addSql(`alter table "organization_member" add "invited_first_name" varchar(255) null, add "invited_last_name" varchar(255) null, add "invited_phone_number" varchar(255) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "organization_member" drop column "invited_first_name", drop column "invited_last_name", drop column "invited_phone_number";`);
  }

}
