import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from './adapters/temporal.js';
import type { Config } from './config.js';
import type { CredentialVersions } from './http/auth.js';
import type { ReadCache } from './services/auth/cache.js';
import type { Storage } from './adapters/storage.js';
import type { ReplicaReads } from './db/replica.js';

/** What the API needs from the outside world, built once by server.ts (or a test). */
export interface Deps {
  config: Config;
  orm: MikroORM;
  temporal: Client;
  /** Credential versions, live claims and API keys for src/http/auth.ts (the same object as `readCache`). */
  credentialVersions: CredentialVersions;
  /** The process's LISTEN/NOTIFY-invalidated cache (src/services/auth/cache.ts): also the organizations' price tiers. */
  readCache: ReadCache;
  storage: Storage;
  /** Reads on the streaming replica (DATABASE_REPLICA_URL; the API only), for routes marked `reads: 'replica'`. */
  replicaReads?: ReplicaReads;
}
