/**
 * The one Temporal client module (issue 39 item 3): connecting (with a deadline on every call),
 * search attribute keys, and every way the API and the worker start or await a workflow:
 * `startWorkflow` (a plain start; false when the id is taken), `startOnce` (a start made once per
 * business key, kept in the start outbox when Temporal cannot be reached), `startPending` (the
 * outbox relay's start), `runWorkflow`/`awaitWorkflow` (start or attach, wait, and map the failure
 * to the AppError it carried), `signalWithStart` and `ensureSchedule`. Temporal's client errors are
 * read here only (`isWorkflowNotFound`, `updateRefusal`, `appErrorOf`); no other file of src
 * imports @temporalio/client (ESLint).
 */
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  ScheduleAlreadyRunning,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type ScheduleOptions,
  type WorkflowClientInterceptor,
  type WorkflowIdReusePolicy,
  type WorkflowSignalWithStartOptions,
} from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter, type Headers } from '@temporalio/common';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { Config } from '../config.js';
import { taskQueue } from '../config.js';
import { AppError, dependencyDown, type ErrorKind, type FieldErrors } from '../errors.js';
import { summaryOf, workflowTags, type BusinessKeys, type WorkflowAbout } from '../workflows/tags-defs.js';
import { dataConverterFor } from './payload-codec.js';
import { currentTraceparent, currentTracing } from '../tracing.js';
import { TRACEPARENT_HEADER } from '../workflows/tracing-defs.js';

export { SA, searchAttributes, workflowTags, type BusinessKeys, type WorkflowAbout } from '../workflows/tags-defs.js';
/** The client and the read-only shapes the rest of src sees (they never import @temporalio/client themselves). */
export type { Client, WorkflowExecutionInfo, WorkflowHandle } from '@temporalio/client';

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
  // Whatever the exporter, they carry the request's W3C traceparent (traceparentHeader, inside the span when traced).
  const workflow = [...(currentTracing() ? [new OpenTelemetryWorkflowClientInterceptor()] : []), traceparentHeader];
  return new Client({ connection, namespace: config.temporal.namespace, dataConverter: dataConverterFor(config), interceptors: { workflow } });
}

/** `headers` with the current request's W3C traceparent under `traceparent` (issue 43 item 3); as they are outside a request. */
function withTraceparent(headers: Headers): Headers {
  const tp = currentTraceparent();
  return tp ? { ...headers, [TRACEPARENT_HEADER]: defaultPayloadConverter.toPayload(tp) } : headers;
}

/**
 * Every workflow start, signal and update the API makes carries the request's trace (W3C
 * traceparent, a plain JSON payload: never encrypted, so the history shows it), so a trace id from
 * an API log leads to the workflow's history and the worker's log lines even with no exporter.
 */
export const traceparentHeader: WorkflowClientInterceptor = {
  start: (input, next) => next({ ...input, headers: withTraceparent(input.headers) }),
  startWithDetails: (input, next) => next({ ...input, headers: withTraceparent(input.headers) }),
  signalWithStart: (input, next) => next({ ...input, headers: withTraceparent(input.headers) }),
  signal: (input, next) => next({ ...input, headers: withTraceparent(input.headers) }),
  startUpdate: (input, next) => next({ ...input, headers: withTraceparent(input.headers) }),
  startUpdateWithStart: (input, next) => next({ ...input, workflowStartHeaders: withTraceparent(input.workflowStartHeaders), updateHeaders: withTraceparent(input.updateHeaders) }),
};


// ---------------------------------------------------------------------------------------------
// Starting workflows

/** The task queues that have workflows (the mail queue has activities only). */
export type WorkflowQueue = 'commerce' | 'media' | 'imports';

/** One workflow start: the workflow, its business-key id, its queue and how it is tagged. */
export interface WorkflowStart {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  /** Default `commerce`. */
  queue?: WorkflowQueue;
  /** The search attributes; `{ scope: 'system' }` for a workflow of no organization. */
  keys: BusinessKeys;
  /** What it does and the amount (workflowTags adds for whom from the keys); no personal data. */
  about: WorkflowAbout;
  /** Default REJECT_DUPLICATE: a business key runs once. */
  reuse?: WorkflowIdReusePolicy;
}

/** A workflow start as the outbox keeps it (everything startOnce needs, JSON only). */
export interface PendingStart {
  workflowType: string;
  workflowId: string;
  taskQueue: string;
  args: unknown[];
  keys: BusinessKeys;
  /** The static summary built when the start was asked for (summaryOf). */
  summary: string;
}

