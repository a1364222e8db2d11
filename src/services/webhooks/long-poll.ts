/**
 * The dispatcher's wait for outbox work inside one activity (docs/decisions.md, "The webhook
 * dispatcher waits for work inside its activity"): a workflow that slept a timer between empty
 * claims cost a timer, an activity task and two workflow tasks a poll interval, which was most of
 * an idle deployment's CPU. The claim now polls the database itself until there is something to
 * start or the wait is over.
 */

export interface LongPollOptions {
  /** Pause between attempts. */
  pollMs: number;
  /** The wait ends (answering null) once this much time has passed since the first attempt. */
  maxWaitMs: number;
  /** Aborted: the wait ends at once, answering null (the worker is stopping). */
  stop?: AbortSignal;
  /** Aborted: the wait ends at once with the signal's reason thrown (the activity was cancelled). */
  cancel?: AbortSignal;
  /** Called before every pause (the activity heartbeats). */
  onPause?: () => void;
}

/**
 * Calls `attempt` until it answers a value (not null), then answers that value; answers null when
 * `maxWaitMs` is over or `stop` is aborted. A pause ends early on either signal.
 */
export async function longPoll<T>(attempt: () => Promise<T | null>, o: LongPollOptions): Promise<T | null> {
  const deadline = Date.now() + o.maxWaitMs;
  for (;;) {
    if (o.cancel?.aborted) throw o.cancel.reason;
    const found = await attempt();
    if (found !== null) return found;
    const left = deadline - Date.now();
    if (left <= 0 || o.stop?.aborted) return null;
    o.onPause?.();
    await pause(Math.min(o.pollMs, left), [o.stop, o.cancel]);
    if (o.stop?.aborted && !o.cancel?.aborted) return null;
  }
}

function pause(ms: number, signals: Array<AbortSignal | undefined>): Promise<void> {
  return new Promise((resolve) => {
    const live = signals.filter((s): s is AbortSignal => !!s);
    const done = () => {
      clearTimeout(timer);
      for (const s of live) s.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const s of live) s.addEventListener('abort', done, { once: true });
  });
}
