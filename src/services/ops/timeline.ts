/**
 * Process timelines: what every workflow that touched a record did, step by step, read from
 * Temporal (visibility to find the executions, then each execution's event history) and never
 * inferred. The executions of a record are found two ways: the workflow ids its rows name
 * (`checkout-<cartId>`, `invoice-<invoiceId>`, `email-order-confirmation-<orderId>`, the import
 * job's and statement's stored workflow ids) and the search attributes that tag its workflows
 * (OrganizationId with OrderNumber / InvoiceNumber). The caller's access to the record is checked
 * by the record's own lookup before this runs, so the rules are the record's (404 otherwise).
 *
 * A step is one business event of one execution: the workflow started or ended, an activity
 * (reserveOrderNumber, chargeProfile, deliverEmail, ...) completed or failed (with its attempt),
 * a child workflow started, a timer (reminder wait) fired, a signal or update arrived. A local
 * activity is read from its history marker, so it shows as an activity does (a local activity
 * still retrying is not in the history yet: it shows once it ends). Payloads
 * (inputs, results) are not read: no personal data or secrets reach the timeline.
 */
import type { Client, WorkflowExecutionInfo } from '../../adapters/temporal.js';
import proto from '@temporalio/proto';
import type { TimelineOutcome } from '../../domain/ops/timeline.js';
import { scrub } from '../../logger.js';

const { EventType } = proto.temporal.api.enums.v1;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

export interface TimelineStep {
  At: string;
  WorkflowType: string;
  WorkflowId: string;
  RunId: string;
  /** The business step: the workflow type (start/end), an activity type, `start <ChildType>`, `timer`, a signal or update name. */
  Step: string;
  /** started, completed, failed, timed_out, canceled, terminated, continued_as_new, running, waiting, fired, received, accepted, rejected, already_started. */
  Outcome: TimelineOutcome;
  /** Activity attempt that produced the outcome (1 = first try). */
  Attempt?: number;
  /** A child's workflow id, a failure's message (scrubbed), or a timer's duration. */
  Detail?: string;
}

export interface TimelineSources {
  organizationId: string;
  /** Workflow ids the record's rows name. */
  workflowIds: string[];
  /** Workflow id prefixes (reminder e-mails numbered per reminder and recipient). */
  workflowIdPrefixes?: string[];
  /** Search attributes that tag the record's workflows (ANDed with OrganizationId). */
  keys?: { OrderNumber?: string | null; InvoiceNumber?: string | null };
}

/** At most this many executions are read per timeline (newest first). */
const MAX_EXECUTIONS = 40;

