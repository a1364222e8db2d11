/**
 * A user's commerce context in an organization: customer association (CustomerNumber,
 * PriceTier, CurrencyCode) and sales rep number. Later domains (customers, reps) register
 * resolvers here so login and enrichment pick them up without changing the auth code.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface CommerceContext {
  CustomerNumber: string | null;
  PriceTier: string | null;
  CurrencyCode: string | null;
  repNumber: string | null;
  repActive: boolean;
}

type Resolver = (em: EntityManager, organizationId: string, userId: string) => Promise<Partial<CommerceContext>>;
const resolvers: Resolver[] = [];

export function registerContextResolver(r: Resolver): void {
  resolvers.push(r);
}

export async function commerceContext(em: EntityManager, organizationId: string, userId: string): Promise<CommerceContext> {
  const ctx: CommerceContext = { CustomerNumber: null, PriceTier: null, CurrencyCode: null, repNumber: null, repActive: true };
  for (const r of resolvers) Object.assign(ctx, await r(em, organizationId, userId));
  return ctx;
}
