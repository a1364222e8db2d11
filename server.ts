/** API process: builds dependencies, applies nothing but configuration, listens; drains on SIGTERM. */
import './src/compat/node20.js';
import http from 'node:http';
import net from 'node:net';
import { createApp } from './src/app.js';
import { createInfrastructure } from './src/composition.js';
import { log } from './src/logger.js';
import { startOpsServer } from './src/ops-server.js';
import { checkReadiness } from './src/services/ops/readiness.js';
import { shutdownTracing } from './src/tracing.js';
import { ensureWebhookDispatcher } from './src/services/webhooks/dispatcher.js';
import { startOutboxRelay } from './src/services/workflow-outbox.js';

async function main(): Promise<void> {
  const services = await createInfrastructure('api');
  const { config, temporal } = services;
  // Temporal may be away at start: the API serves what needs no workflow, and the dispatcher
  // is started by the next API start (or any other API process) instead.
  await ensureWebhookDispatcher(temporal, config).catch((e: unknown) => log.warn('webhook dispatcher not ensured', { error: String(e).slice(0, 300) }));
  const stopRelay = startOutboxRelay(services.orm, temporal, config);
  const app = createApp(services);
  const handler = app.callback();
  let draining = false;
  // While draining, every answer closes its connection, so keep-alive clients reconnect elsewhere.
  const server = http.createServer((req, res) => {
    if (draining) res.setHeader('Connection', 'close');
    void handler(req, res);
  });
  server.listen(config.port, () => log.info('api listening', { port: config.port, url: config.publicBaseUrl }));
  const ops = startOpsServer({ config, readiness: () => checkReadiness(services) });

  /**
   * Graceful shutdown (issue 21): stop accepting connections (after SHUTDOWN_ACCEPT_MS), answer every request on the
   * connections already accepted (each answer closes its connection), then close the pool and the
   * Temporal connection and exit; at most SHUTDOWN_GRACE_MS. The listening socket is closed at the
   * net level: http's own close() would also drop accepted connections whose request the busy
   * event loop has not parsed yet. Keep-alive connections left idle are closed after a short delay.
   */
  const shutdown = (signal: string) => {
    if (draining) return;
    draining = true;
    log.info('api draining', { signal, graceMs: config.shutdownGraceMs });
    ops?.close();
    let idle: NodeJS.Timeout | undefined;
    let idleDelay: NodeJS.Timeout | undefined;
    const finish = (reason: string) => {
      clearTimeout(idleDelay);
      clearInterval(idle);
      // A hung database or Temporal must not keep a stopped API alive.
      setTimeout(() => process.exit(0), 5_000).unref();
      log.info('api stopping', { reason });
      void stopRelay()
        .then(() => services.close())
        .then(() => shutdownTracing())
        .catch(() => undefined)
        .finally(() => process.exit(0));
    };
    const hard = setTimeout(() => {
      server.closeAllConnections();
      finish('grace time over');
    }, config.shutdownGraceMs);
    hard.unref();
    // The listener stays open SHUTDOWN_ACCEPT_MS more: connections already waiting in the listen backlog
    // (a busy event loop had not accepted them) would be reset by closing it at once; clients saw
    // ECONNRESET on requests sent most of a second before SIGTERM on a loaded machine. Each one
    // accepted meanwhile is answered with Connection: close.
    /**
     * Closes the listening socket once an event-loop turn accepted no connection. Timers run before
     * the loop's poll phase, where waiting connections are accepted: after a stall (a loaded machine)
     * the accept-window timer fired before the backlog was read, and closing then reset connections
     * whose requests were sent seconds earlier (ECONNRESET in the graceful-shutdown test). The check
     * runs in setImmediate, after that poll phase; while connections keep being accepted it looks
     * again shortly, for at most 5 s more.
     */
    const closeWhenBacklogEmpty = (deadline = Date.now() + 5_000) => {
      let accepted = false;
      const onConnection = () => (accepted = true);
      server.on('connection', onConnection);
      setImmediate(() => {
        server.off('connection', onConnection);
        if (accepted && Date.now() < deadline) {
          setTimeout(() => closeWhenBacklogEmpty(deadline), 50);
          return;
        }
        net.Server.prototype.close.call(server, () => {
          clearTimeout(hard);
          finish('drained');
        });
        // Keep-alive connections left idle would hold the close open: swept from a second after it (a
        // connection accepted just before may not have had its request read yet, and would look idle).
        idleDelay = setTimeout(() => (idle = setInterval(() => server.closeIdleConnections(), 250)), 1_000);
      });
    };
    setTimeout(() => closeWhenBacklogEmpty(), config.shutdownAcceptMs);
  };

  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((e) => {
  log.error('api failed to start', { error: String(e), stack: (e as Error).stack });
  process.exit(1);
});
