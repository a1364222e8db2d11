/** HTML of the sandbox's hosted payment page. Every interpolated value is escaped. */
export const esc = (s: unknown): string =>
  String(s ?? '').replace(/[&<>"'`]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' })[c]!);

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.6rem 0 .2rem}input{width:100%;padding:.4rem;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1rem}.error{color:#b00020}</style>
</head>
<body>
<h1>${esc(title)}</h1>
${body}
</body>
</html>`;
}

export function payFormPage(
  setup: { transactionSetupId: string; amount: string; currency: string; reference: string | null },
  error?: string,
  values: { cardholderName?: string } = {},
): string {
  const id = esc(setup.transactionSetupId);
  return page(
    'Sandbox payment',
    `<p>Amount: <strong>${esc(setup.amount)} ${esc(setup.currency)}</strong>${setup.reference ? ` &middot; Reference: ${esc(setup.reference)}` : ''}</p>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/hosted/pay/${id}" autocomplete="off">
  <label for="cardholderName">Name on card</label><input id="cardholderName" name="cardholderName" value="${esc(values.cardholderName)}">
  <label for="cardNumber">Card number</label><input id="cardNumber" name="cardNumber" inputmode="numeric" required>
  <label for="expMonth">Expiration month (MM)</label><input id="expMonth" name="expMonth" inputmode="numeric" maxlength="2" required>
  <label for="expYear">Expiration year (YYYY)</label><input id="expYear" name="expYear" inputmode="numeric" maxlength="4" required>
  <label for="cvv">Security code</label><input id="cvv" name="cvv" inputmode="numeric" maxlength="4" required>
  <button type="submit">Pay</button>
</form>`,
  );
}

export function messagePage(title: string, message: string): string {
  return page(title, `<p>${esc(message)}</p>`);
}
