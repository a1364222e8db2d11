/** The no-op activity of the benchNoop baseline workflow. */
export function createBenchActivities() {
  return {
    async noop(): Promise<void> {
      return undefined;
    },
  };
}
