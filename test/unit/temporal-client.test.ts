/** The one Temporal client module (src/adapters/temporal.ts): starts and the mapping of failures to AppError, without a server. */
// src/tracing.ts reads import.meta (ES module only); the client module only asks it whether tracing is on.
jest.mock('../../src/tracing', () => ({ currentTracing: () => null }));
import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, RetryState, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { appErrorOf, isWorkflowNotFound, startWorkflow, updateAppError, updateRefusal, type Client } from '../../src/adapters/temporal';
import type { Config } from '../../src/config';
import { AppError } from '../../src/errors';

const config = { temporal: { taskQueuePrefix: 't-' } } as unknown as Config;
const failed = (cause: Error) => new WorkflowFailedError('Workflow execution failed', cause, RetryState.NON_RETRYABLE_FAILURE);

/** A client whose workflow.start records its calls and fails with `error` when given. */
function fakeClient(error?: Error) {
  const calls: { type: string; options: Record<string, unknown> }[] = [];
  const client = {
    workflow: {
      start: async (type: string, options: Record<string, unknown>) => {
        calls.push({ type, options });
        if (error) throw error;
      },
    },
  } as unknown as Client;
  return { client, calls };
}

describe('starting', () => {
  test('when a start succeeds, then true, on the named queue, tagged with its keys and summary, REJECT_DUPLICATE by default', async () => {
    const { client, calls } = fakeClient();
    expect(await startWorkflow(client, config, { workflowType: 'importJob', workflowId: 'import-1', args: [1], queue: 'imports', keys: { organizationId: 'org-1' }, about: { what: 'Import' } })).toBe(true);
    expect(calls[0].type).toBe('importJob');
    expect(calls[0].options).toMatchObject({ workflowId: 'import-1', taskQueue: 't-imports', args: [1], memo: { Summary: 'Import for organization org-1' }, staticSummary: 'Import for organization org-1', workflowIdReusePolicy: 'REJECT_DUPLICATE' });
    expect(calls[0].options.typedSearchAttributes).toHaveLength(1);
  });

  test('when the workflow id is taken, then false; a system start carries scope:system and its summary says so', async () => {
    const { client, calls } = fakeClient(new WorkflowExecutionAlreadyStartedError('taken', 'x', 'y'));
    expect(await startWorkflow(client, config, { workflowType: 'dispatchWebhookEvents', workflowId: 'x', args: [], keys: { scope: 'system' }, about: { what: 'Dispatcher' }, reuse: 'ALLOW_DUPLICATE' })).toBe(false);
    expect(calls[0].options.taskQueue).toBe('t-commerce');
    expect(calls[0].options.workflowIdReusePolicy).toBe('ALLOW_DUPLICATE');
    expect((calls[0].options.typedSearchAttributes as { key: { name: string }; value: unknown }[]).map((p) => [p.key.name, p.value])).toEqual([['BusinessKeys', ['scope:system']]]);
    expect(calls[0].options.staticSummary).toBe('Dispatcher for the system (every organization)');
  });

  test('when the start fails otherwise, then the error is thrown', async () => {
    const { client } = fakeClient(new Error('boom'));
    await expect(startWorkflow(client, config, { workflowType: 'x', workflowId: 'x', args: [], keys: {}, about: { what: '' } })).rejects.toThrow('boom');
  });
});

describe('failures as AppError', () => {
  test('when a workflow failed with a client kind, then the same kind, message and field errors', () => {
    const e = appErrorOf(failed(ApplicationFailure.create({ type: 'validation', message: 'Bad.', nonRetryable: true, details: [{ amount: ['Too much.'] }] })), 'Checkout');
    expect(e).toBeInstanceOf(AppError);
    expect([e.kind, e.message, e.errors]).toEqual(['validation', 'Bad.', { amount: ['Too much.'] }]);
  });

  test('when a workflow failed otherwise, then internal, "<what> failed."', () => {
    const e = appErrorOf(failed(ApplicationFailure.create({ type: 'provider_rejected', message: 'No.' })), 'Checkout');
    expect([e.kind, e.message]).toEqual(['internal', 'Checkout failed.']);
  });

  test('when an update is refused, then its ApplicationFailure is read, and a client kind maps as a workflow failure does', () => {
    const wrong = new WorkflowUpdateFailedError('Update failed', ApplicationFailure.create({ type: 'WrongState', message: 'Decided.' }));
    expect(updateRefusal(wrong)?.type).toBe('WrongState');
    expect(updateAppError(wrong)).toBeNull();
    const declined = updateAppError(new WorkflowUpdateFailedError('Update failed', ApplicationFailure.create({ type: 'payment_required', message: 'Declined.' })));
    expect([declined?.kind, declined?.message]).toEqual(['payment_required', 'Declined.']);
    expect(updateRefusal(new Error('x'))).toBeNull();
  });

  test('when no workflow runs with the id, then isWorkflowNotFound', () => {
    expect(isWorkflowNotFound(new WorkflowNotFoundError('gone', 'id', undefined))).toBe(true);
    expect(isWorkflowNotFound(new Error('x'))).toBe(false);
  });
});
