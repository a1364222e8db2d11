import { Migration } from '@mikro-orm/migrations';

/** An invoice e-mail goes to a customer's company e-mail and billing contacts (up to 10): the list outgrows varchar(255). */
export class Migration20261124160000_email_recipients extends Migration {

  override name = 'Migration20261124160000_email_recipients';

  override up(): void | Promise<void> {
    this.addSql(`alter table "email_message" alter column "to_address" type text using ("to_address"::text);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "email_message" alter column "to_address" type varchar(255) using (left("to_address", 255));`);
  }

}
