/**
 * E-mail texts. Pure functions: data in, subject/text/html out. Every string a tenant wrote
 * (organization and company names, people's names, notes, line descriptions) is length-capped
 * and stripped of control characters before it is used, and HTML-escaped in the HTML part, so
 * a name carrying markup or a link arrives as text (DESIGN "Security decisions").
 */

import { formatMoney } from '../money.js';
export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, lines: string[], link?: { href: string; label: string }): RenderedEmail {
  const text = [...lines, ...(link ? ['', `${link.label}: ${link.href}`] : [])].join('\n');
  const html = `<!doctype html><html><body><h1>${esc(title)}</h1>${lines.map((l) => `<p>${esc(l)}</p>`).join('')}${
    link ? `<p><a href="${esc(link.href)}">${esc(link.label)}</a></p>` : ''
  }</body></html>`;
  return { subject: title, text, html };
}

/** Longest tenant-written value in a message; a generic body may be longer. */
export const MAX_TENANT_TEXT = 200;
export const MAX_TENANT_BODY = 2000;

/** A tenant-written value: control characters (line breaks too) become spaces, then capped with an ellipsis. */
export function tenantText(v: unknown, max = MAX_TENANT_TEXT): string {
  const s = String(v ?? '')
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Template data with every text capped; links the service minted (`...Url`) and numbers stay as they are. */
function capped(d: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) out[k] = typeof v !== 'string' || k.endsWith('Url') ? v : tenantText(v, k === 'body' ? MAX_TENANT_BODY : MAX_TENANT_TEXT);
  return out;
}

