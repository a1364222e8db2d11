import { Migration } from '@mikro-orm/migrations';

/**
 * Rate-limit buckets without WAL (issue 18 / issue 21): every authenticated request upserts its
 * organization's and its credential's bucket row, so all requests of one tenant queue on those two
 * row locks for as long as each transaction takes to commit. A logged table makes every commit wait
 * for a WAL flush (bench:catalog: the upsert averaged 3.8 ms against 2.7 ms for the product page
 * itself, with 4 clients of one tenant). Counters need no durability: an UNLOGGED table commits
 * without flushing, and after a PostgreSQL crash it starts empty, i.e. every window starts afresh
 * (docs/decisions.md "Rate-limit counters are not durable").
 */
export class Migration20261125030000_rate_limit_unlogged extends Migration {
  override name = 'Migration20261125030000_rate_limit_unlogged';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_bucket" set unlogged;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_bucket" set logged;`);
  }
}
