/**
 * The API process's cache of what every authenticated request reads: organization credential
 * versions, user token versions, live claims (src/services/auth/claims.ts), API keys, each
 * organization's price tiers and its provider settings (enabled integrations; the workers use it for these). It stays correct across API processes through PostgreSQL
 * LISTEN/NOTIFY: triggers on the rows these come from (migration
 * Migration20261124203000_read_caches) send `o:<organizationId>` or `u:<userId>` on channel
 * `b2b_cache` at commit, and every listening process drops the matching entries.
 *
 * Rules that keep it from serving stale data (docs/decisions.md "Read path"):
 * - Entries are served only while the LISTEN connection is up. When it is lost the cache drops
 *   everything and reads through to the database until it listens again (then drops once more).
 * - A value read while any invalidation arrived is returned but not stored (an epoch counter).
 * - `sync()` makes one round trip on the listening connection; a notification committed before
 *   it started is handled before it resolves. The app calls it after every write request, so a
 *   change made through this process (a removed admin, a deactivated rep) is seen by the very
 *   next request. Changes made by another process are seen as soon as their NOTIFY arrives
 *   (sent at their commit; typically well under a millisecond on one host).
 * - Entries also expire after `maxAgeMs` (CREDENTIAL_CACHE_SECONDS), a safety net only.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { LiveClaims } from '../../domain/auth/claims.js';
import type { ApiKeyOwner, CredentialVersions } from '../../http/auth.js';
import { log } from '../../logger.js';
import { listenClient } from '../../db/pools.js';
import { readRows } from '../../db/sql.js';
import { CLAIMS_SQL, claimsOfRow, type ClaimsRow } from './claims.js';

export const CACHE_CHANNEL = 'b2b_cache';

/** An organization's price tier as the catalog needs it. */
export interface TierRow {
  name: string;
  currencyCode: string;
}

interface Entry<T> {
  value: T;
  until: number;
}

interface OrgEntries {
  version?: Entry<number | null>;
  tiers?: Entry<TierRow[]>;
  /** Enabled integration settings by integration type (src/services/integrations/provider-settings.ts). */
  integrations?: Map<number, Entry<unknown>>;
  claims: Map<string, Entry<LiveClaims | null>>;
}

const MAX_ENTRIES = 200_000;

export class ReadCache implements CredentialVersions {
  private orgs = new Map<string, OrgEntries>();
  private users = new Map<string, Entry<number | null>>();
  /** user id -> organizations holding claims of that user. */
  private userOrgs = new Map<string, Set<string>>();
  private apiKeys = new Map<string, Entry<ApiKeyOwner> & { organizationId: string }>();
  private size = 0;
  private epoch = 0;
  private listening = false;
  private client: pg.Client | null = null;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  /** Counters for tests and the benchmark: notifications handled, times the connection was lost. */
  readonly stats = { notifications: 0, lost: 0, hits: 0, misses: 0 };

  /** `databaseUrl` null: a cache that never listens, so it always reads through (the worker). */
  constructor(
    private databaseUrl: string,
    private maxAgeMs: number,
    private listen = true,
  ) {}

