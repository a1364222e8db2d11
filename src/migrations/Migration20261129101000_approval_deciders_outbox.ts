import { Migration } from '@mikro-orm/migrations';

/**
 * Who may decide an approval changed (docs/approvals.md "The chain, escalation and expiry"): every
 * write that changes a customer's Approvers (a `customer_buyer` row that is or was an Approver:
 * inserted, changed, deleted; also through the triggers that end buyer roles with the association or
 * the membership, so re-association, link imports, customer deletion and removal from the
 * organization are included) or the organization's admins (`organization_member.is_admin`, or an
 * admin leaving) queues each Pending request it concerns in `approval_signal_outbox`, in the same
 * transaction. The relay (src/services/approvals/revise.ts) signals approversChanged to each and
 * deletes the row; whatever path made the change, the request is re-asked.
 */
const fn = `create or replace function approval_deciders_changed() returns trigger language plpgsql as $fn$
begin
  if tg_table_name = 'customer_buyer' then
    if (tg_op <> 'INSERT' and old.role = 'Approver') or (tg_op <> 'DELETE' and new.role = 'Approver') then
      insert into approval_signal_outbox (organization_id, approval_id)
        select r.organization_id, r.id from approval_request r
         where r.organization_id = coalesce(new.organization_id, old.organization_id)
           and r.customer_id = coalesce(new.customer_id, old.customer_id)
           and r.status = 'Pending'
        on conflict do nothing;
    end if;
  elsif (tg_op = 'DELETE' and old.is_admin) or (tg_op = 'INSERT' and new.is_admin) or (tg_op = 'UPDATE' and old.is_admin is distinct from new.is_admin) then
    insert into approval_signal_outbox (organization_id, approval_id)
      select r.organization_id, r.id from approval_request r
       where r.organization_id = coalesce(new.organization_id, old.organization_id) and r.status = 'Pending'
      on conflict do nothing;
  end if;
  return null;
end
$fn$;`;

export class Migration20261129101000_approval_deciders_outbox extends Migration {
  override name = 'Migration20261129101000_approval_deciders_outbox';

  override up(): void | Promise<void> {
    this.addSql(`create table "approval_signal_outbox" (
      "organization_id" uuid not null, "approval_id" uuid not null,
      "attempts" int not null default 0, "next_attempt_at" timestamptz not null default now(), "created_at" timestamptz not null default now(),
      primary key ("organization_id", "approval_id"));`);
    this.addSql(`create index "approval_signal_outbox_due_index" on "approval_signal_outbox" ("next_attempt_at");`);
    this.addSql(fn);
    this.addSql(`create trigger approval_deciders_changed_buyer after insert or update or delete on customer_buyer
      for each row execute function approval_deciders_changed();`);
    this.addSql(`create trigger approval_deciders_changed_member after insert or update of is_admin or delete on organization_member
      for each row execute function approval_deciders_changed();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists approval_deciders_changed_member on organization_member;`);
    this.addSql(`drop trigger if exists approval_deciders_changed_buyer on customer_buyer;`);
    this.addSql(`drop function if exists approval_deciders_changed();`);
    this.addSql(`drop table if exists "approval_signal_outbox";`);
  }
}
