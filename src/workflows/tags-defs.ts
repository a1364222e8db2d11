/**
 * How every workflow is findable by tenant: the custom search attributes (registered on the
 * namespace by the launcher) and the memo with a one-line summary. Shared by the client side
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
}

export function searchAttributes(keys: BusinessKeys): SearchAttributePair[] {
  const out: SearchAttributePair[] = [];
  if (keys.organizationId) out.push({ key: SA.OrganizationId, value: keys.organizationId });
  if (keys.customerNumber) out.push({ key: SA.CustomerNumber, value: keys.customerNumber });
  if (keys.orderNumber) out.push({ key: SA.OrderNumber, value: keys.orderNumber });
  if (keys.invoiceNumber) out.push({ key: SA.InvoiceNumber, value: keys.invoiceNumber });
  if (keys.salesRepNumber) out.push({ key: SA.SalesRepNumber, value: keys.salesRepNumber });
  if (keys.importKind) out.push({ key: SA.ImportKind, value: keys.importKind });
  if (keys.quoteNumber) out.push({ key: SA.QuoteNumber, value: keys.quoteNumber });
  if (keys.businessKeys?.length) out.push({ key: SA.BusinessKeys, value: [...keys.businessKeys] });
  return out;
}

/** Memo key of the one-line summary shown in the Temporal UI and `temporal workflow describe`. */
export const SUMMARY_MEMO = 'Summary';

/** The memo of a workflow start: what, for whom, how much; never personal data (no e-mail addresses, names or card data). */
export function summaryMemo(summary: string): Record<string, unknown> {
  return { [SUMMARY_MEMO]: summary.slice(0, 300) };
}

/** "amount currency" when both are known, for summaries. */
export const amountText = (amount: string | number | null | undefined, currency: string | null | undefined): string =>
  amount === null || amount === undefined || amount === '' ? '' : `${amount}${currency ? ` ${currency}` : ''}`;

/** The child options that tag a child workflow: its parent's tenant and business keys, and its summary. */
export function childTags(keys: BusinessKeys, summary: string): { typedSearchAttributes: SearchAttributePair[]; memo: Record<string, unknown> } {
  return { typedSearchAttributes: searchAttributes(keys), memo: summaryMemo(summary) };
}

/** The summary of a sendEmail workflow: template and tenant only (the recipient address is personal data). */
export function emailSummary(template: string, keys: BusinessKeys): string {
  const about = [
    keys.orderNumber && `order ${keys.orderNumber}`,
    keys.invoiceNumber && `invoice ${keys.invoiceNumber}`,
    keys.customerNumber && `customer ${keys.customerNumber}`,
    keys.salesRepNumber && `sales rep ${keys.salesRepNumber}`,
    keys.importKind && `${keys.importKind} import`,
    keys.quoteNumber && `quote ${keys.quoteNumber}`,
  ].filter(Boolean);
  return `E-mail ${template}${about.length ? ` about ${about.join(', ')}` : ''}${keys.organizationId ? ` (organization ${keys.organizationId})` : ''}`;
}
