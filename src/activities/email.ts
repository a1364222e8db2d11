import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { randomToken, sha256 } from '../domain/auth/secrets.js';
import { renderEmail } from '../domain/email/templates.js';
import { ACCEPT_LINK_TTL_MS } from '../domain/organizations/membership.js';
import { EmailMessage, PasswordToken, User } from '../entities/index.js';
import type { SendEmailInput } from '../workflows/send-email-defs.js';
import { createMailer } from '../adapters/mail.js';
import { resolveMailSettings } from '../services/integrations/provider-settings.js';

const SET_PASSWORD_TTL_MS = 7 * 24 * 3600 * 1000;
/** A password-reset link is valid one hour. */
const RESET_TTL_MS = 3600 * 1000;

/** E-mail activities. deliverEmail is idempotent: an EmailMessage marked sent is not sent again. */
export function createEmailActivities(deps: { orm: MikroORM; config: Config }) {
  const mailer = createMailer(deps.config);
  return {
    async deliverEmail(input: SendEmailInput): Promise<{ delivered: boolean }> {
      const em = deps.orm.em.fork();
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
        const updated = await em
          .getConnection()
          .execute(
            `update organization_member set accept_token_hash = ?, accept_expires_at = ? where organization_id = ? and user_id = ? and status = 'pending'`,
            [sha256(token), new Date(Date.now() + ACCEPT_LINK_TTL_MS), data.organizationId, data.userId],
            'run',
          );
        if ((updated as { affectedRows?: number }).affectedRows) data.acceptUrl = `${deps.config.publicBaseUrl}/accept-membership?token=${token}`;
      }
      const rendered = renderEmail(input.template, data);
      msg.subject = rendered.subject;
      await em.flush();
      const own = input.organizationId ? await resolveMailSettings(em, deps.config, input.organizationId) : null;
      await mailer.send(
        {
          to: input.to,
          subject: rendered.subject,
          text: rendered.text,
          html: rendered.html,
          messageId: `<${input.emailId}@commerce.local>`,
          headers: { 'X-Email-Id': input.emailId },
        },
        own,
      );
      msg.status = 'sent';
      msg.sentAt = new Date();
      await em.flush();
      return { delivered: true };
    },
  };
}
