import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Config } from './config.js';
import type { CredentialVersions, LoadClaims } from './http/auth.js';
import type { Storage } from './adapters/storage.js';

/** What the API needs from the outside world, built once by server.ts (or a test). */
export interface Deps {
  config: Config;
  orm: MikroORM;
  temporal: Client;
  credentialVersions: CredentialVersions;
  /** A user's live claims (membership, roles, customer), read on every user-token request by src/http/auth.ts. */
  loadClaims: LoadClaims;
  storage: Storage;
}
