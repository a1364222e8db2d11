import { Migration } from '@mikro-orm/migrations';

export class Migration20261123132732_documents extends Migration {

  override name = 'Migration20261123132732_documents';

  override up(): void | Promise<void> {
    this.addSql(`create table "company_document" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(255) not null, "file_extension" varchar(10) not null, "mime_type" varchar(200) not null, "size" bigint not null, "folder_id" uuid null, "external_id" varchar(200) null, "storage_key" varchar(300) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "company_document_org_folder_index" on "company_document" ("organization_id", "folder_id");`);
    this.addSql(`create unique index "company_document_folder_name_unique" on "company_document" ("organization_id", coalesce("folder_id", '00000000-0000-0000-0000-000000000000'), lower("name"));`);

    this.addSql(`create table "document_folder" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(255) not null, "parent_id" uuid null, "path" text not null, "depth" int not null, "external_id" varchar(200) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create unique index "document_folder_sibling_name_unique" on "document_folder" ("organization_id", coalesce("parent_id", '00000000-0000-0000-0000-000000000000'), lower("name"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "company_document" cascade;`);
    this.addSql(`drop table if exists "document_folder" cascade;`);

  }

}
