import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/**
 * A request made with an `Idempotency-Key` header: the first response is stored and
 * replayed for the same caller, key and body; the same key with another body is a 409.
 */
export const IdempotencyRecord = defineEntity({
  name: 'IdempotencyRecord',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organizationId: p.uuid(),
    /** `user:<id>`, `client:<clientId>` or `apikey:<clientId>`: a key is never replayed to another caller. */
    caller: p.string().length(120).default(''),
    route: p.string(),
    key: p.string().length(200),
    requestHash: p.string(),
    responseStatus: p.integer().nullable(),
    responseBody: p.json<unknown>().nullable(),
    /** Headers of the stored response a replay repeats (Location of a 201). */
    responseHeaders: p.json<Record<string, string>>().nullable(),
    /** The answer carried a secret or token (RouteDef answersSecret): only its status is kept, and a repeated key is a 409. */
    withheld: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    completedAt: p.datetime().nullable(),
  },
  uniques: [{ name: 'idempotency_record_org_caller_route_key_unique', properties: ['organizationId', 'caller', 'route', 'key'] }],
});
export type IdempotencyRecord = InferEntity<typeof IdempotencyRecord>;
