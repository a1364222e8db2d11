/**
 * Outgoing mail over SMTP: the deployment's server (SMTP_URL), or an organization's own server when
 * its Email integration gives one (a transport per integration version, reused).
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
}

export function createMailer(config: Config): Mailer {
  const deployment = nodemailer.createTransport(config.smtpUrl);
  const byOrganization = new Map<string, ReturnType<typeof nodemailer.createTransport>>();
  return {
    async send(mail, own) {
      let sender = deployment;
      if (own) {
        sender = byOrganization.get(own.cacheKey) ?? nodemailer.createTransport(own.transport);
        byOrganization.set(own.cacheKey, sender);
      }
      await sender.sendMail({ from: own?.from ?? config.mailFrom, ...mail });
    },
  };
}
