import { proxyActivities } from '@temporalio/workflow';
import type { createBenchActivities } from './activities.js';

const { noop } = proxyActivities<ReturnType<typeof createBenchActivities>>({ startToCloseTimeout: '10 seconds' });

/** Baseline for benchmarks: an empty workflow with one no-op activity (scripts/bench/checkout.ts). */
export async function benchNoop(): Promise<void> {
  await noop();
}
