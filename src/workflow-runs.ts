/**
 * Running a business workflow from a request and answering with its result: start it under its
 * business-key id (a second call with the same id attaches to the first run; a failed run may
 * be retried), wait at most `waitMs`, and map its failure back to the AppError it carried
 * (type = AppError kind, details[0] = field errors), so the API answers the same problem details
 * as if the work had run inline.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { taskQueue, type Config } from './config.js';
import { AppError, type ErrorKind, type FieldErrors } from './errors.js';
import { searchAttributes, summaryMemo, type BusinessKeys } from './adapters/temporal.js';

const CLIENT_KINDS: ErrorKind[] = ['validation', 'bad_request', 'payment_required', 'not_found', 'conflict'];

export function appErrorOf(e: WorkflowFailedError, what: string): AppError {
  const cause = e.cause instanceof ApplicationFailure ? e.cause : null;
  const kind = (cause?.type ?? '') as ErrorKind;
  if (cause && CLIENT_KINDS.includes(kind)) {
    const details = cause.details?.[0];
    const errors = details && typeof details === 'object' ? (details as FieldErrors) : undefined;
    return new AppError(kind, cause.message, errors);
  }
  return new AppError('internal', `${what} failed.`);
}

export interface WorkflowRun {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  keys: BusinessKeys;
  /** One line for the memo: what, for whom, how much (no personal data). */
  summary: string;
  waitMs: number;
  /** Names the work in messages: "<what> failed.", "<what> is still in progress; ...". */
  what: string;
  /** The 503 detail when the wait runs out (default: repeat the request with the same Idempotency-Key). */
  inProgress?: string;
}

/** Starts the workflow (or attaches to the run with its id) and answers its result; see the file header. */
export async function runWorkflow<T>(client: Client, config: Config, opts: WorkflowRun): Promise<T> {
  try {
    await client.workflow.start(opts.workflowType, {
      workflowId: opts.workflowId,
      taskQueue: taskQueue(config, 'commerce'),
      args: opts.args,
      typedSearchAttributes: searchAttributes(opts.keys),
      memo: summaryMemo(opts.summary),
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    });
  } catch (e) {
    if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
  }
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
