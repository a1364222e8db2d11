/**
 * Statements with bound parameters on the ORM's own connection. `em.execute(sql, params)` in
 * MikroORM 7.2.1 interpolates every value into the SQL text (`platform.formatQuery`, which escapes
 * strings one character at a time: a 3 MB payload costs seconds of CPU and garbage; see
 * src/services/db/reads.ts). Here the text keeps PostgreSQL's `$n` placeholders and the values go
 * to the wire as parameters, through the Kysely instance MikroORM runs on: inside
 * `em.transactional()` that is the transaction's connection (its locks and its snapshot), outside
 * it the ORM's pool. Rows come back with the ORM pool's type parsers (timestamps as text, as
 * `em.execute` gives them); errors are converted like the ORM's own.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';

/** Runs one statement (`$1`, `$2`, ... placeholders) and answers its rows. */
export async function boundRows<T>(em: EntityManager, text: string, params: readonly unknown[] = []): Promise<T[]> {
  try {
    const res = await em.getKysely().executeQuery<T>(CompiledQuery.raw(text, [...params]));
    return res.rows;
  } catch (e) {
    throw e instanceof Error ? em.getDriver().convertException(e) : e;
  }
}