/** Keeps a start for later (src/services/workflow-outbox.ts); attached to a client by the composition root. */
export type StartOutbox = (start: PendingStart) => Promise<void>;
const outboxes = new WeakMap<Client, StartOutbox>();

/** Lets startOnce on `client` keep starts that cannot reach Temporal instead of failing them. */
export function attachStartOutbox(client: Client, outbox: StartOutbox): void {
  outboxes.set(client, outbox);
}

/**
 * The one call of `client.workflow.start`: true when it started, false when the workflow id is
 * taken (WorkflowExecutionAlreadyStartedError, the only place the client side reads it).
 */
async function start(client: Client, s: Omit<PendingStart, 'summary'> & { about: WorkflowAbout | string }, reuse: WorkflowIdReusePolicy): Promise<boolean> {
  try {
    await client.workflow.start(s.workflowType, {
      workflowId: s.workflowId,
      taskQueue: s.taskQueue,
      args: s.args,
      ...workflowTags(s.keys, s.about),
      workflowIdReusePolicy: reuse,
    });
    return true;
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw e;
  }
}

/** Starts a workflow now (no outbox: a Temporal that cannot be reached is the caller's error); false when its id is taken. */
export async function startWorkflow(client: Client, config: Config, s: WorkflowStart): Promise<boolean> {
  return start(client, { ...s, taskQueue: taskQueue(config, s.queue ?? 'commerce') }, s.reuse ?? 'REJECT_DUPLICATE');
}

/** Starts a kept start: true when it started or had already started (the outbox row can go). */
export async function startPending(client: Client, s: PendingStart): Promise<boolean> {
  await start(client, { ...s, about: s.summary }, 'REJECT_DUPLICATE');
  return true;
}

/**
 * Starts `workflowType` with id `workflowId` unless it already ran or runs; returns whether it started.
 * When Temporal cannot be reached (issue 21) and the client has an outbox, the start is kept there
 * and made once Temporal is back, and this answers true: what the caller already wrote stays valid
 * and its follow-up work (an e-mail, an invoice's issuance) is not lost.
 */
export async function startOnce(client: Client, config: Config, opts: Omit<WorkflowStart, 'reuse'>): Promise<boolean> {
  const s: PendingStart = { workflowType: opts.workflowType, workflowId: opts.workflowId, taskQueue: taskQueue(config, opts.queue ?? 'commerce'), args: opts.args, keys: opts.keys, summary: summaryOf(opts.keys, opts.about) };
  try {
    return await start(client, { ...s, about: opts.about }, 'REJECT_DUPLICATE');
  } catch (e) {
    const outbox = outboxes.get(client);
    if (outbox && dependencyDown(e) === 'temporal') {
      await outbox(s);
      return true;
    }
    throw e;
  }
}

/** Signals the workflow with this id, starting it first when none runs (signal-with-start). */
export async function signalWithStart<A extends unknown[]>(
  client: Client,
  config: Config,
  s: { workflowType: string; workflowId: string; args: unknown[]; queue?: WorkflowQueue; keys: BusinessKeys; about: WorkflowAbout; signal: WorkflowSignalWithStartOptions<A>['signal']; signalArgs: A },
): Promise<void> {
  await client.workflow.signalWithStart(s.workflowType, {
    workflowId: s.workflowId,
    taskQueue: taskQueue(config, s.queue ?? 'commerce'),
    args: s.args,
    signal: s.signal,
    signalArgs: s.signalArgs,
    ...workflowTags(s.keys, s.about),
  });
}

