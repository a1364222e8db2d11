/**
 * Object storage (MinIO or any S3) through the `minio` client only. One bucket per
 * environment; objects under `images/` are publicly readable (stable unsigned URLs a
 * browser can load), everything else (documents, import files) stays private.
 */
import http from 'node:http';
import https from 'node:https';
import { Client } from 'minio';
import type { Config } from '../config.js';
import { dependencyUnavailable, NETWORK_ERROR_CODES } from '../errors.js';

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
  /** Whether the storage answers and the bucket exists (readiness probe). */
  ping(): Promise<boolean>;
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

/**
 * The transport of the minio client with a bound on every request (issue 21): a request whose
 * socket stays silent for `ms` is destroyed with ETIMEDOUT, so a hung MinIO fails the call.
 */
export function boundedTransport(useSSL: boolean, ms: number): Pick<typeof http, 'request'> {
  const base = useSSL ? https : http;
  // The minio client calls request(options, callback).
  const request = ((options: http.RequestOptions, callback?: (res: http.IncomingMessage) => void) => {
    const req = base.request(options, callback);
    req.setTimeout(ms, () => req.destroy(Object.assign(new Error(`object storage did not answer within ${ms} ms`), { code: 'ETIMEDOUT' })));
    return req;
  }) as unknown as typeof http.request;
  return { request };
}

/** S3 answers that mean "not now": the server is starting, overloaded or its disks are away. */
const S3_UNAVAILABLE_CODES = new Set(['XMinioServerNotInitialized', 'SlowDown', 'ServiceUnavailable', 'XMinioStorageFull', 'InternalError', 'XMinioReadQuorum', 'XMinioWriteQuorum']);

/** Rethrows a failure to reach object storage as the 503 every caller answers (others unchanged). */
export function rethrowUnavailable(e: unknown): never {
  const code = (e as { code?: unknown })?.code;
  if (typeof code === 'string' && (NETWORK_ERROR_CODES.has(code) || S3_UNAVAILABLE_CODES.has(code))) throw dependencyUnavailable('object storage');
  throw e;
}

/** Runs every method of an object-storage client wrapper through rethrowUnavailable. */
export function tagged<T extends object>(storage: T): T {
  const out = { ...storage };
  for (const [name, fn] of Object.entries(storage)) {
    if (typeof fn !== 'function') continue;
    (out as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      try {
        const r = (fn as (...a: unknown[]) => unknown).apply(storage, args);
        return r instanceof Promise ? r.catch(rethrowUnavailable) : r;
      } catch (e) {
        return rethrowUnavailable(e);
      }
    };
  }
  return out;
}

export function createStorage(config: Config): Storage {
  const { endPoint, port, useSSL, accessKey, secretKey, bucket, publicUrl } = config.s3;
  const client = new Client({ endPoint, port, useSSL, accessKey, secretKey, transport: boundedTransport(useSSL, config.timeouts.storageRequestMs) });
  return tagged({
    bucket,
    async ping() {
      return client.bucketExists(bucket);
    },
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
  });
}
