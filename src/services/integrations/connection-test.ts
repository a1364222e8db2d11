/**
 * Real connection tests of integrations (DESIGN): Payment GETs the provider's /health and
 * checks that the API key is accepted; Smtp connects and authenticates; Http GETs the
 * endpoint. Every target goes through the one outbound client (src/adapters/http-client.ts;
 * SMTP hosts through its `resolveAllowed`), link-local and metadata addresses refused whatever
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS says. A failure reads the same whatever went wrong on the
 * wire (UNREACHABLE: an open port and a closed one, a private address and a dead host look
 * alike); an answer is reported by its HTTP status only, never by what the remote side wrote.
 * Messages never contain secret values.
 */
import nodemailer from 'nodemailer';
import { redact } from '../../domain/integrations/templates.js';
import { OutboundError, outboundRequest, resolveAllowed, UNREACHABLE, type OutboundTargets } from '../../adapters/http-client.js';

const TIMEOUT_MS = 10_000;

export interface ConnectionResult {
  success: boolean;
  message: string;
  latencyMs: number;
}

async function getStatus(rawUrl: string, headers: Record<string, string>, targets: OutboundTargets): Promise<number> {
  const res = await outboundRequest(rawUrl, {
    headers: { 'user-agent': 'b2b-commerce-integrations/1', ...headers },
    timeoutMs: TIMEOUT_MS,
    readBody: false,
    ...targets,
  });
  return res.status;
}

const join = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;

/** SMTP answers that mean "the server is there and refused these credentials" (RFC 4954 535, 534, 530). */
const isAuthRefusal = (e: unknown) => (e as { code?: string }).code === 'EAUTH';

export async function testConnection(
  provider: string,
  configuration: Record<string, string>,
  secrets: Record<string, string>,
  allowPrivate: boolean,
): Promise<ConnectionResult> {
  const started = Date.now();
  const targets: OutboundTargets = { allowPrivateNetworks: allowPrivate };
  const done = (success: boolean, message: string): ConnectionResult => ({
    success,
    message: redact(message, Object.values(secrets)),
    latencyMs: Date.now() - started,
  });
  try {
    if (provider === 'ProviderDirect' || provider === 'ProviderHosted') {
      const health = await getStatus(join(configuration.Endpoint, '/health'), {}, targets);
      if (health !== 200) return done(false, `The provider's health check answered HTTP ${health}.`);
      const auth = await getStatus(join(configuration.Endpoint, '/direct/charges/connection-test'), { authorization: `Bearer ${secrets.ApiKey ?? ''}` }, targets);
      if (auth === 401 || auth === 403) return done(false, `The provider refused the API key (HTTP ${auth}).`);
      return done(true, 'The provider is reachable and accepted the API key.');
    }
    if (provider === 'Smtp') {
      const host = configuration.Host;
      const [address] = await resolveAllowed(host, targets);
      const transport = nodemailer.createTransport({
        host: address,
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
      } catch (e) {
        // The server's own words are not repeated: they are the remote side's text.
        if (isAuthRefusal(e)) return done(false, 'The server refused the credentials.');
        return done(false, UNREACHABLE);
      } finally {
        transport.close();
      }
      return done(true, secrets.Username ? 'Connected and authenticated.' : 'Connected (no credentials configured).');
    }
    const status = await getStatus(configuration.Endpoint, secrets.ApiKey ? { authorization: `Bearer ${secrets.ApiKey}` } : {}, targets);
    return done(status >= 200 && status < 300, `The endpoint answered HTTP ${status}.`);
  } catch (e) {
    if (e instanceof OutboundError) return done(false, UNREACHABLE);
    throw e;
  }
}
