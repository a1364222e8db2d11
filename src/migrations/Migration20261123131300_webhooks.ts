import { Migration } from '@mikro-orm/migrations';

export class Migration20261123131300_webhooks extends Migration {

  override name = 'Migration20261123131300_webhooks';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_delivery" ("id" uuid not null, "organization_id" uuid not null, "webhook_id" uuid not null, "event_id" uuid not null, "event_type" varchar(100) not null, "status" varchar(20) not null default 'Pending', "attempts" int not null default 0, "last_status_code" int null, "last_error" varchar(1000) null, "next_attempt_at" timestamptz null, "attempt_log" jsonb not null, "started_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "webhook_delivery_org_hook_index" on "webhook_delivery" ("organization_id", "webhook_id", "created_at");`);
    this.addSql(`create index "webhook_delivery_unstarted_index" on "webhook_delivery" ("created_at") where "started_at" is null;`);

    this.addSql(`create table "webhook_event" ("id" uuid not null, "organization_id" uuid not null, "type" varchar(100) not null, "data" jsonb not null, "occurred_at" timestamptz not null, "dispatched_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "webhook_event_org_index" on "webhook_event" ("organization_id", "occurred_at");`);
    this.addSql(`create index "webhook_event_pending_index" on "webhook_event" ("occurred_at") where "dispatched_at" is null;`);

    this.addSql(`create table "webhook_subscription" ("id" uuid not null, "organization_id" uuid not null, "url" varchar(2048) not null, "events" jsonb not null, "description" varchar(500) null, "is_enabled" boolean not null default true, "disabled_reason" varchar(500) null, "secret_ciphertext" text not null, "previous_secret_ciphertext" text null, "previous_secret_expires_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "webhook_subscription_org_index" on "webhook_subscription" ("organization_id");`);

    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_status_check" check (status in ('Pending','Retrying','Succeeded','Failed'));`);

    // Hand-written (the generator cannot express triggers): the outbox rows of order, invoice and
    // payment events are written by triggers, so they commit in the same transaction as the change
    // whatever code path makes it. Rows are written only for organizations with an enabled webhook.
    this.addSql(`create or replace function webhook_outbox_write(org uuid, event_type text, payload jsonb) returns void language plpgsql as $$
begin
  if exists (select 1 from webhook_subscription where organization_id = org and is_enabled) then
    insert into webhook_event (id, organization_id, type, data, occurred_at, dispatched_at) values (gen_random_uuid(), org, event_type, payload, now(), null);
  end if;
end $$;`);
    this.addSql(`create or replace function webhook_order_events() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform webhook_outbox_write(new.organization_id, 'order.created', jsonb_build_object('orderId', new.id, 'orderNumber', new.order_number, 'customerNumber', new.customer_number, 'orderStatus', new.order_status, 'orderDate', new.order_date, 'currencyCode', new.currency_code, 'total', new.total));
  elsif new.order_status is distinct from old.order_status then
    perform webhook_outbox_write(new.organization_id, 'order.status_changed', jsonb_build_object('orderId', new.id, 'orderNumber', new.order_number, 'customerNumber', new.customer_number, 'previousStatus', old.order_status, 'orderStatus', new.order_status));
  end if;
  return null;
end $$;`);
    this.addSql(`create trigger webhook_order_events after insert or update of order_status on sales_order for each row execute function webhook_order_events();`);
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
    this.addSql(`create trigger webhook_invoice_events after insert or update of status on invoice for each row execute function webhook_invoice_events();`);
    this.addSql(`create or replace function webhook_payment_events() returns trigger language plpgsql as $$
begin
  if new.status = 'Completed' then
    perform webhook_outbox_write(new.organization_id, 'payment.succeeded', jsonb_build_object('paymentId', new.id, 'invoiceId', new.invoice_id, 'invoiceNumber', (select i.invoice_number from invoice i where i.id = new.invoice_id and i.organization_id = new.organization_id), 'amount', new.amount, 'currencyCode', new.currency_code, 'method', new.method, 'paymentDate', new.payment_date));
  end if;
  return null;
end $$;`);
    this.addSql(`create trigger webhook_payment_events after insert on invoice_payment for each row execute function webhook_payment_events();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists webhook_order_events on sales_order;`);
    this.addSql(`drop trigger if exists webhook_invoice_events on invoice;`);
    this.addSql(`drop trigger if exists webhook_payment_events on invoice_payment;`);
    this.addSql(`drop function if exists webhook_order_events(), webhook_invoice_events(), webhook_payment_events(), webhook_outbox_write(uuid, text, jsonb);`);
    this.addSql(`drop table if exists "webhook_delivery" cascade;`);
    this.addSql(`drop table if exists "webhook_event" cascade;`);
    this.addSql(`drop table if exists "webhook_subscription" cascade;`);
  }

}
