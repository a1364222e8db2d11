/**
 * A worker killed during dunning loses no reminder and sends none twice (issue 23). Runs in the
 * sandbox environment with workers this file spawns (test/support/sandbox-workers.ts, as test/crash.test.ts):
 * a worker holds the first reminder's e-mail activity open after the e-mail went out
 * (FAULT_INJECTION=hang-after:deliverEmail) and is SIGKILLed there; a replacement worker retries that
 * activity (the e-mail id was sent: nothing goes out again) and carries the schedule on, whose timers
 * kept running in Temporal while no worker was up.
 */
import { call, dbQuery, mailsFor, waitForMail, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';
import { sandboxSuite } from './support/sandbox-workers';

jest.setTimeout(240_000);
let sb: OrgFixture;
const workers = sandboxSuite((org) => {
  sb = org;
});

const S = () => ({ base: sb.base, token: sb.adminToken });
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };

test('when the worker is SIGKILLed right after sending the first dunning reminder, then every reminder and the hold notice arrive exactly once', async () => {
  const { customerNumber, sku } = await customerWithProduct(sb, { price: 30 });
  const to = `${customerNumber.toLowerCase()}@example.com`;
  expect((await call('PUT', `/api/customers/${customerNumber}/credit`, { ...S(), body: { creditLimit: 100 } })).status).toBe(200);
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...S(), body: { customerNumber, sku, quantity: 1, orderType: 'Standard' } });
  const cartId = c.body.shoppingCartId as string;
  await call('PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { ...S(), body: { customerNumber, shippingAddress: address } });
  const res = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { ...S(), body: { customerNumber, channel: 'Web', payment: { method: 'OnAccount' } } });
  expect(res.status).toBe(200);
  const n = (await waitForMail(to, (m) => m.subject.startsWith('Invoice '))).subject.split(' ')[1];

  // From now on e-mails go through a worker that hangs after sending a dunning e-mail (only those: other files' e-mails
  // in the sandbox, and this order's confirmation, go out as usual); it dies right after the first reminder.
  workers.killOthers();
  const hanging = workers.start({ FAULT_INJECTION: 'hang-after:deliverEmail:120000:dunning-' }, 'hanging worker');
  await hanging.ready;
  await waitForMail(to, (m) => m.subject === `Reminder: invoice ${n} is due`, 60_000);
  // The kill must land in the hang, after the activity recorded the e-mail as sent: the mail reaching the catcher
  // comes a moment before that record (a kill in between is the SMTP at-least-once window, not this case).
  const deadline = Date.now() + 30_000;
  while (!(await dbQuery(`select 1 from email_message where id like 'dunning-%-due-7' and to_address = $1 and status = 'sent'`, [to], 'sandbox')).length) {
    if (Date.now() > deadline) throw new Error('the first reminder was never recorded as sent');
    await new Promise((r) => setTimeout(r, 100));
  }
  hanging.child.kill('SIGKILL');
  const normal = workers.start({}, 'replacement worker');
  await normal.ready;

  await waitForMail(to, (m) => m.subject.includes('credit hold'), 150_000);
  const subjects = (await mailsFor(to)).map((m) => m.subject).filter((s) => /Reminder|Overdue|credit hold/.test(s));
  expect(subjects.sort()).toEqual(
    [`Overdue: invoice ${n} is 14 days past due`, `Overdue: invoice ${n} is 7 days past due`, `Reminder: invoice ${n} is due`, `Reminder: invoice ${n} is due`, expect.stringMatching(/is on credit hold$/)].sort(),
  );
  const rows = await dbQuery<{ id: string; status: string }>(`select id, status from email_message where id like 'dunning-%' and to_address = $1 order by id`, [to], 'sandbox');
  expect(rows.map((r) => [r.id.replace(/^dunning-[0-9a-f-]{36}-/, ''), r.status])).toEqual([
    ['due', 'sent'],
    ['due+14', 'sent'],
    ['due+7', 'sent'],
    ['due-7', 'sent'],
    ['hold', 'sent'],
  ]);
  const events = await dbQuery<{ step: string }>(
    `select data->>'step' as step from webhook_event where organization_id = $1 and type in ('invoice.reminder_sent', 'customer.credit_hold_placed') order by occurred_at`,
    [sb.organizationId],
    'sandbox',
  );
  expect(events.map((e) => e.step)).toEqual(['due-7', 'due', 'due+7', 'due+14', 'hold']);
});
