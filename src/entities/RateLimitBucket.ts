import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** Fixed-window rate-limit counter, shared by every API instance. */
export const RateLimitBucket = defineEntity({
  name: 'RateLimitBucket',
  properties: {
    key: p.string().primary(),
    windowStart: p.datetime(),
    count: p.integer(),
  },
});
export type RateLimitBucket = InferEntity<typeof RateLimitBucket>;
