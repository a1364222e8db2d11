import { renderEmail } from '../../src/domain/email/templates';

describe('e-mail templates', () => {
  test('when an order confirmation is rendered, then the total is formatted for its currency, in text and HTML', () => {
    const m = renderEmail('order-confirmation', { orderNumber: 'SO-000042', total: '25.0000', currencyCode: 'USD' });
    expect(m.subject).toBe('Order SO-000042 confirmed');
    expect(m.text).toContain('Total: $25.00');
    expect(m.html).toContain('Total: $25.00');
    expect(renderEmail('order-confirmation', { orderNumber: 'SO-1', total: '1234.5', currencyCode: 'EUR' }).text).toContain('Total: €1,234.50');
  });

  test('when template data contains markup, then the HTML escapes it', () => {
    const m = renderEmail('welcome-admin', { firstName: '<script>x</script>', organizationName: 'Acme & Co', organizationCode: 'org_1' });
    expect(m.html).not.toContain('<script>x');
    expect(m.html).toContain('Acme &#38; Co');
  });
});

describe('tenant-written text in e-mails', () => {
  test('when a company name carries a link and a line break, then the HTML shows it as escaped text on one line', () => {
    const m = renderEmail('invoice-issued', {
      invoiceNumber: 'INV-1',
      organizationName: 'Acme\r\nBcc: victim@example.com',
      companyName: '<a href="http://evil.test/pay">Pay here</a>',
      totalFormatted: '$1.00',
      dueDate: '2026-02-01T00:00:00.000Z',
      pdfUrl: 'https://api.example.com/api/invoices/1/pdf',
    });
    expect(m.html).not.toContain('<a href="http://evil.test');
    expect(m.html).toContain('&#60;a href=&#34;http://evil.test/pay&#34;&#62;Pay here&#60;/a&#62;');
    expect(m.subject).toBe('Invoice INV-1 from Acme Bcc: victim@example.com');
    expect(m.html).toContain('<a href="https://api.example.com/api/invoices/1/pdf">');
  });

  test('when a tenant string is longer than the cap, then it is cut with an ellipsis', () => {
    const m = renderEmail('invoice-reminder', { invoiceNumber: 'INV-2', organizationName: 'O'.repeat(5000), companyName: 'C'.repeat(300), balanceFormatted: '$2.00', dueDate: '2026-02-01', pdfUrl: 'https://x.example/p' });
    expect(m.text).toContain(`Hello ${'C'.repeat(199)}…,`);
    expect(m.text).not.toContain('O'.repeat(200));
    expect(m.subject).toBe('Reminder: invoice INV-2 is due');
  });
});
