import { Migration } from '@mikro-orm/migrations';

/**
 * Provider settings cache (issue 18 item 4): a change of an organization's integrations (created,
 * edited, enabled, disabled, deleted) sends `NOTIFY b2b_cache, 'o:<organizationId>'` at commit, so
 * every API and worker process drops the settings it cached for that organization
 * (src/services/auth/cache.ts `integration`; the function is the one of Migration20261124203000_read_caches).
 */
export class Migration20261125021700_integration_cache extends Migration {
  override name = 'Migration20261125021700_integration_cache';

  override up(): void | Promise<void> {
    this.addSql(`create trigger b2b_cache_integration after insert or update or delete on "integration" for each row execute function b2b_cache_notify('o', 'organization_id');`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists b2b_cache_integration on "integration";`);
  }
}
