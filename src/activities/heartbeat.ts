/** Heartbeats of long activities, so a lost worker's attempt is noticed within the heartbeat timeout and retried. */
import { Context } from '@temporalio/activity';

/** One heartbeat; a no-op outside an activity (direct calls). */
export const heartbeat = (details?: unknown): void => {
  try {
    Context.current().heartbeat(details);
  } catch {
    /* outside an activity (direct calls) */
  }
};

/** Runs `fn`, heartbeating every `everyMs` (with `at: 'start'` once before it begins too). */
export async function beating<T>(fn: () => Promise<T>, opts: { details?: unknown; at?: 'start'; everyMs?: number } = {}): Promise<T> {
  if (opts.at === 'start') heartbeat(opts.details);
  const timer = setInterval(() => heartbeat(opts.details), opts.everyMs ?? 2000);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}
