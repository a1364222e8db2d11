/**
 * Reads that may go to a streaming replica (docs/scaling.md "Reads on the replica"). With
 * DATABASE_REPLICA_URL set, the API opens a second ORM over the same primary with the replica as its
 * read connection (MikroORM `replicas`, reads outside a transaction prefer it); a route marked
 * `reads: 'replica'` (lists, analytics, statements of account, timelines, exports) runs on it when
 * `choose()` says the replica is fresh enough. Writes and transactions always go to the primary.
 *
 * Read-your-writes: the replica serves a request only once it has replayed everything the primary
 * had flushed when the request asked (`pg_last_wal_replay_lsn() >= ` the primary's
 * `pg_current_wal_flush_lsn()`), so a write acknowledged before the read began, by any API process, is
 * always seen. A replica still behind after `waitMs` or unreachable serves nothing: the read goes to
 * the primary, and an unreachable replica is left alone for `downMs` before it is asked again.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { probePool, readPool } from './pools.js';
import { openOrm, type DbTimeouts } from './orm.js';

export type ReadTarget = 'replica' | 'primary';
/** Why a read went where it went: the replica was fresh, still behind after the wait, or unreachable. */
export type ReadReason = 'fresh' | 'lagging' | 'unavailable';

export interface ReplicaReads {
  /** The ORM whose reads outside a transaction go to the replica (writes to the primary). */
  orm: MikroORM;
  url: string;
  choose(): Promise<{ target: ReadTarget; reason: ReadReason }>;
  close(): Promise<void>;
}

export interface ReplicaOptions {
  /** How long a request waits for a replica that is behind before it reads the primary. */
  waitMs: number;
  /** How long an unreachable replica is not asked again. */
  downMs: number;
  poolMax: number;
  timeouts?: DbTimeouts;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function openReplicaReads(primaryUrl: string, replicaUrl: string, o: ReplicaOptions): Promise<ReplicaReads> {
  const orm = await openOrm(primaryUrl, o.poolMax, o.timeouts, { replicaUrl });
  let downUntil = 0;
  const primaryLsn = async (): Promise<string> =>
    (await readPool(primaryUrl).query<{ lsn: string }>({ name: 'primary_flush_lsn', text: 'select pg_current_wal_flush_lsn()::text as lsn' })).rows[0].lsn;
  const replayed = async (lsn: string): Promise<boolean> =>
    (await probePool(replicaUrl).query<{ ok: boolean | null }>({ name: 'replica_replayed', text: 'select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok', values: [lsn] })).rows[0].ok === true;
  return {
    orm,
    url: replicaUrl,
    async choose() {
      if (Date.now() < downUntil) return { target: 'primary', reason: 'unavailable' };
      const lsn = await primaryLsn();
      const deadline = Date.now() + o.waitMs;
      try {
        for (let wait = 2; ; wait = Math.min(wait * 2, 20)) {
          if (await replayed(lsn)) return { target: 'replica', reason: 'fresh' };
          if (Date.now() + wait > deadline) return { target: 'primary', reason: 'lagging' };
          await sleep(wait);
        }
      } catch {
        downUntil = Date.now() + o.downMs;
        return { target: 'primary', reason: 'unavailable' };
      }
    },
    close: () => orm.close(),
  };
}
