/**
 * The payment provider sandbox: ProviderDirect (card-on-file JSON API) and ProviderHosted
 * (transaction setup, hosted HTML page, signed form-encoded callback), plus a ledger that
 * tests read to prove each charge happened exactly once. State lives in memory (a sandbox);
 * every piece of it is readable over HTTP.
 * Card rules are in src/domain/payments/cards.ts and ./cards.ts (test cards); the routes of each
 * provider in direct.ts and hosted.ts, the state they share in state.ts, the HTTP plumbing in http.ts.
 * Raw card numbers and CVVs are never stored, returned or logged.
 */
import http from 'node:http';
import { URL } from 'node:url';
import { directRoutes } from './direct.js';
import { hostedRoutes } from './hosted.js';
import { HttpError, sendJson } from './http.js';
import { createSandboxState, type LedgerEntry, type SandboxOptions } from './state.js';

export type { SandboxOptions } from './state.js';

export function createSandboxServer(opts: SandboxOptions): http.Server {
  const st = createSandboxState(opts);
  const { log, ledger } = st;
  const direct = directRoutes(st);
  const hosted = hostedRoutes(st);

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const method = req.method ?? 'GET';
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);

    if (method === 'GET' && url.pathname === '/health') return sendJson(res, 200, { status: 'ok' });
    if (parts[0] === 'direct') return direct.route(req, res, url, method, parts);
    if (parts[0] === 'hosted') return hosted.route(req, res, method, parts);

    if (method === 'GET' && url.pathname === '/ledger') {
      const q = url.searchParams;
      const filters: [keyof LedgerEntry, string | null][] = [
        ['reference', q.get('reference')],
        ['idempotencyKey', q.get('idempotencyKey')],
        ['paymentProfileId', q.get('paymentProfileId')],
        ['chargeId', q.get('chargeId')],
        ['kind', q.get('kind')],
      ];
      const entries = ledger.filter((e) => filters.every(([k, v]) => v === null || e[k] === v));
      return sendJson(res, 200, { entries });
    }

    throw new HttpError(404, 'not_found', 'No such endpoint.');
  }

  return http.createServer((req, res) => {
    const started = Date.now();
    res.on('finish', () => {
      // Path only: card data travels in bodies, which are never logged.
      log('request', { method: req.method, path: (req.url ?? '').split('?')[0], status: res.statusCode, ms: Date.now() - started });
    });
    route(req, res).catch((e: unknown) => {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (e instanceof HttpError) return sendJson(res, e.status, { error: { code: e.code, message: e.message, ...(e.fields ? { fields: e.fields } : {}) } });
      log('internal error', { error: (e as Error).message });
      sendJson(res, 500, { error: { code: 'internal_error', message: 'Internal sandbox error.' } });
    });
  });
}
