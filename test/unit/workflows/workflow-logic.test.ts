/**
 * Workflow logic without HTTP, database or provider: the real workflow code (src/workflows/commerce.ts,
 * bundled by the worker) runs on a local Temporal dev server (the pinned CLI binary) against mocked
 * activities. The dev server does not skip time, so timers here are a second or two long.
 */
import path from 'node:path';
import { ApplicationFailure, defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { WorkflowFailedError, WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, DefaultLogger, Worker } from '@temporalio/worker';
import { ensureBinaries } from '../../../scripts/lib/binaries';
import type { ChargeInput } from '../../../src/activities/payments';
import type { CheckoutInput } from '../../../src/workflows/checkout-cart-defs';
import {
  approveUpdate,
  markPaidUpdate,
  rejectUpdate as rejectUpdateDef,
  statementStateQuery,
  WRONG_STATE,
} from '../../../src/workflows/commission-statement-defs';
import { hostedCallbackUpdate, hostedStatusQuery, type HostedCallback, type HostedOutcome } from '../../../src/workflows/hosted-payment-defs';

jest.setTimeout(180_000);

const TASK_QUEUE = 'unit-workflows';
const ORG = '00000000-0000-4000-8000-000000000001';

/** The activities the workflows call, replaced per test. */
interface Mocks {
  reconcileHostedPayment: (i: { transactionSetupId: string; callback: HostedCallback }) => Promise<HostedOutcome>;
  expireHostedPayment: (i: { transactionSetupId: string }) => Promise<HostedOutcome>;
  voidLateHostedPayment: (i: { transactionSetupId: string; callback: HostedCallback }) => Promise<HostedOutcome>;
  reserveOrderNumber: (i: CheckoutInput) => Promise<{ orderNumber: string; amount: string; currency: string; existingOrderId: string | null }>;
  chargeProfile: (i: ChargeInput) => Promise<{ chargeId: string }>;
  createOrderFromCart: (i: CheckoutInput & { orderNumber: string; chargeId: string | null }) => Promise<unknown>;
  voidCharge: (i: { organizationId: string; chargeId: string; idempotencyKey: string }) => Promise<void>;
  recordPaymentFailed: (i: unknown) => Promise<void>;
  generateCommissionStatement: (i: { statementId: string; event: { key: string } }) => Promise<{ status: string }>;
  applyCommissionAction: (i: { action: string; key: string }) => Promise<{ status: string }>;
  commissionReminder: (i: { n: number }) => Promise<{ mails: unknown[] }>;
}
const unexpected = (name: string) => async () => {
  throw ApplicationFailure.nonRetryable(`unexpected activity ${name}`, 'test');
};
let mocks: Mocks;
const calls: { name: string; input: unknown }[] = [];
function resetMocks(): void {
  calls.length = 0;
  mocks = {
    reconcileHostedPayment: unexpected('reconcileHostedPayment'),
    expireHostedPayment: unexpected('expireHostedPayment'),
    voidLateHostedPayment: unexpected('voidLateHostedPayment'),
    reserveOrderNumber: unexpected('reserveOrderNumber'),
    chargeProfile: unexpected('chargeProfile'),
    createOrderFromCart: unexpected('createOrderFromCart'),
    voidCharge: unexpected('voidCharge'),
    recordPaymentFailed: unexpected('recordPaymentFailed'),
    generateCommissionStatement: unexpected('generateCommissionStatement'),
    applyCommissionAction: unexpected('applyCommissionAction'),
    commissionReminder: unexpected('commissionReminder'),
  };
}
/** Every activity the worker offers records its call, then runs the current mock. */
const activities = Object.fromEntries(
  (
    [
      'reconcileHostedPayment',
      'expireHostedPayment',
      'voidLateHostedPayment',
      'reserveOrderNumber',
      'chargeProfile',
      'createOrderFromCart',
      'voidCharge',
      'recordPaymentFailed',
      'generateCommissionStatement',
      'applyCommissionAction',
      'commissionReminder',
    ] as const
  ).map((name) => [
    name,
    async (input: never) => {
      calls.push({ name, input });
      return (mocks[name] as (i: never) => Promise<unknown>)(input);
    },
  ]),
);
const called = (name: string) => calls.filter((c) => c.name === name).map((c) => c.input);

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  const { temporal } = await ensureBinaries((s) => console.log(s));
  env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporal },
      searchAttributes: ['OrganizationId', 'CustomerNumber', 'OrderNumber', 'InvoiceNumber'].map((k) =>
        defineSearchAttributeKey(k, SearchAttributeType.KEYWORD),
      ),
    },
  });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowsPath: path.join(__dirname, '../../../src/workflows/commerce.ts'),
    activities,
  });
  running = worker.run();
});

