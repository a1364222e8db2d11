import { openOrm } from './db/orm.js';

/** Applies every pending migration to the database at `databaseUrl`. */
export async function runMigrations(databaseUrl: string): Promise<void> {
  const orm = await openOrm(databaseUrl, 2);
  try {
    await orm.migrator.up();
  } finally {
    await orm.close(true);
  }
}
