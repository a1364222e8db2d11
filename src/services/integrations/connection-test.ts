/**
 * Real connection tests of integrations (DESIGN): Payment GETs the provider's /health and
 * checks that the API key is accepted; Smtp connects and authenticates; Http GETs the
 * endpoint. Targets pass the outbound SSRF guard unless private networks are allowed.
 * Messages never contain secret values.
 */
import { lookup } from 'node:dns/promises';
import nodemailer from 'nodemailer';
import { addressProblem } from '../../domain/images/rules.js';
import { redact } from '../../domain/integrations/templates.js';
import { guardedLookup } from '../media/fetch-image.js';
import http from 'node:http';
import https from 'node:https';

const TIMEOUT_MS = 10_000;

export interface ConnectionResult {
  success: boolean;
  message: string;
  latencyMs: number;
}

function get(rawUrl: string, headers: Record<string, string>, allowPrivate: boolean): Promise<{ status: number }> {
  const url = new URL(rawUrl);
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return Promise.reject(new Error('The endpoint must use https.'));
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.get(
      url,
      // The guard's callback signature is Node's dns.lookup; the agent option types it loosely.
      {
        headers: { 'user-agent': 'b2b-commerce-integrations/1', ...headers },
        lookup: guardedLookup(allowPrivate) as unknown as http.RequestOptions['lookup'],
        timeout: TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0 });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`No answer within ${TIMEOUT_MS / 1000} s.`)));
    req.on('error', (e: NodeJS.ErrnoException) =>
      reject(new Error(e.code === 'EUNSAFEADDRESS' ? e.message : e.code ? `Connection failed (${e.code}).` : e.message)),
    );
  });
}

const join = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;

export async function testConnection(
  provider: string,
  configuration: Record<string, string>,
  secrets: Record<string, string>,
  allowPrivate: boolean,
): Promise<ConnectionResult> {
  const started = Date.now();
  const done = (success: boolean, message: string): ConnectionResult => ({
    success,
    message: redact(message, Object.values(secrets)),
    latencyMs: Date.now() - started,
  });
  try {
    if (provider === 'ProviderDirect' || provider === 'ProviderHosted') {
      const health = await get(join(configuration.Endpoint, '/health'), {}, allowPrivate);
      if (health.status !== 200) return done(false, `The provider's health check answered HTTP ${health.status}.`);
      const auth = await get(
        join(configuration.Endpoint, '/direct/charges/connection-test'),
        { authorization: `Bearer ${secrets.ApiKey ?? ''}` },
        allowPrivate,
      );
      if (auth.status === 401 || auth.status === 403) return done(false, `The provider refused the API key (HTTP ${auth.status}).`);
      return done(true, 'The provider is reachable and accepted the API key.');
    }
    if (provider === 'Smtp') {
      const host = configuration.Host;
      const addresses = (await lookup(host, { all: true })).map((a) => a.address);
      const problem = addressProblem(host, addresses, allowPrivate);
      if (problem) return done(false, problem);
      const transport = nodemailer.createTransport({
        host: addresses[0],
        port: Number(configuration.Port),
        secure: configuration.Secure === 'true',
        auth: secrets.Username ? { user: secrets.Username, pass: secrets.Password ?? '' } : undefined,
        tls: { servername: host },
        connectionTimeout: TIMEOUT_MS,
        greetingTimeout: TIMEOUT_MS,
        socketTimeout: TIMEOUT_MS,
      });
      try {
        await transport.verify();
      } finally {
        transport.close();
      }
      return done(true, secrets.Username ? 'Connected and authenticated.' : 'Connected (no credentials configured).');
    }
    const res = await get(configuration.Endpoint, secrets.ApiKey ? { authorization: `Bearer ${secrets.ApiKey}` } : {}, allowPrivate);
    return res.status >= 200 && res.status < 300
      ? done(true, `The endpoint answered HTTP ${res.status}.`)
      : done(false, `The endpoint answered HTTP ${res.status}.`);
  } catch (e) {
    return done(false, e instanceof Error ? e.message : 'The connection failed.');
  }
}
