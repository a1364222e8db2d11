/**
 * Workflow library (issue 39 item 3): starting a child workflow once per business key. Workflow
 * ids are business keys (`email-<emailId>`, `invoice-<invoiceId>`, `checkout-<cartId>`), so a
 * child whose id is taken (a re-run of the parent, an earlier run that started it, another
 * workflow that got there first) is already running or done: not an error. Deterministic; the
 * options go to startChild as they are, so the commands recorded in histories are unchanged.
 */
import { ParentClosePolicy, startChild, type ChildWorkflowHandle, type ChildWorkflowOptions, type Workflow } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError, type WithWorkflowArgs } from '@temporalio/common';

/**
 * Starts the child `workflowType` (give the workflow's type, `startChildOnce<typeof fn>('fn', ...)`,
 * to type its args), abandoned (it outlives this run), and answers its handle; null when its id
 * is taken (WorkflowExecutionAlreadyStartedError: the one place workflow code reads it).
 */
export async function startChildOnce<T extends Workflow>(workflowType: string, options: WithWorkflowArgs<T, ChildWorkflowOptions>): Promise<ChildWorkflowHandle<T> | null> {
  try {
    return await startChild<T>(workflowType, { ...options, parentClosePolicy: ParentClosePolicy.ABANDON });
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return null;
    throw e;
  }
}
