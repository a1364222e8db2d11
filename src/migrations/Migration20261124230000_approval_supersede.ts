import { Migration } from '@mikro-orm/migrations';

/**
 * Buyer approvals, re-check at approval (docs/approvals.md "Deciding"): an approve that finds the
 * cart's total changed at current catalog prices ends the request as `Superseded`; it names the
 * request asked for the new total (`superseded_by`, which names it back in `supersedes`) and the
 * total the cart came to (`repriced_total`).
 */
export class Migration20261124230000_approval_supersede extends Migration {
  override name = 'Migration20261124230000_approval_supersede';

  override up(): void | Promise<void> {
    this.addSql(`alter table "approval_request" drop constraint if exists "approval_request_status_check";`);
    this.addSql(`alter table "approval_request" add constraint "approval_request_status_check" check ("status" in ('Pending', 'Approved', 'Rejected', 'Expired', 'Superseded'));`);
    this.addSql(`alter table "approval_request" add column "superseded_by" uuid null, add column "supersedes" uuid null, add column "repriced_total" numeric(19,4) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "approval_request" drop column "superseded_by", drop column "supersedes", drop column "repriced_total";`);
    this.addSql(`alter table "approval_request" drop constraint if exists "approval_request_status_check";`);
    this.addSql(`alter table "approval_request" add constraint "approval_request_status_check" check ("status" in ('Pending', 'Approved', 'Rejected', 'Expired'));`);
  }
}
