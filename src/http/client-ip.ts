/**
 * The client address of a request, through proxy-addr. `X-Forwarded-For` is read only as far as
 * TRUST_PROXY allows: a hop count (the last N addresses were appended by our own proxies) or a
 * list of proxy addresses or subnets (trailing entries from those are skipped). With no trust,
 * the socket address is the client, whatever the header says.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';
import { normalizeIp, type TrustProxy } from '../domain/network/trust-proxy.js';

type Trust = (addr: string, i: number) => boolean;
const compiled = new WeakMap<TrustProxy, Trust>();

function trustOf(trust: TrustProxy): Trust {
  let fn = compiled.get(trust);
  if (!fn) {
    const hops = 'hops' in trust ? trust.hops : 0;
    fn = 'hops' in trust ? (_addr: string, i: number) => i < hops : proxyaddr.compile(trust.addresses);
    compiled.set(trust, fn);
  }
  return fn;
}

/** The client address of a request (its socket peer and X-Forwarded-For header). */
export function requestIp(req: IncomingMessage, trust: TrustProxy): string {
  const peer = normalizeIp(req.socket?.remoteAddress ?? '');
  const candidate = normalizeIp(proxyaddr(req, trustOf(trust)));
  return candidate && isIP(candidate) ? candidate : peer;
}

/** The client address given the socket peer and the X-Forwarded-For header. */
export function clientIp(socketAddress: string, forwardedFor: string | undefined, trust: TrustProxy): string {
  // proxy-addr reads the peer from req.connection/socket and the header from req.headers.
  const socket = { remoteAddress: socketAddress };
  const req = { socket, connection: socket, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } } as unknown as IncomingMessage;
  return requestIp(req, trust);
}