/** A visibility query literal; null when the value cannot be quoted safely (the clause is left out). */
const literal = (v: string): string | null => (/^[^'"\\\n\r]{1,200}$/.test(v) ? `'${v}'` : null);

function query(src: TimelineSources): string | null {
  const org = literal(src.organizationId);
  const clauses: string[] = [];
  const ids = src.workflowIds.map(literal).filter((x): x is string => !!x);
  if (ids.length) clauses.push(`WorkflowId IN (${ids.join(', ')})`);
  for (const p of src.workflowIdPrefixes ?? []) {
    const q = literal(p);
    if (q && org) clauses.push(`(WorkflowId STARTS_WITH ${q} AND OrganizationId = ${org})`);
  }
  for (const [k, v] of Object.entries(src.keys ?? {})) {
    const q = v ? literal(v) : null;
    if (q && org) clauses.push(`(${k} = ${q} AND OrganizationId = ${org})`);
  }
  return clauses.length ? clauses.join(' OR ') : null;
}

const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined): number => (t ? Number(String(t.seconds ?? 0)) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0);
const iso = (e: HistoryEvent) => new Date(ms(e.eventTime)).toISOString();
const message = (f: { message?: string | null; cause?: { message?: string | null } | null } | null | undefined) =>
  f ? scrub([f.message, f.cause?.message].filter(Boolean).join(': ')).slice(0, 300) : undefined;
/**
 * A local activity's marker (the SDK's `core_local_activity`): its activity type and attempt, read
 * from the marker's `data` entry, which the SDK writes as plain JSON (no business payload).
 */
function localActivityOf(e: HistoryEvent): { type: string; attempt?: number } | null {
  const m = e.markerRecordedEventAttributes;
  if (m?.markerName !== 'core_local_activity') return null;
  try {
    const raw = m.details?.data?.payloads?.[0]?.data;
    const d = raw ? (JSON.parse(Buffer.from(raw).toString('utf8')) as { activity_type?: string; activityType?: string; attempt?: number }) : {};
    return { type: d.activity_type ?? d.activityType ?? 'activity', attempt: d.attempt ?? undefined };
  } catch {
    return { type: 'activity' };
  }
}

const durationText = (d: { seconds?: unknown; nanos?: number | null } | null | undefined) => `${Math.round(ms(d) / 1000)} s`;

/** The business steps of one execution's history. */
export function stepsOf(info: { type: string; workflowId: string; runId: string }, events: HistoryEvent[]): TimelineStep[] {
  const base = { WorkflowType: info.type, WorkflowId: info.workflowId, RunId: info.runId };
  const out: TimelineStep[] = [];
  const scheduled = new Map<string, { type: string; at: string; done: boolean }>();
  const attempts = new Map<string, number>();
  const timers = new Map<string, { at: string; duration: string; done: boolean }>();
  /** A child start's step (its index in `out`) by the initiated event's id. */
  const children = new Map<string, number>();
  const updates = new Map<string, string>();
  const id = (n: unknown) => String(n ?? '');
  /** A child start's answer: its outcome on the step of its initiated event (a step of its own if that event is missing). */
  const childAnswered = (initiatedEventId: unknown, outcome: 'started' | 'already_started', type: string | null | undefined, workflowId: string | null | undefined, at: string) => {
    const step = out[children.get(id(initiatedEventId)) ?? -1];
    if (step) Object.assign(step, { Outcome: outcome, Detail: workflowId ?? step.Detail });
    else out.push({ ...base, At: at, Step: `start ${type ?? 'child'}`, Outcome: outcome, Detail: workflowId ?? undefined });
  };
  for (const e of events) {
    const at = iso(e);
    switch (e.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        out.push({ ...base, At: at, Step: info.type, Outcome: 'started', Attempt: e.workflowExecutionStartedEventAttributes?.attempt ?? undefined });
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        scheduled.set(id(e.eventId), { type: e.activityTaskScheduledEventAttributes?.activityType?.name ?? 'activity', at, done: false });
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
        attempts.set(id(e.activityTaskStartedEventAttributes?.scheduledEventId), e.activityTaskStartedEventAttributes?.attempt ?? 1);
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
      case EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
      case EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
      case EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED: {
        const a = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes ?? e.activityTaskCanceledEventAttributes;
        const sid = id(a?.scheduledEventId);
        const s = scheduled.get(sid);
        if (s) s.done = true;
        const outcome =
          e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED ? 'completed' : e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED ? 'failed' : e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT ? 'timed_out' : 'canceled';
        const failure = e.activityTaskFailedEventAttributes?.failure ?? e.activityTaskTimedOutEventAttributes?.failure;
        out.push({ ...base, At: at, Step: s?.type ?? 'activity', Outcome: outcome, Attempt: attempts.get(sid) ?? 1, ...(failure ? { Detail: message(failure) } : {}) });
        break;
      }
      case EventType.EVENT_TYPE_MARKER_RECORDED: {
        // A local activity (checkout's database steps, issuance and e-mail since their `*-local-*` patches): one marker when it ends.
        const la = localActivityOf(e);
        const failure = e.markerRecordedEventAttributes?.failure;
        if (la) out.push({ ...base, At: at, Step: la.type, Outcome: failure ? 'failed' : 'completed', Attempt: la.attempt ?? 1, ...(failure ? { Detail: message(failure) } : {}) });
        break;
      }
      case EventType.EVENT_TYPE_TIMER_STARTED:
        timers.set(e.timerStartedEventAttributes?.timerId ?? '', { at, duration: durationText(e.timerStartedEventAttributes?.startToFireTimeout), done: false });
        break;
      case EventType.EVENT_TYPE_TIMER_FIRED:
      case EventType.EVENT_TYPE_TIMER_CANCELED: {
        const tid = e.timerFiredEventAttributes?.timerId ?? e.timerCanceledEventAttributes?.timerId ?? '';
        const t = timers.get(tid);
        if (t) t.done = true;
        out.push({ ...base, At: at, Step: 'timer', Outcome: e.eventType === EventType.EVENT_TYPE_TIMER_FIRED ? 'fired' : 'canceled', Detail: t?.duration });
        break;
      }
      case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED: {
        // The step sits where the workflow asked for the start (children started together keep
        // the order the workflow gave them); its outcome comes with the started or failed event.
        const c = e.startChildWorkflowExecutionInitiatedEventAttributes;
        children.set(id(e.eventId), out.length);
        out.push({ ...base, At: at, Step: `start ${c?.workflowType?.name ?? 'child'}`, Outcome: 'running', Detail: c?.workflowId ?? undefined });
        break;
      }
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED: {
        const c = e.childWorkflowExecutionStartedEventAttributes;
        childAnswered(c?.initiatedEventId, 'started', c?.workflowType?.name, c?.workflowExecution?.workflowId, at);
        break;
      }
      case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED: {
        const c = e.startChildWorkflowExecutionFailedEventAttributes;
        // Already started earlier (an idempotent start): the child is the one with that id.
        childAnswered(c?.initiatedEventId, 'already_started', c?.workflowType?.name, c?.workflowId, at);
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        out.push({ ...base, At: at, Step: `signal ${e.workflowExecutionSignaledEventAttributes?.signalName ?? ''}`.trim(), Outcome: 'received' });
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED: {
        const u = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
        const name = u?.input?.name ?? 'update';
        updates.set(u?.meta?.updateId ?? '', name);
        out.push({ ...base, At: at, Step: `update ${name}`, Outcome: 'accepted' });
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED: {
        const u = e.workflowExecutionUpdateCompletedEventAttributes;
        const name = updates.get(u?.meta?.updateId ?? '') ?? 'update';
        out.push({ ...base, At: at, Step: `update ${name}`, Outcome: u?.outcome?.failure ? 'rejected' : 'completed', ...(u?.outcome?.failure ? { Detail: message(u.outcome.failure) } : {}) });
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
        out.push({ ...base, At: at, Step: info.type, Outcome: 'completed' });
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
        out.push({ ...base, At: at, Step: info.type, Outcome: 'failed', Detail: message(e.workflowExecutionFailedEventAttributes?.failure) });
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
        out.push({ ...base, At: at, Step: info.type, Outcome: 'timed_out' });
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
        out.push({ ...base, At: at, Step: info.type, Outcome: 'canceled' });
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
        out.push({ ...base, At: at, Step: info.type, Outcome: 'terminated' });
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
        out.push({ ...base, At: at, Step: info.type, Outcome: 'continued_as_new' });
        break;
      default:
        break;
    }
  }
  // What is still under way: an activity scheduled (perhaps retrying) and a timer not yet fired.
  for (const [sid, s] of scheduled) if (!s.done) out.push({ ...base, At: s.at, Step: s.type, Outcome: 'running', Attempt: attempts.get(sid) });
  for (const t of timers.values()) if (!t.done) out.push({ ...base, At: t.at, Step: 'timer', Outcome: 'waiting', Detail: t.duration });
  return out;
}

/** Every step of every execution the sources name, oldest first (ties keep history order). */
export async function readTimeline(temporal: Client, src: TimelineSources): Promise<TimelineStep[]> {
  const q = query(src);
  if (!q) return [];
  const executions: WorkflowExecutionInfo[] = [];
  for await (const wf of temporal.workflow.list({ query: q })) {
    executions.push(wf);
    if (executions.length >= MAX_EXECUTIONS) break;
  }
  const histories = await Promise.all(
    executions.map(async (wf) => {
      const h = await temporal.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
      return stepsOf({ type: wf.type, workflowId: wf.workflowId, runId: wf.runId }, h.events ?? []);
    }),
  );
  return histories
    .flatMap((steps, execution) => steps.map((s, i) => ({ s, execution, i })))
    .sort((a, b) => a.s.At.localeCompare(b.s.At) || a.execution - b.execution || a.i - b.i)
    .map((x) => x.s);
}
