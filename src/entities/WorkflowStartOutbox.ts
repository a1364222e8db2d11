import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/**
 * A workflow start that could not reach Temporal (issue 21): the request that made it answered
 * success, and the API's relay (src/services/workflow-outbox.ts) starts it once Temporal is back.
 * The workflow id is the business key, so a start that did reach Temporal before failing locally
 * is a no-op the second time. Platform-wide starts (password reset) use the nil organization id.
 */
export const WorkflowStartOutbox = defineEntity({
  name: 'WorkflowStartOutbox',
  properties: {
    organizationId: p.uuid().primary(),
    workflowId: p.string().length(300).primary(),
    workflowType: p.string(),
    taskQueue: p.string(),
    args: p.json<unknown[]>(),
    /** BusinessKeys (src/adapters/temporal.ts), turned into search attributes at start. */
    keys: p.json<Record<string, string | null>>(),
    /** The workflow's summary memo (what operators see in the Temporal UI). */
    summary: p.text().default(''),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().defaultRaw('now()'),
    lastError: p.text().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type WorkflowStartOutbox = InferEntity<typeof WorkflowStartOutbox>;