  /** Starts listening; resolves once LISTEN is in place (or failed, then it retries in the background). */
  async start(): Promise<void> {
    if (this.listen) await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.drop(false);
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => undefined);
  }

  get isListening(): boolean {
    return this.listening;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = listenClient(this.databaseUrl, 'b2b-read-cache');
    const lost = (why: string) => {
      if (this.client !== client) return;
      this.client = null;
      this.stats.lost++;
      this.drop(false);
      log.warn('read cache: LISTEN connection lost; reading through until it is back', { why });
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', (e) => lost(String(e)));
    client.on('end', () => lost('connection ended'));
    client.on('notification', (n) => {
      if (n.channel === CACHE_CHANNEL) this.onNotification(n.payload ?? '');
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`listen ${CACHE_CHANNEL}`);
      if (this.client !== client) return;
      // Anything cached before (while not listening nothing is) may have missed a notification.
      this.drop(true);
    } catch (e) {
      lost(String(e));
    }
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, 500);
    this.retryTimer.unref();
  }

  /** Drops every entry; `listening` says whether entries may be cached from now on. */
  private drop(listening: boolean): void {
    this.epoch++;
    this.listening = listening;
    this.orgs.clear();
    this.users.clear();
    this.userOrgs.clear();
    this.apiKeys.clear();
    this.size = 0;
  }

  private onNotification(payload: string): void {
    this.stats.notifications++;
    const kind = payload.slice(0, 2);
    const id = payload.slice(2);
    if (kind === 'o:') this.invalidate(id);
    else if (kind === 'u:') this.invalidateUser(id);
    else this.drop(this.listening);
  }

  /**
   * Resolves after a round trip on the listening connection: every notification committed before
   * the call has then been handled. Concurrent callers share round trips.
   */
  sync(): Promise<void> {
    if (!this.client || !this.listening) return Promise.resolve();
    if (this.queued) return this.queued;
    if (!this.running) {
      const c = this.client;
      this.running = c
        .query('select 1')
        .then(() => undefined)
        .catch(() => undefined)
        .finally(() => {
          this.running = null;
        });
      return this.running;
    }
    this.queued = this.running.then(() => {
      this.queued = null;
      return this.sync();
    });
    return this.queued;
  }

  invalidate(organizationId: string): void {
    this.epoch++;
    const o = this.orgs.get(organizationId);
    if (o) {
      for (const u of o.claims.keys()) this.userOrgs.get(u)?.delete(organizationId);
      this.orgs.delete(organizationId);
    }
    for (const [k, v] of this.apiKeys) if (v.organizationId === organizationId) this.apiKeys.delete(k);
  }

  invalidateUser(userId: string): void {
    this.epoch++;
    this.users.delete(userId);
    for (const org of this.userOrgs.get(userId) ?? []) this.orgs.get(org)?.claims.delete(userId);
    this.userOrgs.delete(userId);
  }

  /** Reads through `load` unless a fresh entry exists; stores the value only when nothing was invalidated meanwhile. */
  private async cached<T>(get: () => Entry<T> | undefined, set: (e: Entry<T>) => void, load: () => Promise<T>): Promise<T> {
    if (this.listening) {
      const hit = get();
      if (hit && hit.until > Date.now()) {
        this.stats.hits++;
        return hit.value;
      }
    }
    this.stats.misses++;
    const epoch = this.epoch;
    const value = await load();
    if (this.listening && this.epoch === epoch) {
      if (++this.size > MAX_ENTRIES) this.drop(true);
      set({ value, until: Date.now() + this.maxAgeMs });
    }
    return value;
  }

  private org(id: string): OrgEntries {
    let o = this.orgs.get(id);
    if (!o) this.orgs.set(id, (o = { claims: new Map() }));
    return o;
  }

  /** The organization's credential version (null: no such organization). */
  get(_em: EntityManager, organizationId: string): Promise<number | null> {
    return this.cached(
      () => this.orgs.get(organizationId)?.version,
      (e) => (this.org(organizationId).version = e),
      async () => (await readRows<{ v: number }>(this.databaseUrl, 'select credential_version as v from organization where id = $1', [organizationId]))[0]?.v ?? null,
    );
  }

  /** The user's token version (null: no such user). */
  user(_em: EntityManager, userId: string): Promise<number | null> {
    return this.cached(
      () => this.users.get(userId),
      (e) => this.users.set(userId, e),
      async () => (await readRows<{ v: number }>(this.databaseUrl, 'select token_version as v from app_user where id = $1', [userId]))[0]?.v ?? null,
    );
  }

  /** The user's live claims in the organization (null: not a member). */
  claims(_em: EntityManager, organizationId: string, userId: string): Promise<LiveClaims | null> {
    return this.cached(
      () => this.orgs.get(organizationId)?.claims.get(userId),
      (e) => {
        this.org(organizationId).claims.set(userId, e);
        let s = this.userOrgs.get(userId);
        if (!s) this.userOrgs.set(userId, (s = new Set()));
        s.add(organizationId);
      },
      async () => {
        const rows = await readRows<ClaimsRow>(this.databaseUrl, CLAIMS_SQL, [organizationId, userId]);
        return rows[0] ? claimsOfRow(rows[0]) : null;
      },
    );
  }

  /** The active API key with this hash: its organization and client id (misses are not cached). */
  async apiKey(_em: EntityManager, keyHash: string): Promise<ApiKeyOwner | null> {
    if (this.listening) {
      const hit = this.apiKeys.get(keyHash);
      if (hit && hit.until > Date.now()) return hit.value;
    }
    const epoch = this.epoch;
    const rows = await readRows<{ organization_id: string; client_id: string }>(
      this.databaseUrl,
      'select organization_id, client_id from api_credential where api_key_hash = $1 and active',
      [keyHash],
    );
    if (!rows.length) return null;
    const value = { organizationId: rows[0].organization_id, clientId: rows[0].client_id };
    if (this.listening && this.epoch === epoch) this.apiKeys.set(keyHash, { value, organizationId: value.organizationId, until: Date.now() + this.maxAgeMs });
    return value;
  }

  /**
   * The organization's enabled integration of `type` as `load` reads it (provider settings: every
   * charge and e-mail needs them). Dropped when any of the organization's integration rows changes
   * (trigger b2b_cache_integration, Migration20261125021700_integration_cache).
   */
  integration<T>(organizationId: string, type: number, load: () => Promise<T>): Promise<T> {
    return this.cached(
      () => this.orgs.get(organizationId)?.integrations?.get(type) as Entry<T> | undefined,
      (e) => {
        const o = this.org(organizationId);
        (o.integrations ??= new Map()).set(type, e);
      },
      load,
    );
  }

  /** The organization's price tiers ordered by name. */
  priceTiers(organizationId: string): Promise<TierRow[]> {
    return this.cached(
      () => this.orgs.get(organizationId)?.tiers,
      (e) => (this.org(organizationId).tiers = e),
      () => readRows<TierRow>(this.databaseUrl, 'select name, currency_code as "currencyCode" from price_tier where organization_id = $1 order by name', [organizationId]),
    );
  }
}
