/**
 * Private company-document objects in the bucket (`documents/<organizationId>/<documentId>`):
 * streamed put and get, stat, remove, and presigned GET URLs with attachment disposition.
 * Presigning uses the public endpoint (S3_PUBLIC_URL, else S3_ENDPOINT) so browsers can use it.
 */
import type { Readable } from 'node:stream';
import { Client } from 'minio';
import type { Config } from '../../config.js';
import { boundedTransport, tagged } from '../../adapters/storage.js';

export interface DocumentObjectStore {
  put(key: string, data: Readable | Buffer, size: number, contentType: string): Promise<void>;
  /** The object's bytes; null when the object is gone. */
  get(key: string): Promise<Readable | null>;
  remove(keys: string[]): Promise<void>;
  /** Whether the object exists (tests and consistency checks). */
  exists(key: string): Promise<boolean>;
  presignedGet(key: string, seconds: number, disposition: string, contentType: string): Promise<string>;
}

export const documentKey = (organizationId: string, documentId: string) => `documents/${organizationId}/${documentId}`;

const REGION = 'us-east-1';

export function createDocumentObjectStore(config: Config): DocumentObjectStore {
  const { endPoint, port, useSSL, accessKey, secretKey, bucket, publicUrl } = config.s3;
  const client = new Client({ endPoint, port, useSSL, accessKey, secretKey, region: REGION, transport: boundedTransport(useSSL, config.timeouts.storageRequestMs) });
  const pub = new URL(publicUrl || `${useSSL ? 'https' : 'http'}://${endPoint}:${port}`);
  const signer = new Client({
    endPoint: pub.hostname,
    port: Number(pub.port || (pub.protocol === 'https:' ? 443 : 80)),
    useSSL: pub.protocol === 'https:',
    accessKey,
    secretKey,
    region: REGION,
  });
  return tagged<DocumentObjectStore>({
    async put(key, data, size, contentType) {
      await client.putObject(bucket, key, data, size, { 'Content-Type': contentType, 'Cache-Control': 'private, no-store' });
    },
    async get(key) {
      try {
        return await client.getObject(bucket, key);
      } catch (e) {
        if ((e as { code?: string }).code === 'NoSuchKey' || (e as { code?: string }).code === 'NotFound') return null;
        throw e;
      }
    },
    async remove(keys) {
      if (keys.length) await client.removeObjects(bucket, keys);
    },
    async exists(key) {
      try {
        await client.statObject(bucket, key);
        return true;
      } catch (e) {
        if ((e as { code?: string }).code === 'NotFound' || (e as { code?: string }).code === 'NoSuchKey') return false;
        throw e;
      }
    },
    presignedGet: (key, seconds, disposition, contentType) =>
      signer.presignedGetObject(bucket, key, seconds, { 'response-content-disposition': disposition, 'response-content-type': contentType }),
  });
}

const stores = new WeakMap<Config, DocumentObjectStore>();

/** The store for a configuration, built once (no change to the shared Deps needed). */
export function documentStoreFor(config: Config): DocumentObjectStore {
  let s = stores.get(config);
  if (!s) {
    s = createDocumentObjectStore(config);
    stores.set(config, s);
  }
  return s;
}
