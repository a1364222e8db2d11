import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';

/** A remote-image ingestion job (one `ingestRemoteImages` workflow); its id is the jobId. */
export const ImageIngestion = defineEntity({
  name: 'ImageIngestion',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    createdAt: p.datetime().onCreate(() => new Date()),
    completedAt: p.datetime().nullable(),
  },
});
export type ImageIngestion = InferEntity<typeof ImageIngestion>;

/** One image of an ingestion: pending until its activity records succeeded (with imageId) or failed (with reason). */
export const ImageIngestionItem = defineEntity({
  name: 'ImageIngestionItem',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    /** The ingestion's organization (DESIGN "Scale-out"; FK (organization_id, ingestion_id) in the migration). */
    organization: () => p.manyToOne(Organization).deleteRule('cascade').onCreate((x: { ingestion: { organization: unknown } }) => x.ingestion.organization as never),
    ingestion: () => p.manyToOne(ImageIngestion).deleteRule('cascade').index('image_ingestion_item_ingestion_id_index'),
    position: p.integer(),
    url: p.text(),
    imageName: p.string().nullable(),
    productSku: p.string().nullable(),
    extractSkuFromImageName: p.boolean().default(false),
    status: p.string().$type<'pending' | 'succeeded' | 'failed'>().default('pending'),
    reason: p.text().nullable(),
    imageId: p.uuid().nullable(),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  uniques: [{ name: 'image_ingestion_item_position_unique', properties: ['organization', 'ingestion', 'position'] }],
  checks: [{ name: 'image_ingestion_item_status_check', expression: "status in ('pending', 'succeeded', 'failed')" }],
});
export type ImageIngestionItem = InferEntity<typeof ImageIngestionItem>;
