/**
 * Response schemas of the process timelines (GET /api/orders/{id}/timeline and its siblings):
 * the business steps of a record's workflows, read from Temporal history
 * (src/services/ops/timeline.ts writes them).
 */
import { component, dateTime, doc, int, obj, oneOf, opt, str, uuid, arr } from '../contract.js';
import { orderRecord } from './order-records.js';

/** What a step's outcome can be. */
export const TIMELINE_OUTCOMES = [
  'started',
  'completed',
  'failed',
  'timed_out',
  'canceled',
  'terminated',
  'continued_as_new',
  'running',
  'waiting',
  'fired',
  'received',
  'accepted',
  'rejected',
  'already_started',
] as const;
export type TimelineOutcome = (typeof TIMELINE_OUTCOMES)[number];

export const timelineStep = component(
  'TimelineStep',
  obj({
    At: dateTime(),
    WorkflowType: str(),
    WorkflowId: str(),
    RunId: str(),
    Step: doc(str(), 'The business step: the workflow type (its start and end), an activity type, `start <ChildType>`, `timer`, `signal <name>` or `update <name>`'),
    Outcome: oneOf(TIMELINE_OUTCOMES),
    Attempt: opt(doc(int(), 'Attempt that produced the outcome (1 = first try)')),
    Detail: opt(doc(str(), "A child's workflow id, a failure's message (scrubbed) or a timer's duration")),
  }),
);

const steps = () => doc(arr(timelineStep), 'Oldest first');

export const orderTimeline = component(
  'OrderTimeline',
  obj({
    OrderId: uuid(),
    OrderNumber: str(),
    Records: doc(arr(orderRecord), 'The order\'s business records from the database, oldest first: checkout, invoices, shipments, returns, cancellations (lines, reason, refund, credit note) and credit notes (number, amount, the invoices applied to)'),
    Steps: steps(),
  }),
);
export const invoiceTimeline = component('InvoiceTimeline', obj({ InvoiceId: uuid(), InvoiceNumber: str(), Steps: steps() }));
export const importJobTimeline = component('ImportJobTimeline', obj({ ImportJobId: uuid(), Steps: steps() }));
export const statementTimeline = component('CommissionStatementTimeline', obj({ StatementId: uuid(), Steps: steps() }));