/** Creates a Temporal Schedule unless one with its id exists; true when it was created. */
export async function ensureSchedule(client: Client, options: ScheduleOptions): Promise<boolean> {
  try {
    await client.schedule.create(options);
    return true;
  } catch (e) {
    if (e instanceof ScheduleAlreadyRunning) return false;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// Awaiting workflows and mapping their failures to AppError (the one error type, src/errors.ts)

/** The kinds a workflow (or an update) may answer a client with; anything else is the service's own failure. */
const CLIENT_KINDS: ErrorKind[] = ['validation', 'bad_request', 'payment_required', 'not_found', 'conflict'];

/** The AppError an ApplicationFailure carries (type = AppError kind, details[0] = field errors) when its kind is a client's; else null. */
function carriedAppError(cause: unknown): AppError | null {
  if (!(cause instanceof ApplicationFailure) || !CLIENT_KINDS.includes(cause.type as ErrorKind)) return null;
  const details = cause.details?.[0];
  return new AppError(cause.type as ErrorKind, cause.message, details && typeof details === 'object' ? (details as FieldErrors) : undefined);
}

/** A failed workflow as the AppError it carried, or `internal` ("<what> failed.") when it carried none a client may see. */
export function appErrorOf(e: WorkflowFailedError, what: string): AppError {
  return carriedAppError(e.cause) ?? new AppError('internal', `${what} failed.`);
}

/** The refusal of a workflow update (its validator's or handler's ApplicationFailure), or null when `e` is something else. */
export function updateRefusal(e: unknown): ApplicationFailure | null {
  return e instanceof WorkflowUpdateFailedError && e.cause instanceof ApplicationFailure ? e.cause : null;
}

/** An update's refusal of a client kind as its AppError (as a workflow's failure maps), or null. */
export function updateAppError(e: unknown): AppError | null {
  return carriedAppError(updateRefusal(e));
}

/** Whether `e` says no workflow runs with the id (it never started, or it closed). */
export function isWorkflowNotFound(e: unknown): boolean {
  return e instanceof WorkflowNotFoundError;
}

/** A business workflow run from a request: what runWorkflow starts, and how long the request waits for it. */
export interface WorkflowRun {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  keys: BusinessKeys;
  /** What it does and the amount (workflowTags adds for whom from the keys); no personal data. */
  about: WorkflowAbout;
  waitMs: number;
  /** Names the work in messages: "<what> failed.", "<what> is still in progress; ...". */
  what: string;
  /** The 503 detail when the wait runs out (default: repeat the request with the same Idempotency-Key). */
  inProgress?: string;
}

/**
 * Running a business workflow from a request and answering with its result: start it under its
 * business-key id on the commerce queue (a second call with the same id attaches to the first
 * run; a failed run may be retried), wait at most `waitMs`, and map its failure back to the
 * AppError it carried, so the API answers the same problem details as if the work had run inline.
 */
export async function runWorkflow<T>(client: Client, config: Config, opts: WorkflowRun): Promise<T> {
  await startWorkflow(client, config, { ...opts, reuse: 'ALLOW_DUPLICATE_FAILED_ONLY' });
  return awaitWorkflow<T>(client, opts);
}

/**
 * Waits at most `waitMs` for the result of the run with this id, without starting one
 * (WorkflowNotFoundError when there is none); failures map as in runWorkflow.
 */
export async function awaitWorkflow<T>(client: Client, opts: Pick<WorkflowRun, 'workflowId' | 'waitMs' | 'what' | 'inProgress'>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AppError('unavailable', opts.inProgress ?? `${opts.what} is still in progress; repeat the request (same Idempotency-Key) to get its result.`)),
      opts.waitMs,
    );
  });
  try {
    return (await Promise.race([client.workflow.getHandle(opts.workflowId).result(), timeout])) as T;
  } catch (e) {
    if (e instanceof WorkflowFailedError) throw appErrorOf(e, opts.what);
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------
// Operator reads

/** One task queue's backlog as the Temporal server reports it. */
export interface TaskQueueBacklog {
  taskQueue: string;
  type: 'workflow' | 'activity';
  backlog: number;
}

/** TaskQueueType of the API (temporal.api.enums.v1): 1 workflow, 2 activity. */
const QUEUE_TYPES = [
  ['workflow', 1],
  ['activity', 2],
] as const;

/**
 * The approximate backlog (tasks no worker has taken yet) of each task queue, for workflow and
 * activity tasks (DescribeTaskQueue with stats), all asked at once and bounded by `timeoutMs`.
 */
export async function taskQueueBacklogs(client: Client, config: Config, queues: readonly string[], timeoutMs: number): Promise<TaskQueueBacklog[]> {
  return client.withDeadline(Date.now() + timeoutMs, () =>
    Promise.all(
      queues.flatMap((name) =>
        QUEUE_TYPES.map(async ([type, taskQueueType]) => {
          const res = await client.workflowService.describeTaskQueue({ namespace: config.temporal.namespace, taskQueue: { name }, taskQueueType, reportStats: true });
          return { taskQueue: name, type, backlog: Number(res.stats?.approximateBacklogCount ?? 0) };
        }),
      ),
    ),
  );
}
