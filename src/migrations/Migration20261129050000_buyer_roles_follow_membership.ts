import { Migration } from '@mikro-orm/migrations';

/**
 * Buyer roles belong to the user's membership of the customer (issue 38 finding 1,
 * docs/approvals.md "Buyers and limits"): a `customer_buyer` row ends in the same transaction as
 * the association it stands on, whatever path ends it (re-association to another customer, an
 * import of links, the link or the customer deleted) and when the user leaves the organization.
 * Rows already left behind by earlier re-associations are removed.
 */
const endFn = `create or replace function customer_buyer_end_with_association() returns trigger language plpgsql as $fn$
begin
  if tg_table_name = 'user_customer' then
    delete from customer_buyer where organization_id = old.organization_id and user_id = old.user_id and customer_id = old.customer_id;
  else
    delete from customer_buyer where organization_id = old.organization_id and user_id = old.user_id;
  end if;
  return null;
end
$fn$;`;

export class Migration20261129050000_buyer_roles_follow_membership extends Migration {
  override name = 'Migration20261129050000_buyer_roles_follow_membership';

  override up(): void | Promise<void> {
    this.addSql(endFn);
    this.addSql(`create trigger customer_buyer_end_user_customer_upd after update of customer_id on user_customer
      for each row when (old.customer_id is distinct from new.customer_id) execute function customer_buyer_end_with_association();`);
    this.addSql(`create trigger customer_buyer_end_user_customer_del after delete on user_customer
      for each row execute function customer_buyer_end_with_association();`);
    this.addSql(`create trigger customer_buyer_end_member_del after delete on organization_member
      for each row execute function customer_buyer_end_with_association();`);
    this.addSql(`delete from customer_buyer b where not exists (
      select 1 from user_customer uc where uc.organization_id = b.organization_id and uc.user_id = b.user_id and uc.customer_id = b.customer_id)`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists customer_buyer_end_member_del on organization_member;`);
    this.addSql(`drop trigger if exists customer_buyer_end_user_customer_del on user_customer;`);
    this.addSql(`drop trigger if exists customer_buyer_end_user_customer_upd on user_customer;`);
    this.addSql(`drop function if exists customer_buyer_end_with_association();`);
  }
}
