import { Migration } from '@mikro-orm/migrations';

export class Migration20261122071405_images extends Migration {

  override name = 'Migration20261122071405_images';

  override up(): void | Promise<void> {
    this.addSql(`create table "image_ingestion" ("id" uuid not null, "organization_id" uuid not null, "created_at" timestamptz not null, "completed_at" timestamptz null, primary key ("id"));`);

    this.addSql(`create table "image_ingestion_item" ("id" uuid not null, "ingestion_id" uuid not null, "position" int not null, "url" text not null, "image_name" varchar(255) null, "product_sku" varchar(255) null, "extract_sku_from_image_name" boolean not null default false, "status" varchar(255) not null default 'pending', "reason" text null, "image_id" uuid null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "image_ingestion_item" add constraint "image_ingestion_item_position_unique" unique ("ingestion_id", "position");`);

    this.addSql(`create table "image" ("id" uuid not null, "organization_id" uuid not null, "name" varchar(255) not null, "width" int not null, "height" int not null, "content_size" int not null, "source" text not null, "format" varchar(255) not null, "active" boolean not null default true, "sku" varchar(255) null, "category_name" varchar(255) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "image_org_name_idx" on "image" ("organization_id", "name");`);
    this.addSql(`create index "image_org_sku_idx" on "image" ("organization_id", "sku");`);
    this.addSql(`create index "image_org_category_idx" on "image" ("organization_id", "category_name");`);

    this.addSql(`alter table "image_ingestion" add constraint "image_ingestion_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);

    this.addSql(`alter table "image_ingestion_item" add constraint "image_ingestion_item_ingestion_id_foreign" foreign key ("ingestion_id") references "image_ingestion" ("id") on delete cascade;`);
    this.addSql(`alter table "image_ingestion_item" add constraint "image_ingestion_item_status_check" check (status in ('pending', 'succeeded', 'failed'));`);

    this.addSql(`alter table "image" add constraint "image_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "image_ingestion_item" drop constraint "image_ingestion_item_ingestion_id_foreign";`);

    this.addSql(`drop table if exists "image_ingestion" cascade;`);
    this.addSql(`drop table if exists "image_ingestion_item" cascade;`);
    this.addSql(`drop table if exists "image" cascade;`);
  }

}
