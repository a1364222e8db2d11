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
