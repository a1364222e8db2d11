/**
 * Commission statement (id `commission-statement-<statementId>`, search attributes OrganizationId
 * and SalesRepNumber): generates the entries (Generating -> Draft), then waits for finance.
 * Recalculate, approve, reject and mark-paid are workflow updates whose validators refuse a wrong
 * state (ApplicationFailure `WrongState`, a 409 at the API) and whose handlers answer the new
 * state. While a Draft waits, the organization's admins get a reminder e-mail (sendEmail child
 * workflows) every `reminderMs`. Every step is recorded in the statement's events by activities.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createCommissionActivities } from '../activities/commissions.js';
import { startChildOnce } from './lib/start-child-once.js';
import { childTags, emailAbout } from './tags-defs.js';
import { MUST_SUCCEED } from './retry-policies.js';
import { financeMove, type FinanceAction, type StatementStatus } from '../domain/commissions/statement.js';
import {
  approveUpdate,
  markPaidUpdate,
  recalculateUpdate,
  rejectUpdate,
  statementStateQuery,
  WRONG_STATE,
  type CommissionStatementInput,
  type FinanceArgs,
  type StatementState,
} from './commission-statement-defs.js';

const { generateCommissionStatement } = proxyActivities<ReturnType<typeof createCommissionActivities>>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: MUST_SUCCEED,
});
const { applyCommissionAction, commissionReminder } = proxyActivities<ReturnType<typeof createCommissionActivities>>({
  startToCloseTimeout: '1 minute',
  retry: MUST_SUCCEED,
});

export async function commissionStatement(input: CommissionStatementInput): Promise<StatementState> {
  const ref = { organizationId: input.organizationId, statementId: input.statementId };
  let status: StatementStatus = 'Generating';
  let busy = false;
  let acted = 0;
  const now = () => new Date(Date.now()).toISOString();

  const wrongState = (message: string) => ApplicationFailure.create({ type: WRONG_STATE, message, nonRetryable: true });
  // The validator refuses what the state rules out. While generation's result is still on its way
  // (the database can already say Draft), it lets the update wait for it in the handler.
  const guard = (action: FinanceAction): void => {
    if (status === 'Generating') return;
    const m = financeMove(status, action);
    if (!m.ok) throw wrongState(m.reason);
  };
  // Actions run one at a time; each checks the state again once it has the turn.
  const run = async (action: FinanceAction, fn: () => Promise<StatementStatus>): Promise<StatementState> => {
    await condition(() => !busy && status !== 'Generating');
    const m = financeMove(status, action);
    if (!m.ok) throw wrongState(m.reason);
    busy = true;
    try {
      status = await fn();
      acted++;
    } finally {
      busy = false;
    }
    return { status };
  };

  setHandler(statementStateQuery, () => ({ status }));
  setHandler(
    recalculateUpdate,
    (a) =>
      run('recalculate', async () => {
        const r = await generateCommissionStatement({ ...ref, event: { key: `recalculate-${a.requestId}`, type: 'Recalculated', at: now(), by: a.by } });
        return r.status as StatementStatus;
      }),
    { validator: (_a: FinanceArgs) => guard('recalculate') },
  );
  setHandler(approveUpdate, (a) => run('approve', async () => (await applyCommissionAction({ ...ref, action: 'approve', key: `approve-${a.requestId}`, at: now(), by: a.by })).status), {
    validator: (_a: FinanceArgs) => guard('approve'),
  });
  setHandler(
    rejectUpdate,
    (a) => run('reject', async () => (await applyCommissionAction({ ...ref, action: 'reject', key: `reject-${a.requestId}`, at: now(), by: a.by, reason: a.reason })).status),
    { validator: (_a: FinanceArgs & { reason: string }) => guard('reject') },
  );
  setHandler(
    markPaidUpdate,
    (a) =>
      run(
        'markPaid',
        async () =>
          (await applyCommissionAction({ ...ref, action: 'markPaid', key: `mark-paid-${a.requestId}`, at: now(), by: a.by, paymentReference: a.paymentReference, paidAt: a.paidAt }))
            .status,
      ),
    { validator: (_a: FinanceArgs & { paymentReference: string; paidAt: string }) => guard('markPaid') },
  );

  const generated = await generateCommissionStatement({ ...ref, event: { key: 'generated', type: 'Generated', at: now(), by: input.requestedBy } });
  status = generated.status as StatementStatus;

  let reminders = 0;
  while (status === 'Draft') {
    const seen = acted;
    const changed = await condition(() => status !== 'Draft' || acted !== seen || busy, input.reminderMs);
    if (changed) {
      if (busy) await condition(() => !busy);
      continue;
    }
    reminders++;
    const r = await commissionReminder({ ...ref, n: reminders, at: now() });
    for (const mail of r.mails) {
      await startChildOnce('sendEmail', {
        workflowId: `email-${mail.emailId}`,
        args: [mail],
        taskQueue: workflowInfo().taskQueue,
        ...childTags({ organizationId: input.organizationId }, emailAbout(mail.template, {}, `commission statement ${input.statementId} (reminder ${reminders})`)),
      });
    }
  }
  if (status === 'Approved') await condition(() => status !== 'Approved' && !busy);
  await condition(allHandlersFinished);
  return { status };
}
