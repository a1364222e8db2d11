import { longPoll } from '../../src/services/webhooks/long-poll';

/** An attempt that answers null `emptyTimes` times, then 'work'; counts its calls. */
function attempts(emptyTimes: number) {
  const calls: number[] = [];
  const t0 = Date.now();
  return {
    calls,
    fn: async () => {
      calls.push(Date.now() - t0);
      return calls.length > emptyTimes ? 'work' : null;
    },
  };
}

describe('longPoll (the webhook claim waiting for work)', () => {
  test('when work is there at once, then it answers after one attempt without pausing', async () => {
    const a = attempts(0);
    let pauses = 0;
    await expect(longPoll(a.fn, { pollMs: 1000, maxWaitMs: 5000, onPause: () => pauses++ })).resolves.toBe('work');
    expect(a.calls).toHaveLength(1);
    expect(pauses).toBe(0);
  });

  test('when work arrives after a few polls, then it answers it, having paused (and heartbeaten) before each retry', async () => {
    const a = attempts(3);
    let pauses = 0;
    await expect(longPoll(a.fn, { pollMs: 20, maxWaitMs: 5000, onPause: () => pauses++ })).resolves.toBe('work');
    expect(a.calls).toHaveLength(4);
    expect(pauses).toBe(3);
    // Paused between attempts: never two attempts back to back.
    for (let i = 1; i < a.calls.length; i++) expect(a.calls[i] - a.calls[i - 1]).toBeGreaterThanOrEqual(15);
  });

  test('when nothing arrives, then it answers null once the wait is over, not before', async () => {
    const a = attempts(Infinity);
    const t0 = Date.now();
    await expect(longPoll(a.fn, { pollMs: 30, maxWaitMs: 200 })).resolves.toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    // About one attempt a poll interval (200 / 30), not a busy loop.
    expect(a.calls.length).toBeGreaterThanOrEqual(3);
    expect(a.calls.length).toBeLessThanOrEqual(9);
  });

  test('when the worker stops during a pause, then it answers null at once', async () => {
    const a = attempts(Infinity);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    const t0 = Date.now();
    await expect(longPoll(a.fn, { pollMs: 10_000, maxWaitMs: 20_000, stop: stop.signal })).resolves.toBeNull();
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(a.calls).toHaveLength(1);
  });

  test('when the activity is cancelled during a pause, then the cancellation is thrown', async () => {
    const a = attempts(Infinity);
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(new Error('CANCELLED')), 50);
    await expect(longPoll(a.fn, { pollMs: 10_000, maxWaitMs: 20_000, cancel: cancel.signal })).rejects.toThrow('CANCELLED');
  });
});
