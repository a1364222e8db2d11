import { addCpu, cpuPerOp, readCpu, type CpuReading } from '../../scripts/lib/process-cpu';

const reading = (rows: [number, string, number][]): CpuReading => new Map(rows.map(([pid, kind, ms]) => [pid, { kind, ms }]));

describe('CPU per process kind', () => {
  it('adds each kind over the processes present in both readings', () => {
    const total = new Map<string, number>();
    const before = reading([
      [10, 'worker', 1000],
      [11, 'worker', 500],
      [20, 'temporal', 3000],
      [30, 'postgres', 100],
    ]);
    const after = reading([
      [10, 'worker', 1400],
      [11, 'worker', 600],
      [20, 'temporal', 3900],
      // Started inside the window: its CPU before the window is unknown, so it is left out.
      [31, 'postgres', 50],
    ]);
    addCpu(total, before, after);
    expect(Object.fromEntries(total)).toEqual({ worker: 500, temporal: 900 });
    // A second window adds to the first.
    addCpu(total, after, reading([[20, 'temporal', 4000]]));
    expect(total.get('temporal')).toBe(1000);
  });

  it('prints milliseconds per operation, largest first, leaving out kinds under half a millisecond', () => {
    const total = new Map([
      ['worker', 740],
      ['temporal', 910],
      ['smtp', 4],
    ]);
    expect(cpuPerOp(total, 10)).toBe('temporal 91.0, worker 74.0 (all 165.4)');
    expect(cpuPerOp(new Map(), 10)).toBe('not measured (no /proc)');
  });

  it('reads this process as the benchmark itself, and its CPU grows with work', () => {
    const mine = () => readCpu().get(process.pid);
    const first = mine();
    if (process.platform !== 'linux') return expect(first).toBeUndefined();
    expect(first?.kind).toBe('bench');
    // Spin until Node itself counts 200 ms more of this process's CPU, however loaded the machine is.
    const start = process.cpuUsage();
    let x = 0;
    while (process.cpuUsage(start).user < 200_000) x += Math.sqrt(x + 1);
    expect(x).toBeGreaterThan(0);
    expect(mine()!.ms).toBeGreaterThanOrEqual(first!.ms + 150);
  });
});
