import { Migration } from '@mikro-orm/migrations';

/**
 * An index on `id` for each tenant table keyed (organization_id, id) whose rows the ORM's unit of
 * work updates or deletes by primary key (`update ... where "id" = $1`: MikroORM knows these
 * entities by `id` alone). Without it, PostgreSQL 14 to 17 (docker-compose runs 16) answer such a
 * statement with a sequential scan of the whole table, every tenant's rows included (105 ms at a
 * million rows, measured on PostgreSQL 15), and PostgreSQL 18 with a skip scan, one descent of the
 * key per organization. Statements written by hand carry organization_id instead
 * (docs/scaling.md "Statements carry organization_id"); the statement audit of the test command
 * fails any statement that reaches a tenant table without either.
 *
 * With them, one-column indexes for the reads that span organizations or come from a child's
 * parent (commented below), which would otherwise scan their table.
 *
 * Left without: tables written in bulk whose every statement carries organization_id (product,
 * product_price, order_item, commission_entry, import_record_error, idempotency_record), and
 * quote and approval_request, whose entities already carry the composite key.
 */
export class Migration20261128110000_tenant_id_indexes extends Migration {
  override name = 'Migration20261128110000_tenant_id_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index if not exists "api_credential_id_index" on "api_credential" ("id");`);
    this.addSql(`create index if not exists "cart_id_index" on "cart" ("id");`);
    this.addSql(`create index if not exists "cart_item_id_index" on "cart_item" ("id");`);
    this.addSql(`create index if not exists "category_id_index" on "category" ("id");`);
    this.addSql(`create index if not exists "commission_adjustment_id_index" on "commission_adjustment" ("id");`);
    this.addSql(`create index if not exists "commission_plan_id_index" on "commission_plan" ("id");`);
    this.addSql(`create index if not exists "commission_statement_id_index" on "commission_statement" ("id");`);
    this.addSql(`create index if not exists "company_document_id_index" on "company_document" ("id");`);
    this.addSql(`create index if not exists "customer_id_index" on "customer" ("id");`);
    this.addSql(`create index if not exists "customer_address_id_index" on "customer_address" ("id");`);
    this.addSql(`create index if not exists "customer_contact_id_index" on "customer_contact" ("id");`);
    this.addSql(`create index if not exists "document_folder_id_index" on "document_folder" ("id");`);
    this.addSql(`create index if not exists "hosted_payment_setup_id_index" on "hosted_payment_setup" ("id");`);
    this.addSql(`create index if not exists "image_id_index" on "image" ("id");`);
    this.addSql(`create index if not exists "image_ingestion_id_index" on "image_ingestion" ("id");`);
    this.addSql(`create index if not exists "image_ingestion_item_id_index" on "image_ingestion_item" ("id");`);
    this.addSql(`create index if not exists "import_chunk_run_id_index" on "import_chunk_run" ("id");`);
    this.addSql(`create index if not exists "import_job_id_index" on "import_job" ("id");`);
    this.addSql(`create index if not exists "integration_id_index" on "integration" ("id");`);
    this.addSql(`create index if not exists "invoice_id_index" on "invoice" ("id");`);
    this.addSql(`create index if not exists "invoice_payment_id_index" on "invoice_payment" ("id");`);
    this.addSql(`create index if not exists "organization_member_id_index" on "organization_member" ("id");`);
    this.addSql(`create index if not exists "organization_sales_rep_id_index" on "organization_sales_rep" ("id");`);
    this.addSql(`create index if not exists "payment_method_id_index" on "payment_method" ("id");`);
    this.addSql(`create index if not exists "payment_term_id_index" on "payment_term" ("id");`);
    this.addSql(`create index if not exists "price_tier_id_index" on "price_tier" ("id");`);
    this.addSql(`create index if not exists "sales_order_id_index" on "sales_order" ("id");`);
    this.addSql(`create index if not exists "user_customer_id_index" on "user_customer" ("id");`);
    this.addSql(`create index if not exists "webhook_delivery_id_index" on "webhook_delivery" ("id");`);
    this.addSql(`create index if not exists "webhook_event_id_index" on "webhook_event" ("id");`);
    this.addSql(`create index if not exists "webhook_subscription_id_index" on "webhook_subscription" ("id");`);

