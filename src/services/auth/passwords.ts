/**
 * Passwords (DESIGN "Security decisions"): set with a single-use e-mailed token (invitation
 * links and password reset), changed by the signed-in user with the current one. Every change
 * spends the user's other outstanding password tokens and bumps the user's token version, so
 * every session and token issued before it ends (src/http/auth.ts compares the version).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { boundRows } from '../../db/orm-sql.js';
import { hashSecret, sha256, verifySecret } from '../../domain/auth/secrets.js';
import { OrganizationMember, User } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { queueEmail } from '../email/queue.js';
import { userToken, type AuthResult } from './login.js';

/** Runs inside a transaction: the new password, every other password token spent, every earlier session ended. */
export async function replacePassword(tx: EntityManager, userId: string, password: string): Promise<void> {
  // boundRows(tx, ...) runs on the caller's transaction (src/db/orm-sql.ts).
  await boundRows(tx, 'update password_token set used_at = now() where user_id = $1 and used_at is null', [userId]);
  await boundRows(tx, 'update app_user set password_hash = $1, token_version = token_version + 1, updated_at = now() where id = $2', [await hashSecret(password), userId]);
}

/**
 * Uses a password token (invitation set-password link or reset link) once: a conditional
 * UPDATE claims it, so two concurrent requests with the same token cannot both succeed.
 * Returns the user whose password was set.
 */
export async function setPasswordWithToken(em: EntityManager, token: string, password: string): Promise<string> {
  return em.transactional(async (tx) => {
    const claimed = await boundRows<{ user_id: string }>(
      tx,
      'update password_token set used_at = now() where token_hash = $1 and used_at is null and expires_at > now() returning user_id',
      [sha256(token)],
    );
    if (!claimed.length) throw AppError.field('Token', 'The link is invalid, used or expired.');
    await replacePassword(tx, claimed[0].user_id, password);
    return claimed[0].user_id;
  });
}

/**
 * Public password-reset request. Whether or not an account has this e-mail, the caller learns
 * nothing (the route always answers 202); an account gets an e-mail with a single-use link
 * (minted by the e-mail activity, valid one hour). At most one such e-mail per account per
 * five minutes, so the form cannot be used to flood a mailbox.
 */
export async function requestPasswordReset(em: EntityManager, deps: { temporal: Client; config: Config }, email: string): Promise<void> {
  const user = await em.findOne(User, { email: email.toLowerCase() });
  if (!user) return;
  const window = Math.floor(Date.now() / (5 * 60_000));
  await queueEmail(deps.temporal, deps.config, {
    emailId: `password-reset-${user.id}-${window}`,
    organizationId: null,
    template: 'password-reset',
    to: user.email,
    data: { firstName: user.firstName, userId: user.id, needsResetLink: true },
  });
}

/**
 * Self-service change by a signed-in user: the current password proves it is them. Every
 * earlier session ends; the answer is a fresh token for the same organization, so the caller
 * stays signed in here and nowhere else.
 */
export async function changePassword(em: EntityManager, config: Config, auth: Principal, input: { CurrentPassword: string; NewPassword: string }): Promise<{ userId: string; token: AuthResult }> {
  if (!auth.userId) throw AppError.notFound('User record');
  const user = await em.findOne(User, { id: auth.userId });
  if (!user) throw AppError.notFound('User record');
  if (!(await verifySecret(input.CurrentPassword, user.passwordHash))) throw AppError.field('CurrentPassword', 'The current password is not correct.');
  await em.transactional(async (tx) => replacePassword(tx, user.id, input.NewPassword));
  await em.refresh(user);
  const member = await em.findOne(OrganizationMember, { organization: auth.organizationId, user }, { populate: ['organization'] });
  if (!member) throw AppError.unauthorized('The user no longer belongs to this organization; log in again.');
  return { userId: user.id, token: await userToken(em, config, user, member) };
}