afterAll(async () => {
  if (worker) {
    worker.shutdown();
    await running;
  }
  await env?.teardown();
});

beforeEach(resetMocks);

const outcome = (transactionSetupId: string, status: HostedOutcome['status'], result: string): HostedOutcome => ({
  transactionSetupId,
  status,
  result,
  amount: '25.00',
  lastFour: status === 'approved' ? '1111' : null,
  paymentMethodId: null,
  invoicePaymentId: null,
});
const approvedCallback = (id: string): HostedCallback => ({ TransactionSetupID: id, Result: 'Approved', Amount: '25.00', LastFour: '1111' }) as HostedCallback;

describe('hostedPayment', () => {
  test('expires the setup when no callback arrives before its timer', async () => {
    const id = `exp-${Date.now()}`;
    mocks.expireHostedPayment = async (i) => outcome(i.transactionSetupId, 'expired', 'Expired');
    const handle = await env.client.workflow.start('hostedPayment', {
      taskQueue: TASK_QUEUE,
      workflowId: `hosted-payment-${id}`,
      args: [{ organizationId: ORG, transactionSetupId: id, expiresAt: new Date(Date.now() + 1500).toISOString() }],
    });
    expect(await handle.query(hostedStatusQuery)).toEqual({ status: 'pending', result: null });
    const result = (await handle.result()) as HostedOutcome;
    expect(result.status).toBe('expired');
    expect(called('expireHostedPayment')).toEqual([{ organizationId: ORG, transactionSetupId: id }]);
    expect(called('reconcileHostedPayment')).toEqual([]);
    expect(await handle.query(hostedStatusQuery)).toEqual({ status: 'expired', result: 'Expired' });
  });

  test('a callback in time is reconciled once and every callback update answers that outcome', async () => {
    const id = `ok-${Date.now()}`;
    mocks.reconcileHostedPayment = async (i) => outcome(i.transactionSetupId, 'approved', 'Approved');
    const handle = await env.client.workflow.start('hostedPayment', {
      taskQueue: TASK_QUEUE,
      workflowId: `hosted-payment-${id}`,
      args: [{ organizationId: ORG, transactionSetupId: id, expiresAt: new Date(Date.now() + 60_000).toISOString() }],
    });
    const first = await handle.executeUpdate(hostedCallbackUpdate, { args: [approvedCallback(id)] });
    expect(first).toMatchObject({ transactionSetupId: id, status: 'approved', result: 'Approved', lastFour: '1111' });
    // The workflow closes with the outcome the update answered, reconciled once.
    const result = (await handle.result()) as HostedOutcome;
    expect(result).toEqual(first);
    expect(called('reconcileHostedPayment')).toHaveLength(1);
    expect(called('expireHostedPayment')).toEqual([]);
  });

  test('a callback accepted after the timer fired voids the late approval and answers its outcome', async () => {
    const id = `late-${Date.now()}`;
    let releaseExpiry!: () => void;
    const expiryHeld = new Promise<void>((r) => (releaseExpiry = r));
    let expiryStarted!: () => void;
    const expiring = new Promise<void>((r) => (expiryStarted = r));
    mocks.expireHostedPayment = async (i) => {
      expiryStarted();
      await expiryHeld;
      return outcome(i.transactionSetupId, 'expired', 'Expired');
    };
    mocks.voidLateHostedPayment = async (i) => outcome(i.transactionSetupId, 'expired', 'Voided');
    const handle = await env.client.workflow.start('hostedPayment', {
      taskQueue: TASK_QUEUE,
      workflowId: `hosted-payment-${id}`,
      args: [{ organizationId: ORG, transactionSetupId: id, expiresAt: new Date(Date.now() + 1000).toISOString() }],
    });
    await expiring; // the timer has fired and the workflow is expiring the setup
    const update = await handle.startUpdate(hostedCallbackUpdate, { args: [approvedCallback(id)], waitForStage: WorkflowUpdateStage.ACCEPTED });
    releaseExpiry();
    expect(await update.result()).toMatchObject({ transactionSetupId: id, result: 'Voided' });
    expect(((await handle.result()) as HostedOutcome).status).toBe('expired');
    expect(called('voidLateHostedPayment')).toEqual([{ organizationId: ORG, transactionSetupId: id, callback: approvedCallback(id) }]);
    expect(called('reconcileHostedPayment')).toEqual([]);
  });
});