    // Child rows loaded by their parent (the ORM's collection load of an invoice's payments).
    this.addSql(`create index if not exists "invoice_payment_invoice_id_index" on "invoice_payment" ("invoice_id");`);
    // Read before the organization is known (docs/scaling.md "Still to move before distributing"):
    // the payment janitor matches each provider charge by its charge id and its payment profile;
    // a user's memberships and a sales rep's organizations span organizations by nature.
    this.addSql(`create index if not exists "invoice_payment_provider_charge_id_index" on "invoice_payment" ("provider_charge_id");`);
    this.addSql(`create index if not exists "payment_method_payment_profile_id_index" on "payment_method" ("payment_profile_id");`);
    this.addSql(`create index if not exists "organization_member_user_id_index" on "organization_member" ("user_id");`);
    this.addSql(`create index if not exists "organization_sales_rep_sales_rep_id_index" on "organization_sales_rep" ("sales_rep_id");`);
    // The commission_statements gauge counts the statements waiting for someone, over every organization.
    this.addSql(`create index if not exists "commission_statement_status_index" on "commission_statement" ("status");`);
    // The workflow-start outbox relay claims due rows of every organization.
    this.addSql(`create index if not exists "workflow_start_outbox_next_attempt_at_index" on "workflow_start_outbox" ("next_attempt_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "api_credential_id_index";`);
    this.addSql(`drop index if exists "cart_id_index";`);
    this.addSql(`drop index if exists "cart_item_id_index";`);
    this.addSql(`drop index if exists "category_id_index";`);
    this.addSql(`drop index if exists "commission_adjustment_id_index";`);
    this.addSql(`drop index if exists "commission_plan_id_index";`);
    this.addSql(`drop index if exists "commission_statement_id_index";`);
    this.addSql(`drop index if exists "company_document_id_index";`);
    this.addSql(`drop index if exists "customer_id_index";`);
    this.addSql(`drop index if exists "customer_address_id_index";`);
    this.addSql(`drop index if exists "customer_contact_id_index";`);
    this.addSql(`drop index if exists "document_folder_id_index";`);
    this.addSql(`drop index if exists "hosted_payment_setup_id_index";`);
    this.addSql(`drop index if exists "image_id_index";`);
    this.addSql(`drop index if exists "image_ingestion_id_index";`);
    this.addSql(`drop index if exists "image_ingestion_item_id_index";`);
    this.addSql(`drop index if exists "import_chunk_run_id_index";`);
    this.addSql(`drop index if exists "import_job_id_index";`);
    this.addSql(`drop index if exists "integration_id_index";`);
    this.addSql(`drop index if exists "invoice_id_index";`);
    this.addSql(`drop index if exists "invoice_payment_id_index";`);
    this.addSql(`drop index if exists "organization_member_id_index";`);
    this.addSql(`drop index if exists "organization_sales_rep_id_index";`);
    this.addSql(`drop index if exists "payment_method_id_index";`);
    this.addSql(`drop index if exists "payment_term_id_index";`);
    this.addSql(`drop index if exists "price_tier_id_index";`);
    this.addSql(`drop index if exists "sales_order_id_index";`);
    this.addSql(`drop index if exists "user_customer_id_index";`);
    this.addSql(`drop index if exists "webhook_delivery_id_index";`);
    this.addSql(`drop index if exists "webhook_event_id_index";`);
    this.addSql(`drop index if exists "webhook_subscription_id_index";`);
    this.addSql(`drop index if exists "invoice_payment_invoice_id_index";`);
    this.addSql(`drop index if exists "invoice_payment_provider_charge_id_index";`);
    this.addSql(`drop index if exists "payment_method_payment_profile_id_index";`);
    this.addSql(`drop index if exists "organization_member_user_id_index";`);
    this.addSql(`drop index if exists "organization_sales_rep_sales_rep_id_index";`);
    this.addSql(`drop index if exists "workflow_start_outbox_next_attempt_at_index";`);
    this.addSql(`drop index if exists "commission_statement_status_index";`);
  }
}
