import { invoiceRecipients } from '../../src/domain/email/recipients';

describe('invoice e-mail recipients', () => {
  test('when a customer has a company e-mail and billing contacts, then those stored addresses are the recipients, unique, well-formed only', () => {
    expect(
      invoiceRecipients({
        companyEmail: 'office@acme.example',
        contacts: [
          { email: 'ap@acme.example', contactType: 'Accounts Payable' },
          { email: 'bills@acme.example', contactType: 'billing' },
          { email: 'buyer@acme.example', contactType: 'Purchasing' },
          { email: 'OFFICE@acme.example', contactType: 'Billing' },
          { email: 'not an address', contactType: 'Billing' },
          { email: null, contactType: 'Billing' },
        ],
      }),
    ).toEqual(['office@acme.example', 'ap@acme.example', 'bills@acme.example']);
  });

  test('when no customer record exists, then nobody is mailed (an address on the invoice alone never is)', () => {
    expect(invoiceRecipients(null)).toEqual([]);
  });

  test('when a customer has many billing contacts, then at most 10 are mailed', () => {
    const contacts = Array.from({ length: 20 }, (_, i) => ({ email: `ap${i}@acme.example`, contactType: 'Billing' }));
    expect(invoiceRecipients({ companyEmail: 'office@acme.example', contacts })).toHaveLength(10);
  });
});
