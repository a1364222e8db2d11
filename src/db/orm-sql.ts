/**
 * SQL text on the ORM's own connection (see src/db/sql.ts for the other runners and why values are
 * bound, never inlined). `kysely` is declared at the exact version @mikro-orm/sql pins; upgrade them together.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import type { Sql } from './sql.js';

/**
 * Runs one statement on the ORM's connection, through the Kysely instance MikroORM runs on: inside
 * `em.transactional()` that is the transaction's connection, outside it the ORM's pool. Rows come
 * back with the ORM pool's type parsers (timestamps as text, as `em.execute` gives them); errors
 * are converted like the ORM's own. It prepares no named statement (writes in a transaction,
 * texts that vary).
 */
export async function boundRows<T>(em: EntityManager, text: string, params: readonly unknown[] = []): Promise<T[]> {
  try {
    const res = await em.getKysely().executeQuery<T>(CompiledQuery.raw(text, [...params]));
    return res.rows;
  } catch (e) {
    throw e instanceof Error ? em.getDriver().convertException(e) : e;
  }
}

/**
 * `boundRows` for a read that may run on the replica: outside a transaction on the ORM's read
 * connection (the replica when the request was sent there, src/db/replica.ts; else the primary).
 */
export async function replicaRows<T>(em: EntityManager, text: string, params: readonly unknown[] = []): Promise<T[]> {
  try {
    const res = await em.getKysely({ type: 'read' }).executeQuery<T>(CompiledQuery.raw(text, [...params]));
    return res.rows;
  } catch (e) {
    throw e instanceof Error ? em.getDriver().convertException(e) : e;
  }
}

/** `boundRows` as an `Sql` handle (the numbering allocator takes one from either side). */
export const boundSql =
  (em: EntityManager): Sql =>
  <T>(text: string, params: unknown[] = []) =>
    boundRows<T>(em, text, params);
