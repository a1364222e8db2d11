import { Migration } from '@mikro-orm/migrations';

/**
 * An answer that carries a secret or a token is never kept in `idempotency_record` (issue 38,
 * finding 6): a `withheld` flag marks a key whose answer was given but not stored, and the records
 * that hold such answers today (webhook creation with its `whsec_` secret, secret rotation, API
 * access, password change tokens, presigned URLs) are deleted.
 */
export class Migration20261129050000_idempotency_withheld extends Migration {
  override name = 'Migration20261129050000_idempotency_withheld';

  override up(): void | Promise<void> {
    this.addSql(`alter table "idempotency_record" add column "withheld" boolean not null default false;`);
    this.addSql(
      `delete from "idempotency_record" where "route" in ('POST /api/webhooks', 'POST /api/organizations/api-access', 'POST /api/auth/change-password', 'POST /api/imports/uploads')
        or "route" ~ '^POST /api/webhooks/[^/]+/rotate-secret$' or "route" ~ '^POST /api/companydocs/documents/[^/]+/refresh-url$'
        or "response_body"::text ~ '(whsec_|"(secret|ClientSecret|ApiKey|AccessToken|uploadUrl)")';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "idempotency_record" drop column "withheld";`);
  }
}
