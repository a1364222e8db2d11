/**
 * Object storage (MinIO or any S3) through the `minio` client only. One bucket per
 * environment; objects under `images/` are publicly readable (stable unsigned URLs a
 * browser can load), everything else (documents, import files) stays private.
 */
import { Client } from 'minio';
import type { Config } from '../config.js';

export const PUBLIC_PREFIXES = ['images/'] as const;

export interface Storage {
  bucket: string;
  /** Creates the bucket if missing and (re)applies the public-read policy for `images/`. */
  ensureBucket(): Promise<void>;
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** Reads a whole object; null when it does not exist. */
  get(key: string): Promise<Buffer | null>;
  /** Removes the objects; missing ones are not an error. */
  remove(keys: string[]): Promise<void>;
  /** Stable unsigned URL of a public object. */
  publicUrl(key: string): string;
  /** A presigned PUT URL for a private object (client uploads, e.g. large import files). */
  presignedPut(key: string, expirySeconds: number): Promise<string>;
  /** Whether the object exists. */
  exists(key: string): Promise<boolean>;
}

export function publicReadPolicy(bucket: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { AWS: ['*'] },
        Action: ['s3:GetObject'],
        Resource: PUBLIC_PREFIXES.map((p) => `arn:aws:s3:::${bucket}/${p}*`),
      },
    ],
  });
}

export function createStorage(config: Config): Storage {
  const { endPoint, port, useSSL, accessKey, secretKey, bucket, publicUrl } = config.s3;
  const client = new Client({ endPoint, port, useSSL, accessKey, secretKey });
  return {
    bucket,
    async ensureBucket() {
      if (!(await client.bucketExists(bucket))) {
        try {
          await client.makeBucket(bucket);
        } catch (e) {
          // Another process (API or worker) may have created it meanwhile.
          const code = (e as { code?: string }).code;
          if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw e;
        }
      }
      await client.setBucketPolicy(bucket, publicReadPolicy(bucket));
    },
    async put(key, data, contentType) {
      await client.putObject(bucket, key, data, data.length, { 'Content-Type': contentType, 'Cache-Control': 'public, max-age=31536000, immutable' });
    },
    async get(key) {
      try {
        const stream = await client.getObject(bucket, key);
        const chunks: Buffer[] = [];
        for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
        return Buffer.concat(chunks);
      } catch (e) {
        if ((e as { code?: string }).code === 'NoSuchKey') return null;
        throw e;
      }
    },
    async remove(keys) {
      if (keys.length) await client.removeObjects(bucket, keys);
    },
    publicUrl(key) {
      return `${publicUrl}/${bucket}/${key}`;
    },
    presignedPut(key, expirySeconds) {
      return client.presignedPutObject(bucket, key, expirySeconds);
    },
    async exists(key) {
      try {
        await client.statObject(bucket, key);
        return true;
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code === 'NotFound' || code === 'NoSuchKey') return false;
        throw e;
      }
    },
  };
}