describe('checkoutCart', () => {
  const input = (cartId: string): CheckoutInput => ({
    organizationId: ORG,
    cartId,
    customerNumber: 'C-1',
    channel: 'web',
    paymentProfileId: 'pp-1',
    userId: null,
  });
  function chargedCheckout(): void {
    mocks.reserveOrderNumber = async () => ({ orderNumber: 'SO-000042', amount: '99.50', currency: 'USD', existingOrderId: null });
    mocks.chargeProfile = async () => ({ chargeId: 'ch-1' });
    mocks.voidCharge = async () => undefined;
  }

  test('voids the charge when creating the order fails permanently, and surfaces the failure', async () => {
    const cartId = `cart-comp-${Date.now()}`;
    chargedCheckout();
    mocks.createOrderFromCart = async () => {
      throw ApplicationFailure.create({ message: 'An order with this orderNumber already exists', type: 'conflict', nonRetryable: true });
    };
    const run = env.client.workflow.execute('checkoutCart', { taskQueue: TASK_QUEUE, workflowId: `checkout-${cartId}`, args: [input(cartId)] });
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause.type).toBe('conflict');
    expect(called('chargeProfile')).toEqual([
      expect.objectContaining({ amount: '99.50', currency: 'USD', idempotencyKey: `checkout-${cartId}`, reference: 'SO-000042' }),
    ]);
    expect(called('voidCharge')).toEqual([{ organizationId: ORG, chargeId: 'ch-1', idempotencyKey: `void-checkout-${cartId}` }]);
  });

  test('a later attempt charges and voids under its own key, and the order is asked for the amount charged', async () => {
    const cartId = `cart-attempt-${Date.now()}`;
    chargedCheckout();
    mocks.reserveOrderNumber = async () => ({
      orderNumber: 'SO-000042',
      amount: '99.50',
      currency: 'USD',
      existingOrderId: null,
      chargeKey: `checkout-${cartId}-2`,
    });
    mocks.createOrderFromCart = async () => {
      throw ApplicationFailure.create({ message: 'The cart changed while it was being checked out', type: 'conflict', nonRetryable: true });
    };
    const err = await env.client.workflow
      .execute('checkoutCart', { taskQueue: TASK_QUEUE, workflowId: `checkout-${cartId}`, args: [input(cartId)] })
      .catch((e: unknown) => e);
    expect(((err as WorkflowFailedError).cause as ApplicationFailure).type).toBe('conflict');
    expect(called('chargeProfile')).toEqual([expect.objectContaining({ amount: '99.50', idempotencyKey: `checkout-${cartId}-2` })]);
    expect(called('createOrderFromCart')).toEqual([expect.objectContaining({ cartId, chargeId: 'ch-1', amount: '99.50' })]);
    expect(called('voidCharge')).toEqual([{ organizationId: ORG, chargeId: 'ch-1', idempotencyKey: `void-checkout-${cartId}-2` }]);
  });

  test('a cancelled checkout voids its charge', async () => {
    const cartId = `cart-cancel-${Date.now()}`;
    chargedCheckout();
    let creating!: () => void;
    const orderStarted = new Promise<void>((r) => (creating = r));
    let releaseOrder!: () => void;
    const orderHeld = new Promise<void>((r) => (releaseOrder = r));
    mocks.createOrderFromCart = async () => {
      creating();
      await orderHeld;
      throw ApplicationFailure.nonRetryable('released after the test', 'test');
    };
    const handle = await env.client.workflow.start('checkoutCart', { taskQueue: TASK_QUEUE, workflowId: `checkout-${cartId}`, args: [input(cartId)] });
    await orderStarted;
    await handle.cancel();
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    releaseOrder();
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(called('voidCharge')).toEqual([{ organizationId: ORG, chargeId: 'ch-1', idempotencyKey: `void-checkout-${cartId}` }]);
  });
});

