/**
 * The commission statement workflow's steps (commissionStatement; called by
 * src/activities/commissions.ts). Each is idempotent per statement event key; the PDF is stored
 * again after every change.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import type { Storage } from '../../adapters/storage.js';
import type { SendEmailInput } from '../../workflows/send-email-defs.js';
import { applyAction, generateStatement, reminderMails, storeStatementPdf, type ActionInput, type GenerateInput, type GenerateResult } from './index.js';

/** Generates or recalculates the entries in one transaction, then stores the PDF. */
export async function generateStatementWithPdf(em: EntityManager, deps: { config: Config; storage: Storage }, input: Omit<GenerateInput, 'pauseMs'>): Promise<GenerateResult> {
  const r = await generateStatement(em.fork(), { ...input, pauseMs: deps.config.commissionGenerationPauseMs });
  await storeStatementPdf(em.fork(), deps.storage, input);
  return r;
}

/** Applies a finance action (recalculate, approve, reject, mark paid), then stores the PDF. */
export async function applyActionWithPdf(em: EntityManager, storage: Storage, input: ActionInput): Promise<{ status: 'Generating' | 'Draft' | 'Approved' | 'Rejected' | 'Paid' }> {
  const r = await applyAction(em.fork(), input);
  await storeStatementPdf(em.fork(), storage, input);
  return { status: r.status };
}

/** Records the reminder in the statement's events and answers the e-mails for the workflow to queue. */
export async function commissionReminder(em: EntityManager, config: Config, input: { organizationId: string; statementId: string; n: number; at: string }): Promise<{ mails: SendEmailInput[] }> {
  return { mails: await reminderMails(em, config, input) };
}
