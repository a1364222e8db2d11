/**
 * A TCP proxy between an API process a test starts and one real dependency (PostgreSQL, Temporal,
 * MinIO), so a test can take that dependency away from its own API without touching the shared
 * stack: `refuse()` closes every connection and refuses new ones (the dependency is down),
 * `hang()` keeps connections open and forwards nothing (the dependency's processes are stopped),
 * `pass()` restores normal forwarding.
 */
import net from 'node:net';

type Mode = 'pass' | 'hang' | 'refuse';

export class FaultProxy {
  private server: net.Server | null = null;
  private readonly pairs = new Set<[net.Socket, net.Socket | null]>();
  private mode: Mode = 'pass';
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static forUrl(url: string): FaultProxy {
    const u = new URL(url.includes('://') ? url : `tcp://${url}`);
    return new FaultProxy(u.hostname, Number(u.port));
  }

  async start(port = 0): Promise<number> {
    this.server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  private accept(client: net.Socket): void {
    client.on('error', () => undefined);
    if (this.mode === 'refuse') {
      client.destroy();
      return;
    }
    const pair: [net.Socket, net.Socket | null] = [client, null];
    this.pairs.add(pair);
    client.on('close', () => {
      pair[1]?.destroy();
      this.pairs.delete(pair);
    });
    if (this.mode === 'hang') {
      client.pause();
      return;
    }
    this.connect(pair);
  }

  private connect(pair: [net.Socket, net.Socket | null]): void {
    const [client] = pair;
    const upstream = net.connect(this.targetPort, this.targetHost);
    pair[1] = upstream;
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  }

  /** Stops forwarding in both directions; connections stay open, new ones are accepted and left silent. */
  hang(): void {
    this.mode = 'hang';
    for (const [client, upstream] of this.pairs) {
      client.unpipe();
      upstream?.unpipe();
      client.pause();
      upstream?.pause();
    }
  }

  /** Closes every connection and refuses new ones: the dependency is down. */
  async refuse(): Promise<void> {
    this.mode = 'refuse';
    for (const [client, upstream] of this.pairs) {
      client.destroy();
      upstream?.destroy();
    }
    this.pairs.clear();
  }

  /**
   * Forwards again. Connections that hung are closed (their protocol state is unknown after
   * dropped bytes) and clients reconnect, as they would after a real dependency restart.
   */
  pass(): void {
    this.mode = 'pass';
    for (const [client, upstream] of this.pairs) {
      client.destroy();
      upstream?.destroy();
    }
    this.pairs.clear();
  }

  async close(): Promise<void> {
    await this.refuse();
    await new Promise((r) => this.server?.close(r) ?? r(undefined));
  }
}
