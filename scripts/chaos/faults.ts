/**
 * The chaos run's faults: every CHAOS_FAULT_EVERY seconds (+-50% jitter) the next component of the
 * rotation is SIGKILLed, kept down CHAOS_DOWN seconds and revived; a watchdog restarts (and records
 * as a crash) any component found dead that no fault killed.
 */
import type { Stack } from '../lib/stack.js';
import { DOWN, FAULT_EVERY, rand, ROTATION, say, sleep } from './config.js';
import { nextMailGeneration, pollMailbox } from './load.js';

// ---- faults ---------------------------------------------------------------------------------------

export const faults: { component: string; at: string; downMs: number; reviveMs: number; error?: string }[] = [];
/** Components found dead that no fault had killed (a crash the run provoked), each restarted by the watchdog. */
export const crashes: { component: string; at: string; error?: string }[] = [];
let busy: Promise<void> = Promise.resolve();
/** Resolves once no fault is between its kill and its component's revival. */
export const faultsIdle = (): Promise<void> => busy;
/** The component a fault has killed on purpose (the watchdog leaves it alone). */
let faulting: string | null = null;

/** Every 2 s: a component of the rotation not running and not killed on purpose has crashed; it is recorded and started again. */
export function watchdog(stack: Stack, components: string[]): () => Promise<void> {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await sleep(2000);
      await busy;
      for (const c of components) {
        if (stopped || c === faulting || stack.running(c)) continue;
        const crash: (typeof crashes)[number] = { component: c, at: new Date().toISOString() };
        crashes.push(crash);
        say(`CRASH: ${c} is not running (no fault killed it); starting it again`);
        await stack.revive(c).catch((e) => (crash.error = e instanceof Error ? e.message : String(e)));
      }
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

export async function faultLoop(stack: Stack, mailbox: string, until: number): Promise<void> {
  if (FAULT_EVERY <= 0) return;
  const available = stack.components();
  const rotation = ROTATION.filter((c) => available.includes(c));
  for (let i = 0; ; i++) {
    const wait = FAULT_EVERY * 1000 * (0.5 + rand());
    if (Date.now() + wait >= until) return;
    await sleep(wait);
    const component = rotation[i % rotation.length];
    const f: (typeof faults)[number] = { component, at: new Date().toISOString(), downMs: 0, reviveMs: 0 };
    faults.push(f);
    let release!: () => void;
    busy = new Promise((r) => (release = r));
    try {
      if (component === 'smtp-catcher') await pollMailbox(mailbox);
      faulting = component;
      const t0 = Date.now();
      await stack.kill(component);
      say(`fault ${faults.length}: SIGKILL ${component}`);
      await sleep(DOWN * 1000);
      f.downMs = Date.now() - t0;
      const t1 = Date.now();
      if (component === 'smtp-catcher') nextMailGeneration();
      await stack.revive(component);
      f.reviveMs = Date.now() - t1;
      say(`  ${component} ready again after ${((f.downMs + f.reviveMs) / 1000).toFixed(1)} s`);
    } catch (e) {
      f.error = e instanceof Error ? e.message : String(e);
      say(`  ${component}: ${f.error}`);
    } finally {
      faulting = null;
      release();
    }
  }
}
