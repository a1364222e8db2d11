import { Migration } from '@mikro-orm/migrations';

/**
 * Hand-written (the generator cannot express triggers): an invoice that comes into being past Draft
 * (checkout's invoice, inserted already Paid; any insert or Draft row moved straight to
 * PartiallyPaid or Paid) was never announced with `invoice.issued`, so an integration that books
 * invoices from that event missed every card order. Now every invoice leaving Draft (or inserted
 * past it) writes `invoice.issued` first; a Paid one then writes `invoice.paid`, one millisecond
 * later, so the outbox (dispatched by occurred_at) and the events' `timestamp` order them.
 */
export class Migration20261129050000_invoice_issued_before_paid extends Migration {
  override name = 'Migration20261129050000_invoice_issued_before_paid';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function webhook_outbox_write(org uuid, event_type text, payload jsonb, at timestamptz) returns void language plpgsql as $$
begin
  if exists (select 1 from webhook_subscription where organization_id = org and is_enabled) then
    insert into webhook_event (id, organization_id, type, data, occurred_at, dispatched_at) values (gen_random_uuid(), org, event_type, payload, at, null);
  end if;
end $$;`);
    this.addSql(`create or replace function webhook_invoice_events() returns trigger language plpgsql as $$
declare
  payload jsonb := jsonb_build_object('invoiceId', new.id, 'invoiceNumber', new.invoice_number, 'orderId', new.order_id, 'orderNumber', new.order_number, 'customerNumber', new.customer_number, 'status', new.status, 'currencyCode', new.currency_code, 'total', new.total, 'amountPaid', new.amount_paid, 'dueDate', new.due_date);
  previous text := case when tg_op = 'UPDATE' then old.status else null end;
  at timestamptz := clock_timestamp();
begin
  if new.status is not distinct from previous then return null; end if;
  if new.status in ('Issued', 'PartiallyPaid', 'Paid') and (previous is null or previous = 'Draft') then
    perform webhook_outbox_write(new.organization_id, 'invoice.issued', payload, at);
    at := at + interval '1 millisecond';
  end if;
  if new.status = 'Paid' then perform webhook_outbox_write(new.organization_id, 'invoice.paid', payload, at); end if;
  if new.status = 'Voided' then perform webhook_outbox_write(new.organization_id, 'invoice.voided', payload, at); end if;
  return null;
end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`create or replace function webhook_invoice_events() returns trigger language plpgsql as $$
declare
  payload jsonb := jsonb_build_object('invoiceId', new.id, 'invoiceNumber', new.invoice_number, 'orderId', new.order_id, 'orderNumber', new.order_number, 'customerNumber', new.customer_number, 'status', new.status, 'currencyCode', new.currency_code, 'total', new.total, 'amountPaid', new.amount_paid, 'dueDate', new.due_date);
  previous text := case when tg_op = 'UPDATE' then old.status else null end;
begin
  if new.status is not distinct from previous then return null; end if;
  if new.status = 'Issued' and (previous is null or previous = 'Draft') then perform webhook_outbox_write(new.organization_id, 'invoice.issued', payload); end if;
  if new.status = 'Paid' then perform webhook_outbox_write(new.organization_id, 'invoice.paid', payload); end if;
  if new.status = 'Voided' then perform webhook_outbox_write(new.organization_id, 'invoice.voided', payload); end if;
  return null;
end $$;`);
    this.addSql(`drop function if exists webhook_outbox_write(uuid, text, jsonb, timestamptz);`);
  }
}
