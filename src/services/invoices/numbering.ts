import type { EntityManager } from '@mikro-orm/postgresql';
import { Invoice } from '../../entities/index.js';

export const formatInvoiceNumber = (n: number | bigint | string) => `INV-${String(n).padStart(6, '0')}`;

/** Next invoice number of the organization: the counter row is updated in the creating transaction, so numbers have no gaps or duplicates. */
export async function nextInvoiceNumber(tx: EntityManager, orgId: string): Promise<string> {
  for (;;) {
    const row = await tx.execute<{ last_number: string }>(
      `insert into invoice_counter (organization_id, last_number) values (?, 1)
       on conflict (organization_id) do update set last_number = invoice_counter.last_number + 1 returning last_number`,
      [orgId],
      'get',
    );
    const candidate = formatInvoiceNumber(row.last_number);
    // A number supplied by an import may already hold this value; take the next one then.
    if (!(await tx.count(Invoice, { organization: orgId, invoiceNumber: candidate }))) return candidate;
  }
}

