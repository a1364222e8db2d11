/**
 * Outgoing mail over SMTP: the deployment's server (SMTP_URL), or an organization's own server when
 * its Email integration gives one (a transport per integration version, reused). The deployment's
 * transport is a pool: it keeps up to 5 connections open and sends one message after another on
 * them, instead of a connection (TCP, greeting, EHLO, TLS and AUTH where used) per e-mail.
 */
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Config } from '../config.js';

/** An organization's own SMTP server and sender (see src/services/integrations/provider-settings.ts). */
export interface OwnMailServer {
  /** Changes whenever the integration changes, so a stale transport is never reused. */
  cacheKey: string;
  transport: SMTPTransport.Options;
  from: string;
}

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  headers: Record<string, string>;
}

export interface Mailer {
  send(mail: OutgoingMail, own: OwnMailServer | null): Promise<void>;
  /** Closes the open connections (at shutdown: idle pooled connections would keep the process alive). */
  close(): void;
}

/** SMTP_URL with each of `defaults` in its query where the URL does not set that option itself. */
function withQueryDefaults(smtpUrl: string, defaults: Record<string, string | number>): string {
  const url = new URL(smtpUrl);
  for (const [k, v] of Object.entries(defaults)) if (!url.searchParams.has(k)) url.searchParams.set(k, String(v));
  return url.toString();
}

/** SMTP_URL with `pool=true` unless the URL sets `pool` itself (`?pool=false` turns pooling off). */
export const pooledSmtpUrl = (smtpUrl: string): string => withQueryDefaults(smtpUrl, { pool: 'true' });

/**
 * Bounds on one SMTP conversation, below the e-mail step's 30 s start-to-close timeout: a server that
 * accepts the connection and then says nothing fails the attempt (which Temporal retries with
 * backoff) instead of holding it, and its worker slot, for nodemailer's defaults of 2 minutes to
 * connect, 30 s for the greeting and 10 minutes of socket silence. Settings already given (in
 * SMTP_URL's query, or an integration's options) win.
 */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as const;

/** SMTP_URL with SMTP_TIMEOUTS in its query where it sets none of its own. */
export const withSmtpTimeouts = (smtpUrl: string): string => withQueryDefaults(smtpUrl, SMTP_TIMEOUTS);

export function createMailer(config: Config): Mailer {
  const deployment = nodemailer.createTransport(withSmtpTimeouts(pooledSmtpUrl(config.smtpUrl)));
  const byOrganization = new Map<string, ReturnType<typeof nodemailer.createTransport>>();
  return {
    async send(mail, own) {
      let sender = deployment;
      if (own) {
        sender = byOrganization.get(own.cacheKey) ?? nodemailer.createTransport({ ...SMTP_TIMEOUTS, ...own.transport });
        byOrganization.set(own.cacheKey, sender);
      }
      await sender.sendMail({ from: own?.from ?? config.mailFrom, ...mail });
    },
    close() {
      deployment.close();
      for (const t of byOrganization.values()) t.close();
    },
  };
}
