import { Migration } from '@mikro-orm/migrations';

export class Migration20261123130825_imports extends Migration {

  override name = 'Migration20261123130825_imports';

  override up(): void | Promise<void> {
    this.addSql(`create table "import_job" ("id" uuid not null, "organization_id" uuid not null, "kind" varchar(40) not null, "mode" varchar(20) not null, "on_error" varchar(20) not null, "status" varchar(30) not null default 'Queued', "format" varchar(10) not null, "input_key" varchar(500) not null, "file_name" varchar(300) null, "columns" jsonb null, "submitted_by" uuid null, "submitter_email" varchar(255) null, "total_records" int null, "chunk_count" int null, "processed" int not null default 0, "created" int not null default 0, "updated" int not null default 0, "unchanged" int not null default 0, "failed" int not null default 0, "generation" int not null default 0, "workflow_id" varchar(200) not null, "failure_reason" text null, "created_at" timestamptz not null, "started_at" timestamptz null, "finished_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "import_job_org_created_index" on "import_job" ("organization_id", "created_at");`);
    this.addSql(`create index "import_job_org_status_index" on "import_job" ("organization_id", "status");`);

    this.addSql(`create table "import_record_error" ("id" uuid not null, "organization_id" uuid not null, "job_id" uuid not null, "record" int not null, "chunk_index" int not null, "key" varchar(300) null, "field" varchar(300) not null, "message" text not null, "source" jsonb null, primary key ("id"));`);
    this.addSql(`create index "import_record_error_chunk_index" on "import_record_error" ("organization_id", "job_id", "chunk_index");`);
    this.addSql(`alter table "import_record_error" add constraint "import_record_error_unique" unique ("organization_id", "job_id", "record", "field");`);

    this.addSql(`create table "import_chunk_run" ("id" uuid not null, "organization_id" uuid not null, "job_id" uuid not null, "generation" int not null, "phase" varchar(10) not null, "chunk_index" int not null, "created" int not null default 0, "updated" int not null default 0, "unchanged" int not null default 0, "failed" int not null default 0, "finished_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "import_chunk_run" add constraint "import_chunk_run_unique" unique ("organization_id", "job_id", "generation", "phase", "chunk_index");`);

    this.addSql(`alter table "import_job" add constraint "import_job_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "import_job" add constraint "import_job_status_check" check (status in ('Queued', 'Running', 'Paused', 'Succeeded', 'SucceededWithErrors', 'Failed', 'Cancelled'));`);
    this.addSql(`alter table "import_job" add constraint "import_job_kind_check" check (kind in ('customers', 'products', 'prices', 'orders', 'invoices', 'user-customer-links'));`);

    this.addSql(`alter table "import_record_error" add constraint "import_record_error_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "import_record_error" add constraint "import_record_error_job_id_foreign" foreign key ("job_id") references "import_job" ("id") on delete cascade;`);

    this.addSql(`alter table "import_chunk_run" add constraint "import_chunk_run_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
    this.addSql(`alter table "import_chunk_run" add constraint "import_chunk_run_job_id_foreign" foreign key ("job_id") references "import_job" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "import_record_error" drop constraint "import_record_error_job_id_foreign";`);
    this.addSql(`alter table "import_chunk_run" drop constraint "import_chunk_run_job_id_foreign";`);

    this.addSql(`drop table if exists "import_job" cascade;`);
    this.addSql(`drop table if exists "import_record_error" cascade;`);
    this.addSql(`drop table if exists "import_chunk_run" cascade;`);
  }

}
