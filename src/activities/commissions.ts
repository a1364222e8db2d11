import { Context } from '@temporalio/activity';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Storage } from '../adapters/storage.js';
import { applyAction, generateStatement, reminderMails, storeStatementPdf, type ActionInput, type GenerateInput, type GenerateResult } from '../services/commissions/index.js';
import type { SendEmailInput } from '../workflows/send-email-defs.js';

/** Commission statement activities; each is idempotent per statement event key. */
export function createCommissionActivities(deps: { orm: MikroORM; config: Config; storage: Storage }) {
  const pdf = (ref: { organizationId: string; statementId: string }) => storeStatementPdf(deps.orm.em.fork(), deps.storage, ref);
  return {
    /** Generates or recalculates the entries in one transaction, then stores the PDF; heartbeats so a killed worker's attempt is retried quickly. */
    async generateCommissionStatement(input: Omit<GenerateInput, 'pauseMs'>): Promise<GenerateResult> {
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), 2000);
      try {
        const r = await generateStatement(deps.orm.em.fork(), { ...input, pauseMs: deps.config.commissionGenerationPauseMs });
        await pdf(input);
        return r;
      } finally {
        clearInterval(beat);
      }
    },
    async applyCommissionAction(input: ActionInput): Promise<{ status: 'Generating' | 'Draft' | 'Approved' | 'Rejected' | 'Paid' }> {
      const r = await applyAction(deps.orm.em.fork(), input);
      await pdf(input);
      return { status: r.status };
    },
    /** Records the reminder in the statement's events and answers the e-mails for the workflow to queue. */
    async commissionReminder(input: { organizationId: string; statementId: string; n: number; at: string }): Promise<{ mails: SendEmailInput[] }> {
      return { mails: await reminderMails(deps.orm.em.fork(), deps.config, input) };
    },
  };
}