describe('commissionStatement', () => {
  const statement = (statementId: string, reminderMs: number) => ({ organizationId: ORG, statementId, requestedBy: null, reminderMs });
  const statusAfter: Record<string, string> = { approve: 'Approved', reject: 'Rejected', markPaid: 'Paid' };
  /** The update's refusal, or undefined when it was accepted. */
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e,
    );

  test('finance updates answer the new state and a wrong-state action is refused with WrongState', async () => {
    const id = `st-${Date.now()}`;
    mocks.generateCommissionStatement = async () => ({ status: 'Draft' });
    mocks.applyCommissionAction = async (i) => ({ status: statusAfter[i.action] });
    mocks.commissionReminder = async () => ({ mails: [] });
    const handle = await env.client.workflow.start('commissionStatement', {
      taskQueue: TASK_QUEUE,
      workflowId: `commission-statement-${id}`,
      args: [statement(id, 60_000)],
    });
    const paidArgs = { requestId: 'r1', by: null, paymentReference: 'WIRE-1', paidAt: '2026-01-31T00:00:00.000Z' };
    // A Draft cannot be paid: the validator refuses it (the API's 409) and nothing is recorded.
    const early = await refusal(handle.executeUpdate(markPaidUpdate, { args: [{ ...paidArgs, requestId: 'p0' }] }));
    expect(early).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(((early as WorkflowUpdateFailedError).cause as ApplicationFailure).type).toBe(WRONG_STATE);
    expect(called('applyCommissionAction')).toEqual([]);
    expect(await handle.executeUpdate(approveUpdate, { args: [{ requestId: 'r0', by: null }] })).toEqual({ status: 'Approved' });
    const again = await refusal(handle.executeUpdate(approveUpdate, { args: [{ requestId: 'r2', by: null }] }));
    expect(again).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(((again as WorkflowUpdateFailedError).cause as ApplicationFailure).type).toBe(WRONG_STATE);
    expect(await handle.query(statementStateQuery)).toEqual({ status: 'Approved' });
    expect(await handle.executeUpdate(markPaidUpdate, { args: [paidArgs] })).toEqual({ status: 'Paid' });
    expect(await handle.result()).toEqual({ status: 'Paid' });
    expect(called('applyCommissionAction')).toEqual([
      expect.objectContaining({ action: 'approve', key: 'approve-r0' }),
      expect.objectContaining({ action: 'markPaid', key: 'mark-paid-r1', paymentReference: 'WIRE-1' }),
    ]);
  });

  test('a Draft no one acts on reminds the admins every reminder interval', async () => {
    const id = `st-rem-${Date.now()}`;
    let reminded!: () => void;
    const secondReminder = new Promise<void>((r) => (reminded = r));
    mocks.generateCommissionStatement = async () => ({ status: 'Draft' });
    mocks.commissionReminder = async (i) => {
      if (i.n === 2) reminded();
      return { mails: [] };
    };
    mocks.applyCommissionAction = async (i) => ({ status: statusAfter[i.action] });
    const handle = await env.client.workflow.start('commissionStatement', {
      taskQueue: TASK_QUEUE,
      workflowId: `commission-statement-${id}`,
      args: [statement(id, 700)],
    });
    await secondReminder;
    expect(await handle.executeUpdate(rejectUpdateDef, { args: [{ requestId: 'x1', by: null, reason: 'wrong period' }] })).toEqual({ status: 'Rejected' });
    expect(await handle.result()).toEqual({ status: 'Rejected' });
    expect(
      called('commissionReminder')
        .map((c) => (c as { n: number }).n)
        .slice(0, 2),
    ).toEqual([1, 2]);
    expect(called('applyCommissionAction')).toEqual([expect.objectContaining({ action: 'reject', reason: 'wrong period' })]);
  });
});
