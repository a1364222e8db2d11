/**
 * The operations listener of an API or worker process (OPS_PORT, never published like the API
 * port): GET /metrics (Prometheus text), GET /health (alive), GET /ready (dependencies; 503 naming
 * the failed ones), and the Temporal codec endpoint POST /codec/decode and /codec/encode (the
 * Temporal Web UI's and CLI's "codec server", only when PAYLOAD_CODEC_KEYS is set).
 * It listens on OPS_BIND, 127.0.0.1 by default; another address needs OPS_TOKEN (checked by
 * src/config.ts, the process does not start without it). With OPS_TOKEN set every path but /health
 * needs `Authorization: Bearer <OPS_TOKEN>` (/health says only "ok": probes need no secret).
 * Plain node:http: it must answer when Koa or the worker is busy.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import type { Config } from './config.js';
import { payloadCodecFor } from './adapters/payload-codec.js';
import { log } from './logger.js';
import { metricsText, METRICS_CONTENT_TYPE } from './metrics.js';
import type { Readiness } from './services/ops/readiness.js';

export interface OpsServerOptions {
  config: Config;
  readiness: () => Promise<Readiness>;
  /** More Prometheus text appended to /metrics (a worker: the Temporal SDK's exposition). */
  extraMetrics?: () => Promise<string>;
}

const MAX_BODY = 4 * 1024 * 1024;

function send(res: ServerResponse, status: number, body: string, type = 'application/json', headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function authorized(req: IncomingMessage, token: string): boolean {
  if (!token) return true;
  const given = Buffer.from(req.headers.authorization ?? '');
  const want = Buffer.from(`Bearer ${token}`);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** The Temporal codec server JSON: payloads with base64 metadata values and data. */
interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}
const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
  data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
});
const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

export function startOpsServer(opts: OpsServerOptions): Server | null {
  const { config } = opts;
  if (config.opsPort === null) return null;
  const codec = payloadCodecFor(config);
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      // The Temporal Web UI calls the codec endpoint from the browser: CORS for its origin (OPS_CORS_ORIGIN).
      const cors: Record<string, string> = config.opsCorsOrigin
        ? { 'access-control-allow-origin': config.opsCorsOrigin, 'access-control-allow-headers': 'authorization, content-type, x-namespace', 'access-control-allow-credentials': 'true', vary: 'Origin' }
        : {};
      if (req.method === 'OPTIONS') return send(res, 204, '', 'text/plain', { ...cors, 'access-control-allow-methods': 'POST, GET, OPTIONS' });
      if (req.method === 'GET' && path === '/health') return send(res, 200, JSON.stringify({ status: 'ok', service: config.serviceName }));
      if (!authorized(req, config.opsToken)) return send(res, 401, JSON.stringify({ title: 'Unauthorized', status: 401 }), 'application/problem+json', cors);
      if (req.method === 'GET' && path === '/metrics') return send(res, 200, await metricsText(opts.extraMetrics), METRICS_CONTENT_TYPE);
      if (req.method === 'GET' && path === '/ready') {
        const r = await opts.readiness();
        return send(res, r.Ready ? 200 : 503, JSON.stringify(r));
      }
      if (req.method === 'POST' && (path === '/codec/decode' || path === '/codec/encode')) {
        if (!codec) return send(res, 404, JSON.stringify({ title: 'No payload codec configured (PAYLOAD_CODEC_KEYS)', status: 404 }), 'application/problem+json', cors);
        const body = JSON.parse(await readBody(req)) as { payloads?: JsonPayload[] };
        const payloads = (body.payloads ?? []).map(fromJson);
        const out = path === '/codec/decode' ? await codec.decode(payloads) : await codec.encode(payloads);
        return send(res, 200, JSON.stringify({ payloads: out.map(toJson) }), 'application/json', cors);
      }
      return send(res, 404, JSON.stringify({ title: 'Not Found', status: 404 }), 'application/problem+json');
    })().catch((e: unknown) => {
      log.warn('ops request failed', { path: req.url, error: String(e) });
      if (!res.headersSent) send(res, 400, JSON.stringify({ title: 'Bad Request', status: 400 }), 'application/problem+json');
    });
  });
  server.listen(config.opsPort, config.opsBind, () => log.info('ops listening', { port: config.opsPort, bind: config.opsBind, token: !!config.opsToken, paths: ['/metrics', '/health', '/ready', ...(codec ? ['/codec/decode', '/codec/encode'] : [])] }));
  return server;
}
