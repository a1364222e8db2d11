/**
 * Temporal client side: connecting (with a deadline on every call), search attribute keys, and
 * starting a workflow exactly once per business key (a second start with the same id is a no-op;
 * a start that cannot reach Temporal is kept in the outbox when the client has one).
 */
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { Config } from '../config.js';
import { taskQueue } from '../config.js';
import { dependencyDown } from '../errors.js';
import type { SendEmailInput } from '../workflows/send-email-defs.js';
import { emailSummary, searchAttributes, summaryMemo, type BusinessKeys } from '../workflows/tags-defs.js';
import { dataConverterFor } from './payload-codec.js';
import { currentTracing } from '../tracing.js';

export { SA, searchAttributes, summaryMemo, type BusinessKeys } from '../workflows/tags-defs.js';

/** Calls that wait on the server by design (long polls): they get a longer bound than the rest. */
const LONG_POLL_METHODS = /\/(GetWorkflowExecutionHistory|PollWorkflowExecutionUpdate|UpdateWorkflowExecution|ExecuteMultiOperation|PollActivityTaskQueue|PollWorkflowTaskQueue)$/;
/** A long poll returns empty after about 20 s on a healthy server; past this it is hung. */
const LONG_POLL_DEADLINE_MS = 70_000;

/**
 * A deadline on every Temporal call that has none (issue 21): a hung or unreachable server makes
 * the call fail (DEADLINE_EXCEEDED, UNAVAILABLE) within `callMs` instead of waiting forever. It runs
 * outside the client's retry interceptor, so the retries of one call share its deadline.
 */
export function deadlineInterceptor(callMs: number): Interceptor {
  return (options, nextCall) => {
    if (options.deadline === undefined || options.deadline === Infinity) {
      const path = options.method_definition?.path ?? '';
      options = { ...options, deadline: Date.now() + (LONG_POLL_METHODS.test(path) ? LONG_POLL_DEADLINE_MS : callMs) };
    }
    return new InterceptingCall(nextCall(options));
  };
}

export async function connectTemporal(config: Config): Promise<Client> {
  const connection = await Connection.connect({
    address: config.temporal.address,
    connectTimeout: config.timeouts.temporalCallMs,
    // gRPC's reconnect backoff grows to 2 minutes while the server is away, so the API would stay
    // unready (and refuse checkouts) that long after Temporal is back: capped at 2 s (issue 21).
    channelArgs: { 'grpc.initial_reconnect_backoff_ms': 250, 'grpc.max_reconnect_backoff_ms': 2_000 },
    interceptors: [deadlineInterceptor(config.timeouts.temporalCallMs), makeGrpcRetryInterceptor(defaultGrpcRetryOptions())],
  });
  // Traced (src/tracing.ts): workflow starts, signals and updates get a span and carry the trace in their headers.
  const interceptors = currentTracing() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
  return new Client({ connection, namespace: config.temporal.namespace, dataConverter: dataConverterFor(config), interceptors });
}

/** A workflow start as the outbox keeps it (everything startOnce needs, JSON only). */
export interface PendingStart {
  workflowType: string;
  workflowId: string;
  taskQueue: string;
  args: unknown[];
  keys: BusinessKeys;
  summary: string;
}

/** Keeps a start for later (src/services/workflow-outbox.ts); attached to a client by the composition root. */
export type StartOutbox = (start: PendingStart) => Promise<void>;
const outboxes = new WeakMap<Client, StartOutbox>();

/** Lets startOnce on `client` keep starts that cannot reach Temporal instead of failing them. */
export function attachStartOutbox(client: Client, outbox: StartOutbox): void {
  outboxes.set(client, outbox);
}

async function start(client: Client, s: PendingStart): Promise<void> {
  await client.workflow.start(s.workflowType, {
    workflowId: s.workflowId,
    taskQueue: s.taskQueue,
    args: s.args,
    typedSearchAttributes: searchAttributes(s.keys),
    memo: summaryMemo(s.summary),
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
  });
}

/** Starts a kept start: true when it started or had already started (the outbox row can go). */
export async function startPending(client: Client, s: PendingStart): Promise<boolean> {
  try {
    await start(client, s);
    return true;
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return true;
    throw e;
  }
}

/**
 * Starts `workflowType` with id `workflowId` unless it already ran or runs; returns whether it started.
 * When Temporal cannot be reached (issue 21) and the client has an outbox, the start is kept there
 * and made once Temporal is back, and this answers true: what the caller already wrote stays valid
 * and its follow-up work (an e-mail, an invoice's issuance) is not lost.
 */
export async function startOnce(
  client: Client,
  config: Config,
  opts: { workflowType: string; workflowId: string; args: unknown[]; queue?: 'commerce' | 'media' | 'imports'; keys: BusinessKeys; summary: string },
): Promise<boolean> {
  const s: PendingStart = { workflowType: opts.workflowType, workflowId: opts.workflowId, taskQueue: taskQueue(config, opts.queue ?? 'commerce'), args: opts.args, keys: opts.keys, summary: opts.summary };
  try {
    await start(client, s);
    return true;
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return false;
    const outbox = outboxes.get(client);
    if (outbox && dependencyDown(e) === 'temporal') {
      await outbox(s);
      return true;
    }
    throw e;
  }
}

/** Queues an e-mail through the sendEmail workflow; `emailId` is its business key; `keys` tag it beyond its organization. */
export async function queueEmail(client: Client, config: Config, input: SendEmailInput, keys: BusinessKeys = {}): Promise<void> {
  const tags = { organizationId: input.organizationId, ...keys };
  await startOnce(client, config, {
    workflowType: 'sendEmail',
    workflowId: `email-${input.emailId}`,
    args: [input],
    keys: tags,
    summary: emailSummary(input.template, tags),
  });
}
