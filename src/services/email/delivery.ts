/**
 * Delivering one e-mail (the deliverEmail activity of src/activities/email.ts; workflows sendEmail
 * and mail delivery). Idempotent: an EmailMessage marked sent is not sent again; a crash between
 * the send and the mark sends it once more under the same Message-ID.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { boundRows } from '../../db/orm-sql.js';
import { randomToken, sha256 } from '../../domain/auth/secrets.js';
import { renderEmail } from '../../domain/email/templates.js';
import { ACCEPT_LINK_TTL_MS } from '../../domain/organizations/membership.js';
import { EmailMessage, PasswordToken, User } from '../../entities/index.js';
import type { SendEmailInput } from '../../workflows/send-email-defs.js';
import type { Mailer } from '../../adapters/mail.js';
import { resolveMailSettings, type IntegrationSettingsCache } from '../integrations/provider-settings.js';

const SET_PASSWORD_TTL_MS = 7 * 24 * 3600 * 1000;
/** A password-reset link is valid one hour. */
const RESET_TTL_MS = 3600 * 1000;

/** What delivery needs of the process: the configuration, the settings cache and the one pooled mailer. */
export interface MailDeps {
  config: Config;
  readCache?: IntegrationSettingsCache;
  mailer: Mailer;
}

const mailSettings = (em: EntityManager, deps: MailDeps, organizationId: string | null | undefined) =>
  organizationId ? resolveMailSettings(em, deps.config, organizationId, deps.readCache) : Promise.resolve(null);

/** Hands the rendered message to the organization's own SMTP server (else the deployment's), under a Message-ID fixed by its emailId. */
async function send(em: EntityManager, deps: MailDeps, input: SendEmailInput, rendered: ReturnType<typeof renderEmail>): Promise<void> {
  await deps.mailer.send(
    {
      to: input.to,
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      messageId: `<${input.emailId}@commerce.local>`,
      headers: { 'X-Email-Id': input.emailId },
    },
    await mailSettings(em, deps, input.organizationId),
  );
}

/**
 * An e-mail without one-time links (order confirmations, invoices, reminders: nearly all): two
 * statements. One upsert records the attempt and answers whether the message was sent already
 * (no row returned); after the send one update marks it sent. Same outcomes as the ORM path below:
 * a message marked sent is never sent again, a crash between send and mark sends it once more
 * under the same Message-ID.
 */
async function deliverPlain(em: EntityManager, deps: MailDeps, input: SendEmailInput): Promise<{ delivered: boolean }> {
  const rendered = renderEmail(input.template, { ...input.data });
  const rows = await boundRows<{ status: string }>(
    em,
    `insert into email_message (id, organization_id, template, to_address, subject, status, attempts, created_at)
     values ($1, $2, $3, $4, $5, 'pending', 1, now())
     on conflict (id) do update set attempts = email_message.attempts + 1, subject = excluded.subject
     where email_message.status <> 'sent'
     returning status`,
    [input.emailId, input.organizationId ?? null, input.template, input.to, rendered.subject],
  );
  if (!rows.length) return { delivered: false };
  await send(em, deps, input, rendered);
  await boundRows(em, `update email_message set status = 'sent', sent_at = now() where id = $1`, [input.emailId]);
  return { delivered: true };
}

/**
 * Delivers one e-mail once. Messages with one-time links (set-password, password-reset, membership
 * acceptance) mint the link here, so the raw token never enters workflow history.
 */
export async function deliverEmail(em: EntityManager, deps: MailDeps, input: SendEmailInput): Promise<{ delivered: boolean }> {
  const data0 = input.data as Record<string, unknown>;
  if (!data0.needsPasswordLink && !data0.needsResetLink && !data0.needsAcceptLink) return deliverPlain(em, deps, input);
  let msg = await em.findOne(EmailMessage, { id: input.emailId });
  if (msg?.status === 'sent') return { delivered: false };
  if (!msg) {
    msg = em.create(EmailMessage, { id: input.emailId, organizationId: input.organizationId, template: input.template, toAddress: input.to });
  }
  msg.attempts += 1;
  const data: Record<string, unknown> = { ...input.data };
  // One-time set-password links are minted here so the raw token never enters workflow history.
  if (data.needsPasswordLink && typeof data.userId === 'string') {
    const user = await em.findOne(User, { id: data.userId });
    if (user && !user.passwordHash) {
      const token = randomToken(32);
      em.create(PasswordToken, { user, tokenHash: sha256(token), expiresAt: new Date(Date.now() + SET_PASSWORD_TTL_MS) });
      data.setPasswordUrl = `${deps.config.publicBaseUrl}/set-password?token=${token}`;
    }
  }
  // Password-reset links: minted whether or not the account has a password, single use (src/services/auth/passwords.ts).
  if (data.needsResetLink && typeof data.userId === 'string') {
    const user = await em.findOne(User, { id: data.userId });
    if (user) {
      const token = randomToken(32);
      em.create(PasswordToken, { user, tokenHash: sha256(token), expiresAt: new Date(Date.now() + RESET_TTL_MS) });
      data.resetUrl = `${deps.config.publicBaseUrl}/reset-password?token=${token}`;
    }
  }
  // Acceptance links of pending memberships, minted the same way; a resend replaces the earlier link.
  if (data.needsAcceptLink && typeof data.userId === 'string' && typeof data.organizationId === 'string') {
    const token = randomToken(32);
    const updated = await boundRows(
      em,
      `update organization_member set accept_token_hash = $1, accept_expires_at = $2 where organization_id = $3 and user_id = $4 and status = 'pending' returning 1`,
      [sha256(token), new Date(Date.now() + ACCEPT_LINK_TTL_MS), data.organizationId, data.userId],
    );
    if (updated.length) data.acceptUrl = `${deps.config.publicBaseUrl}/accept-membership?token=${token}`;
  }
  const rendered = renderEmail(input.template, data);
  msg.subject = rendered.subject;
  await em.flush();
  await send(em, deps, input, rendered);
  msg.status = 'sent';
  msg.sentAt = new Date();
  await em.flush();
  return { delivered: true };
}
