/**
 * The request's data context, apart from src/db/orm.ts so that src/db/sql.ts can read it without
 * loading the ORM: which EntityManager the request forks, and whether it reads the replica.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A request's EntityManager, forked from the global one on its first use: the global EntityManager
 * resolves to it inside the request (the ORM's `context` option, src/db/orm.ts), and a request that only
 * reads through bound SQL statements (a product, a customer, a cart) forks none. A fork is a unit of
 * work, an identity map and their helpers: a few percent of the API's CPU on the one-statement reads.
 */
class RequestEntityManager {
  #em: EntityManager | undefined;
  #forking = false;
  /** The replica's URL once the request reads there (forkRequestFrom). */
  readUrl: string | undefined;
  constructor(private root: EntityManager) {}
  /** Forks from `root` instead, unless the fork is made already; says whether it will. */
  switchRoot(root: EntityManager, readUrl: string): boolean {
    if (this.#em || this.#forking) return false;
    this.root = root;
    this.readUrl = readUrl;
    return true;
  }
  /** The fork; undefined while it is being made (the fork's construction resolves its own context: it is then itself). */
  get(): EntityManager | undefined {
    if (this.#em || this.#forking) return this.#em;
    this.#forking = true;
    try {
      // disableContextResolution: fork the global EntityManager itself, as RequestContext.create does.
      this.#em = this.root.fork({ useContext: true, disableContextResolution: true });
    } finally {
      this.#forking = false;
    }
    return this.#em;
  }
}
export const requestEntityManagers = new AsyncLocalStorage<RequestEntityManager>();

/** Runs `next` (a request) with its own EntityManager, forked from `root` when it is first used. */
export const withRequestEntityManager = <T>(root: EntityManager, next: () => T): T => requestEntityManagers.run(new RequestEntityManager(root), next);

/**
 * Makes the request's EntityManager a fork of `root` (the ORM of replica reads, src/db/replica.ts)
 * if the request has not used its EntityManager yet; says whether it did.
 */
export const forkRequestFrom = (root: EntityManager, readUrl: string): boolean => requestEntityManagers.getStore()?.switchRoot(root, readUrl) ?? false;

/** The replica's URL when the request reads there (forkRequestFrom), else undefined. */
export const requestReadUrl = (): string | undefined => requestEntityManagers.getStore()?.readUrl;

