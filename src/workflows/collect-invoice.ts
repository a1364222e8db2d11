/**
 * collectInvoice (id `dunning-<invoiceId>`, started by issueInvoice for an invoice issued with a
 * balance): the dunning process of one invoice (docs/credit.md). The schedule comes from an
 * activity (configuration and the due date, recorded in history); at each step the invoice is
 * re-read and, while it is still open, the step is recorded (webhook event, overdue / hold marks;
 * idempotent by step key) and the reminder e-mailed (keyed `dunning-<invoiceId>-<step>`, sent
 * once). The hold step puts the customer on credit hold; afterwards the workflow waits until the
 * invoice closes and then records the release. `invoiceChanged` (payments, voids, cancels,
 * refunds) wakes it at once; it also re-reads the invoice once a dunning day, so a change without
 * a signal is seen too. Time is the workflow clock.
 */
import { condition, deprecatePatch, proxyActivities, setHandler } from '@temporalio/workflow';
import type { createDunningActivities } from '../activities/dunning.js';
import { invoiceChangedSignal, type CollectInvoiceInput, type CollectInvoiceResult } from './collect-invoice-defs.js';
import { deliverOnMailQueue, MAIL_QUEUE_PATCH } from './mail-delivery.js';
import { mustSucceed } from './retry-policies.js';

const acts = proxyActivities<ReturnType<typeof createDunningActivities>>({ ...mustSucceed, startToCloseTimeout: '1 minute' });

export async function collectInvoice(input: CollectInvoiceInput): Promise<CollectInvoiceResult> {
  let changes = 0;
  setHandler(invoiceChangedSignal, () => {
    changes++;
  });
  const ref = { organizationId: input.organizationId, invoiceId: input.invoiceId };
  const plan = await acts.dunningPlan(ref);
  const done: string[] = [];
  if (!plan.open) return { steps: done, outcome: plan.missing ? 'missing' : 'closed' };
  let seen = changes;
  // Waits until `atMs` or a change; answers whether the invoice is still open.
  const stillOpenAt = async (atMs: number): Promise<boolean> => {
    for (;;) {
      const wait = Math.max(0, atMs - Date.now());
      const woke = wait > 0 ? await condition(() => changes !== seen, wait) : false;
      if (!woke) return true;
      seen = changes;
      if (!(await acts.dunningInvoiceOpen(ref))) return false;
    }
  };
  for (const step of plan.steps) {
    if (!(await stillOpenAt(step.atMs))) return finish();
    const r = await acts.dunningStep({ ...ref, step });
    if (!r.open) return finish();
    // On the mail queue (mail-delivery.ts), so a silent SMTP server holds no commerce activity slot.
    if (r.mail) {
      deprecatePatch(MAIL_QUEUE_PATCH); // retired patch: docs/operations.md, "Retiring a patch"
      await deliverOnMailQueue(r.mail);
    }
    done.push(step.key);
  }
  // On hold: wait for the invoice to close (a signal at once, else re-read once a dunning day).
  while (await stillOpenAt(Date.now() + plan.dayMs)) {
    if (!(await acts.dunningInvoiceOpen(ref))) break;
  }
  return finish();

  async function finish(): Promise<CollectInvoiceResult> {
    if (done.includes('hold')) await acts.dunningHoldEnded(ref);
    return { steps: done, outcome: 'closed' };
  }
}
