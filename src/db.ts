import { defineConfig, MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities/index.js';
import { migrationsList } from './migrations/index.js';

/** ORM configuration for a database URL. Migrations are listed explicitly (src/migrations/index.ts). */
export function ormConfig(databaseUrl: string, poolMax = 10) {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, path: 'src/migrations', pathTs: 'src/migrations', snapshot: false, emit: 'ts', silent: true },
    pool: { min: 0, max: poolMax },
    // Triggers and functions are hand-written in migrations (analytics rollups, the webhook outbox): never diffed or dropped.
    schemaGenerator: { ignoreTriggers: true, ignoreRoutines: true },
    debug: false,
    allowGlobalContext: false,
  });
}

export async function openOrm(databaseUrl: string, poolMax?: number): Promise<MikroORM> {
  return MikroORM.init(ormConfig(databaseUrl, poolMax));
}
