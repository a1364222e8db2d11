/**
 * Who receives a customer's invoice and reminder e-mails (DESIGN "Security decisions"): the
 * customer record's stored addresses only, its company e-mail and its billing contacts, never
 * an address written on the invoice request (`customer.companyEmail` of an invoice is a
 * snapshot anyone who may create an invoice can set). Pure.
 */

/** Contact types that mean "send the bills here" (SPEC examples: `Accounts Payable`; also `Billing`). */
const BILLING_TYPES = new Set(['billing', 'accountspayable', 'accounts payable', 'ap', 'invoices', 'invoicing']);

/** At most this many recipients per message. */
export const MAX_INVOICE_RECIPIENTS = 10;

const EMAIL = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;

export function isBillingContact(contactType: string | null | undefined): boolean {
  return BILLING_TYPES.has((contactType ?? '').trim().toLowerCase());
}

/**
 * The stored addresses an invoice of this customer goes to: the company e-mail, then every
 * billing contact's e-mail; well-formed ones only, case-insensitively unique, at most
 * MAX_INVOICE_RECIPIENTS. Empty when the customer record does not exist.
 */
export function invoiceRecipients(customer: { companyEmail: string | null | undefined; contacts: { email?: string | null; contactType?: string | null }[] } | null): string[] {
  if (!customer) return [];
  const all = [customer.companyEmail, ...customer.contacts.filter((c) => isBillingContact(c.contactType)).map((c) => c.email)];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of all) {
    const e = (raw ?? '').trim();
    if (!EMAIL.test(e) || seen.has(e.toLowerCase())) continue;
    seen.add(e.toLowerCase());
    out.push(e);
  }
  return out.slice(0, MAX_INVOICE_RECIPIENTS);
}
