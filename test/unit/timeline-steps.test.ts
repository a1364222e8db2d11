/**
 * The timeline's reading of one history (stepsOf): local activities, which leave a marker instead
 * of activity events, and child workflows started together, whose started events the server may
 * record in either order. Events are built as the Temporal client returns them.
 */
import proto from '@temporalio/proto';
import { stepsOf } from '../../src/services/ops/timeline';

const { EventType } = proto.temporal.api.enums.v1;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

const info = { type: 'checkoutCart', workflowId: 'checkout-cart-1', runId: 'run-1' };
const at = (second: number) => ({ seconds: 1_800_000_000 + second, nanos: 0 });
const json = (v: unknown) => ({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(v)) });

/** A local activity's marker as the SDK writes it: `data` holds the activity's type and attempt; `result` is the (encrypted) payload. */
function localActivity(eventId: number, second: number, type: string, attempt: number, failed = false): HistoryEvent {
  return {
    eventId,
    eventTime: at(second),
    eventType: EventType.EVENT_TYPE_MARKER_RECORDED,
    markerRecordedEventAttributes: {
      markerName: 'core_local_activity',
      details: {
        data: { payloads: [json({ seq: 1, attempt, activity_id: '1', activity_type: type })] },
        result: { payloads: [{ metadata: { encoding: Buffer.from('binary/encrypted') }, data: Buffer.from('secret result') }] },
      },
      ...(failed ? { failure: { message: 'SMTP refused the message' } } : {}),
    },
  };
}

const started: HistoryEvent = {
  eventId: 1,
  eventTime: at(0),
  eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
  workflowExecutionStartedEventAttributes: { attempt: 1 },
};
const patchMarker: HistoryEvent = {
  eventId: 4,
  eventTime: at(1),
  eventType: EventType.EVENT_TYPE_MARKER_RECORDED,
  markerRecordedEventAttributes: { markerName: 'core_patch', details: { patch_data: { payloads: [json({ id: 'checkout-local-steps', deprecated: false })] } } },
};
const initiated = (eventId: number, second: number, type: string, workflowId: string): HistoryEvent => ({
  eventId,
  eventTime: at(second),
  eventType: EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
  startChildWorkflowExecutionInitiatedEventAttributes: { workflowType: { name: type }, workflowId },
});
const childStarted = (eventId: number, second: number, initiatedEventId: number, type: string, workflowId: string): HistoryEvent => ({
  eventId,
  eventTime: at(second),
  eventType: EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED,
  childWorkflowExecutionStartedEventAttributes: {
    initiatedEventId,
    workflowType: { name: type },
    workflowExecution: { workflowId, runId: `${workflowId}-run` },
  },
});

describe('timeline steps of one history', () => {
  test('when a history has local activity markers, then each is a completed (or failed) step with its type and attempt, and patch markers are no step', () => {
    const steps = stepsOf(info, [started, patchMarker, localActivity(5, 1, 'reserveOrderNumber', 1), localActivity(9, 3, 'deliverEmail', 4, true)]);
    expect(steps.map((s) => [s.Step, s.Outcome, s.Attempt])).toEqual([
      ['checkoutCart', 'started', 1],
      ['reserveOrderNumber', 'completed', 1],
      ['deliverEmail', 'failed', 4],
    ]);
    expect(steps[2].Detail).toBe('SMTP refused the message');
    // The marker's result payload is never read.
    expect(JSON.stringify(steps)).not.toContain('secret result');
  });

  test('when two children are started together and the server records the second start first, then the steps keep the order the workflow asked for', () => {
    const events = [
      started,
      initiated(10, 5, 'issueInvoice', 'invoice-1'),
      initiated(11, 5, 'sendEmail', 'email-order-confirmation-1'),
      childStarted(12, 6, 11, 'sendEmail', 'email-order-confirmation-1'),
      childStarted(13, 6, 10, 'issueInvoice', 'invoice-1'),
    ];
    expect(stepsOf(info, events).map((s) => `${s.Step}:${s.Outcome}:${s.Detail ?? ''}`)).toEqual([
      'checkoutCart:started:',
      'start issueInvoice:started:invoice-1',
      'start sendEmail:started:email-order-confirmation-1',
    ]);
  });

  test('when a child start is initiated and not answered yet, then it shows as running; when its id is taken, as already started', () => {
    const failed: HistoryEvent = {
      eventId: 12,
      eventTime: at(6),
      eventType: EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED,
      startChildWorkflowExecutionFailedEventAttributes: { initiatedEventId: 11, workflowType: { name: 'sendEmail' }, workflowId: 'email-order-confirmation-1' },
    };
    const steps = stepsOf(info, [started, initiated(10, 5, 'issueInvoice', 'invoice-1'), initiated(11, 5, 'sendEmail', 'email-order-confirmation-1'), failed]);
    expect(steps.map((s) => `${s.Step}:${s.Outcome}`)).toEqual(['checkoutCart:started', 'start issueInvoice:running', 'start sendEmail:already_started']);
  });
});
