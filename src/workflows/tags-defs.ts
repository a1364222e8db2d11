/**
 * How every workflow is described (issue 43 item 2), by one helper, workflowTags: the custom
 * search attributes (registered on the namespace by the launcher; a system workflow carries
 * `scope:system` in BusinessKeys), Temporal's static summary and details (the UI's Summary and
 * Details; scheme `<what> for <whom>[: <amount>]`) and the memo `Summary`. Shared by the client side
 * (src/adapters/temporal.ts) and by workflows starting children, which pass their own tenant
 * and business keys on (an order's confirmation e-mail carries OrganizationId, CustomerNumber
 * and OrderNumber). Deterministic: no I/O, importable from workflow code.
 */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

export const SA = {
  OrganizationId: defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD),
  CustomerNumber: defineSearchAttributeKey('CustomerNumber', SearchAttributeType.KEYWORD),
  OrderNumber: defineSearchAttributeKey('OrderNumber', SearchAttributeType.KEYWORD),
  InvoiceNumber: defineSearchAttributeKey('InvoiceNumber', SearchAttributeType.KEYWORD),
  SalesRepNumber: defineSearchAttributeKey('SalesRepNumber', SearchAttributeType.KEYWORD),
  ImportKind: defineSearchAttributeKey('ImportKind', SearchAttributeType.KEYWORD),
  QuoteNumber: defineSearchAttributeKey('QuoteNumber', SearchAttributeType.KEYWORD),
  /** The one list of further business keys (shipment numbers; RMA and credit-note numbers later): DESIGN "Tenancy", ten Keyword slots. */
  BusinessKeys: defineSearchAttributeKey('BusinessKeys', SearchAttributeType.KEYWORD_LIST),
};

export interface BusinessKeys {
  organizationId?: string | null;
  customerNumber?: string | null;
  orderNumber?: string | null;
  invoiceNumber?: string | null;
  salesRepNumber?: string | null;
  importKind?: string | null;
  quoteNumber?: string | null;
  /** Values of the KeywordList BusinessKeys (e.g. shipment numbers SH-000001). */
  businessKeys?: readonly string[] | null;
  /**
   * `system`: a workflow of the deployment, of no one organization (the webhook dispatcher, the
   * janitor's schedule, a password-reset e-mail). Kept in the KeywordList BusinessKeys as
   * `scope:system` (the namespace's Keyword slots are few): `BusinessKeys = 'scope:system'`.
   */
  scope?: 'system' | null;
}

/** The BusinessKeys value of a system workflow (one of no organization). */
export const SYSTEM_SCOPE = 'scope:system';

export function searchAttributes(keys: BusinessKeys): SearchAttributePair[] {
  const out: SearchAttributePair[] = [];
  if (keys.organizationId) out.push({ key: SA.OrganizationId, value: keys.organizationId });
  if (keys.customerNumber) out.push({ key: SA.CustomerNumber, value: keys.customerNumber });
  if (keys.orderNumber) out.push({ key: SA.OrderNumber, value: keys.orderNumber });
  if (keys.invoiceNumber) out.push({ key: SA.InvoiceNumber, value: keys.invoiceNumber });
  if (keys.salesRepNumber) out.push({ key: SA.SalesRepNumber, value: keys.salesRepNumber });
  if (keys.importKind) out.push({ key: SA.ImportKind, value: keys.importKind });
  if (keys.quoteNumber) out.push({ key: SA.QuoteNumber, value: keys.quoteNumber });
  const list = [...(keys.businessKeys ?? []), ...(keys.scope === 'system' ? [SYSTEM_SCOPE] : [])];
  if (list.length) out.push({ key: SA.BusinessKeys, value: list });
  return out;
}

/** Memo key of the one-line summary (kept for tools that read memos; the UI reads the static summary). */
export const SUMMARY_MEMO = 'Summary';

/** What a workflow does, in the one scheme of its summary: what, for whom (read from its keys), the amount. */
export interface WorkflowAbout {
  /** What it does, e.g. `Checkout of cart 5f3c…`, `E-mail order-confirmation`; no personal data (no e-mail addresses, names or card data). */
  what: string;
  /** The amount it moves or concerns, e.g. `25.00 USD` (amountText); none when it moves no money. */
  amount?: string | null;
}