export function renderEmail(template: string, data: Record<string, unknown>): RenderedEmail {
  const d = capped(data);
  switch (template) {
    case 'welcome-admin':
      return page(
        `Welcome to ${d.organizationName}`,
        [`Hello ${d.firstName},`, `You are now an administrator of ${d.organizationName} (organization code ${d.organizationCode}).`],
        d.setPasswordUrl ? { href: String(d.setPasswordUrl), label: 'Set your password' } : undefined,
      );
    case 'invite-user':
      return page(
        `You have been invited to ${d.organizationName}`,
        [`Hello ${d.firstName},`, `An account was created for you at ${d.organizationName}.`],
        d.setPasswordUrl ? { href: String(d.setPasswordUrl), label: 'Set your password' } : undefined,
      );
    case 'welcome-sales-rep':
      return page(`Welcome to ${d.organizationName}`, [`Hello ${d.firstName},`, `You were added as sales rep ${d.repNumber} of ${d.organizationName}.`],
        d.setPasswordUrl ? { href: String(d.setPasswordUrl), label: 'Set your password' } : undefined);
    case 'invite-sales-rep':
      return page(`Invitation to ${d.organizationName}`, [`Hello ${d.firstName},`, `You were invited to ${d.organizationName} as sales rep ${d.repNumber}.`],
        d.setPasswordUrl ? { href: String(d.setPasswordUrl), label: 'Set your password' } : undefined);
    case 'reinvite-sales-rep':
      return page(`Your access to ${d.organizationName} is restored`, [`Hello ${d.firstName},`, `Your sales rep access to ${d.organizationName} was reactivated.`],
        d.setPasswordUrl ? { href: String(d.setPasswordUrl), label: 'Set your password' } : undefined);
    case 'accept-membership':
      return page(
        `Join ${d.organizationName}?`,
        [
          `Hello ${d.firstName},`,
          `${d.organizationName} (organization code ${d.organizationCode}) added your account. You can sign in to it once you accept.`,
          'Accepting asks you to choose a new password; every earlier session of your account ends.',
          'If you did not expect this, ignore this e-mail: nothing changes until you accept.',
        ],
        d.acceptUrl ? { href: String(d.acceptUrl), label: 'Accept the invitation' } : undefined,
      );
    case 'password-reset':
      return page(
        'Reset your password',
        [
          `Hello ${d.firstName},`,
          'Someone asked to reset the password of your account. The link below works once, for one hour; using it signs out every session.',
          'If you did not ask for this, ignore this e-mail: your password stays as it is.',
        ],
        d.resetUrl ? { href: String(d.resetUrl), label: 'Choose a new password' } : undefined,
      );
    case 'order-confirmation':
      return page(`Order ${d.orderNumber} confirmed`, [
        `Thank you for your order.`,
        `Order number: ${d.orderNumber}`,
        `Total: ${d.currencyCode ? formatMoney(String(d.total ?? '0'), String(d.currencyCode)) : String(d.total ?? '')}`,
      ]);
    case 'invoice-issued':
      return page(
        `Invoice ${d.invoiceNumber} from ${d.organizationName}`,
        [`Hello ${d.companyName},`, `Invoice ${d.invoiceNumber} for ${d.totalFormatted} is due on ${String(d.dueDate ?? '').slice(0, 10)}.`],
        { href: String(d.pdfUrl), label: 'Download the invoice (PDF)' },
      );
    case 'invoice-reminder':
      return page(
        `Reminder: invoice ${d.invoiceNumber} is due`,
        [`Hello ${d.companyName},`, `Invoice ${d.invoiceNumber} from ${d.organizationName} has a balance of ${d.balanceFormatted ?? d.totalFormatted} due on ${String(d.dueDate ?? '').slice(0, 10)}.`],
        { href: String(d.pdfUrl), label: 'Download the invoice (PDF)' },
      );
    case 'invoice-overdue':
      return page(
        `Overdue: invoice ${d.invoiceNumber} is ${d.daysOverdue} days past due`,
        [`Hello ${d.companyName},`, `Invoice ${d.invoiceNumber} from ${d.organizationName} was due on ${String(d.dueDate ?? '').slice(0, 10)} and still has a balance of ${d.balanceFormatted}.`, `Please pay it to keep buying on account.`],
        { href: String(d.pdfUrl), label: 'Download the invoice (PDF)' },
      );
    case 'credit-hold':
      return page(
        `Your account with ${d.organizationName} is on credit hold`,
        [`Hello ${d.companyName},`, `Invoice ${d.invoiceNumber} (balance ${d.balanceFormatted}) is ${d.daysOverdue} days past due, so new orders on account are paused.`, `Card payments still work; paying the overdue invoices lifts the hold at once.`],
        { href: String(d.pdfUrl), label: 'Download the invoice (PDF)' },
      );
    case 'quote-reminder':
      return page(`Reminder: quote ${d.quoteNumber} expires soon`, [
        `Hello ${d.companyName},`,
        `Our offer ${d.quoteNumber} for ${d.currencyCode ? formatMoney(String(d.total ?? '0'), String(d.currencyCode)) : String(d.total ?? '')} is valid until ${String(d.expiresAt ?? '').replace('T', ' ').slice(0, 16)} UTC.`,
        'Accept it before then to order at the quoted prices.',
      ]);
    case 'approval-request':
      return page(`Approval needed: ${d.customerNumber} order of ${d.currencyCode ? formatMoney(String(d.total ?? '0'), String(d.currencyCode)) : String(d.total ?? '')}`, [
        `Hello,`,
        `${d.requesterName} asks for approval of a checkout above their spending limit (${d.reason}).`,
        `Approval ${d.approvalId}, level ${d.level}.`,
      ]);
    case 'shipment-notification': {
      // The tracking link is a tenant-written https URL (the route accepts http(s) only); shown as a link and as text.
      const link = typeof d.trackingUrl === 'string' && /^https?:\/\//i.test(d.trackingUrl) ? { href: d.trackingUrl, label: 'Track the shipment' } : undefined;
      return page(
        `Order ${d.orderNumber}: shipment ${d.shipmentNumber} is on its way`,
        [
          `Shipment ${d.shipmentNumber} of order ${d.orderNumber} left with ${d.units} unit(s).`,
          ...(d.carrier ? [`Carrier: ${d.carrier}`] : []),
          ...(d.trackingNumber ? [`Tracking number: ${d.trackingNumber}`] : []),
        ],
        link,
      );
    }
    case 'backorder-allocated':
      return page(`Order ${d.orderNumber}: ${d.quantity} × ${d.sku} now reserved for you`, [
        `Stock arrived for order ${d.orderNumber}: ${d.quantity} unit(s) of ${d.sku} are reserved for it and will ship with the next shipment.`,
        Number(d.remaining) > 0 ? `${d.remaining} unit(s) of ${d.sku} are still on backorder.` : `Nothing of ${d.sku} is on backorder any more.`,
      ]);
    case 'backorder-escalation':
      return page(`Order ${d.orderNumber} has waited ${d.days} day(s) for stock`, [
        `Order ${d.orderNumber} of customer ${d.customerNumber} still waits for ${d.backordered} unit(s) on backorder, longer than the organization's limit of ${d.days} day(s).`,
        'Receive stock for its lines (PUT /api/inventory) or contact the customer.',
      ]);
    case 'approval-decision':
      return page(`Your checkout was ${d.decision}`, [`Hello ${d.requesterName},`, `Approval ${d.approvalId} was ${d.decision}${d.reason ? `: ${d.reason}` : '.'}`]);
    default:
      return page(String(d.subject ?? 'Notification'), [String(d.body ?? '')]);
  }
}
