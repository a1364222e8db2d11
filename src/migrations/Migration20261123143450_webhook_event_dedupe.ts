import { Migration } from '@mikro-orm/migrations';

export class Migration20261123143450_webhook_event_dedupe extends Migration {

  override name = 'Migration20261123143450_webhook_event_dedupe';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhook_event" add "dedupe_key" varchar(300) null;`);
    this.addSql(`alter table "webhook_event" add constraint "webhook_event_dedupe_unique" unique ("organization_id", "dedupe_key");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_event" drop constraint "webhook_event_dedupe_unique";`);
    this.addSql(`alter table "webhook_event" drop column "dedupe_key";`);
  }

}