/** Everything a workflow start carries to describe it: search attributes, memo, and Temporal's user metadata (the UI's Summary and Details). */
export interface WorkflowTags {
  typedSearchAttributes: SearchAttributePair[];
  memo: Record<string, unknown>;
  staticSummary: string;
  staticDetails: string;
}

/** For whom a workflow works, from its keys: `customer C-1 of organization <id>`, `sales rep R-1 of …`, `organization <id>`, or `the system (every organization)`. */
export function forWhom(keys: BusinessKeys): string {
  const org = keys.organizationId ? `organization ${keys.organizationId}` : null;
  const party = keys.customerNumber ? `customer ${keys.customerNumber}` : keys.salesRepNumber ? `sales rep ${keys.salesRepNumber}` : null;
  if (party && org) return `${party} of ${org}`;
  return party ?? org ?? 'the system (every organization)';
}

/** The one-line summary: `<what> for <whom>[: <amount>]` (at most 300 characters). */
export function summaryOf(keys: BusinessKeys, about: WorkflowAbout): string {
  return `${about.what} for ${forWhom(keys)}${about.amount ? `: ${about.amount}` : ''}`.slice(0, 300);
}

/**
 * The one helper that describes a workflow start (client starts, schedules, child workflows):
 * its search attributes (OrganizationId, CustomerNumber… or `scope:system`), the memo `Summary`,
 * and Temporal's static summary (`<what> for <whom>[: <amount>]`) and details (one markdown line
 * per key). `about` may be a summary built earlier by summaryOf (a start kept in the outbox).
 * Deterministic: workflow code calls it for its children.
 */
export function workflowTags(keys: BusinessKeys, about: WorkflowAbout | string): WorkflowTags {
  const summary = typeof about === 'string' ? about.slice(0, 300) : summaryOf(keys, about);
  const rows: [string, string | null | undefined][] = [
    ['What', typeof about === 'string' ? summary : about.what],
    ['For', forWhom(keys)],
    ['Amount', typeof about === 'string' ? null : about.amount],
    ['Scope', keys.scope === 'system' || !keys.organizationId ? 'system' : 'organization'],
    ['Organization', keys.organizationId],
    ['Customer', keys.customerNumber],
    ['Order', keys.orderNumber],
    ['Invoice', keys.invoiceNumber],
    ['Sales rep', keys.salesRepNumber],
    ['Import', keys.importKind],
    ['Quote', keys.quoteNumber],
    ['Business keys', keys.businessKeys?.length ? keys.businessKeys.join(', ') : null],
  ];
  return {
    typedSearchAttributes: searchAttributes(keys),
    memo: { [SUMMARY_MEMO]: summary },
    staticSummary: summary,
    staticDetails: rows
      .filter(([, v]) => v)
      .map(([k, v]) => `**${k}:** ${v}`)
      .join('\n'),
  };
}

/** "amount currency" when both are known, for summaries. */
export const amountText = (amount: string | number | null | undefined, currency: string | null | undefined): string =>
  amount === null || amount === undefined || amount === '' ? '' : `${amount}${currency ? ` ${currency}` : ''}`;

/** The child options that describe a child workflow (workflowTags): its parent's tenant and business keys, and what it does. */
export function childTags(keys: BusinessKeys, about: WorkflowAbout): WorkflowTags {
  return workflowTags(keys, about);
}

/** What a sendEmail workflow does: the template and what it is about (never the recipient address: personal data). */
export function emailAbout(template: string, keys: BusinessKeys, extra?: string): WorkflowAbout {
  const about = [
    keys.orderNumber && `order ${keys.orderNumber}`,
    keys.invoiceNumber && `invoice ${keys.invoiceNumber}`,
    keys.importKind && `${keys.importKind} import`,
    keys.quoteNumber && `quote ${keys.quoteNumber}`,
    extra,
  ].filter(Boolean);
  return { what: `E-mail ${template}${about.length ? ` about ${about.join(', ')}` : ''}` };
}
