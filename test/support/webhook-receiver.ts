/** A local webhook receiver for tests: records every request and answers as each path is told to. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  at: number;
}

export interface Receiver {
  url: (path: string) => string;
  /** Answers for a path, used in order; the last one repeats. */
  respond: (path: string, answers: { status: number; headers?: Record<string, string> }[]) => void;
  received: (path: string) => Received[];
  waitFor: (path: string, pred: (r: Received[]) => boolean, timeoutMs?: number) => Promise<Received[]>;
  close: () => Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const answers = new Map<string, { status: number; headers?: Record<string, string> }[]>();
  const log: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        /* not JSON */
      }
      log.push({ path, headers: req.headers as Record<string, string>, body, json, at: Date.now() });
      const list = answers.get(path) ?? [{ status: 200 }];
      const a = list.length > 1 ? list.shift()! : list[0];
      res.writeHead(a.status, a.headers ?? {});
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const received = (path: string) => log.filter((r) => r.path === path);
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    respond: (path, a) => answers.set(path, [...a]),
    received,
    async waitFor(path, pred, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const r = received(path);
        if (pred(r)) return r;
        await new Promise((res) => setTimeout(res, 100));
      }
      throw new Error(`receiver ${path}: condition not met within ${timeoutMs} ms; got ${received(path).length} requests`);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
