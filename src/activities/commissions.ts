/** Commission statement activities (workflow commissionStatement): one-line delegates to src/services/commissions/steps.ts; each is idempotent per statement event key. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Storage } from '../adapters/storage.js';
import { applyActionWithPdf, commissionReminder, generateStatementWithPdf } from '../services/commissions/steps.js';
import { beating } from './heartbeat.js';

export function createCommissionActivities(deps: { orm: MikroORM; config: Config; storage: Storage }) {
  return {
    /** Generates or recalculates the entries, then stores the PDF; heartbeats so a killed worker's attempt is retried quickly. */
    generateCommissionStatement: (input: Parameters<typeof generateStatementWithPdf>[2]) => beating(() => generateStatementWithPdf(deps.orm.em, deps, input)),
    applyCommissionAction: (input: Parameters<typeof applyActionWithPdf>[2]) => applyActionWithPdf(deps.orm.em, deps.storage, input),
    /** Records the reminder in the statement's events and answers the e-mails for the workflow to queue. */
    commissionReminder: (input: Parameters<typeof commissionReminder>[2]) => commissionReminder(deps.orm.em.fork(), deps.config, input),
  };
}
