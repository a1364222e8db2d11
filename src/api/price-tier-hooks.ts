/** Extension points for domains that reference price tiers by name (customers, product prices). */
import type { EntityManager } from '@mikro-orm/postgresql';

export const priceTierHooks = {
  /** Called inside the rename transaction. */
  onRename: [] as ((em: EntityManager, orgId: string, oldName: string, newName: string) => Promise<void>)[],
  /** Returns a reason when the tier cannot be deleted. */
  inUse: [] as ((em: EntityManager, orgId: string, name: string) => Promise<string | null>)[],
};
