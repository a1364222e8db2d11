import { Migration } from '@mikro-orm/migrations';

/**
 * Buyer approvals, withdraw (docs/approvals.md "Withdrawing"): the requester (or an admin) withdraws
 * a Pending request, which ends as `Withdrawn`; the held cart is open again, a held quote stays
 * open, a held order is Cancelled.
 */
export class Migration20261129100000_approval_withdrawn extends Migration {
  override name = 'Migration20261129100000_approval_withdrawn';

  override up(): void | Promise<void> {
    this.addSql(`alter table "approval_request" drop constraint if exists "approval_request_status_check";`);
    this.addSql(`alter table "approval_request" add constraint "approval_request_status_check" check ("status" in ('Pending', 'Approved', 'Rejected', 'Expired', 'Superseded', 'Withdrawn'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "approval_request" drop constraint if exists "approval_request_status_check";`);
    this.addSql(`alter table "approval_request" add constraint "approval_request_status_check" check ("status" in ('Pending', 'Approved', 'Rejected', 'Expired', 'Superseded'));`);
  }
}
