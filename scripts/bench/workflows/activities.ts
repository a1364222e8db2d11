/** The no-op activity of the benchNoop baseline workflow (bench queue only: scripts/lib/bench-worker.ts; never on a production queue). */
export function createBenchActivities() {
  return {
    async noop(): Promise<void> {
      return undefined;
    },
  };
}
