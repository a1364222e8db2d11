/**
 * Fixed-window rate limiter whose counters live in PostgreSQL (table rate_limit_bucket),
 * so every API instance shares them. One upsert per request.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';

const WINDOW_SECONDS = 60;

export async function enforceRateLimit(em: EntityManager, key: string, limit: number): Promise<void> {
  const rows = await em.getConnection().execute<{ count: number; retry_after: number }[]>(
    `insert into rate_limit_bucket as b (key, window_start, count) values (?, now(), 1)
     on conflict (key) do update set
       count = case when b.window_start <= now() - make_interval(secs => ?) then 1 else b.count + 1 end,
       window_start = case when b.window_start <= now() - make_interval(secs => ?) then now() else b.window_start end
     returning count, ceil(extract(epoch from (window_start + make_interval(secs => ?) - now())))::int as retry_after`,
    [key, WINDOW_SECONDS, WINDOW_SECONDS, WINDOW_SECONDS],
  );
  const { count, retry_after } = rows[0];
  if (count > limit) {
    throw new AppError('rate_limited', `Rate limit of ${limit} requests per minute exceeded; retry after ${retry_after} seconds.`, undefined, {
      'Retry-After': String(Math.max(1, retry_after)),
    });
  }
}
