/**
 * The deployment's mail transport reuses its SMTP connections (src/adapters/mail.ts): e-mails sent
 * one after another arrive over one connection of the stack's SMTP catcher, which records the
 * session each message came in on. `?pool=false` in SMTP_URL gives a connection per e-mail.
 */
import { randomUUID } from 'node:crypto';
import { createMailer, pooledSmtpUrl, withSmtpTimeouts } from '../src/adapters/mail';
import type { Config } from '../src/config';
import { FaultProxy } from './support/fault-proxy';
import { stack } from './support/helpers';

async function sendThree(smtpUrl: string): Promise<string[]> {
  const to = `pool-${randomUUID()}@example.com`;
  const mailer = createMailer({ smtpUrl, mailFrom: 'B2B Commerce <no-reply@commerce.local>' } as Config);
  try {
    for (let i = 0; i < 3; i++) {
      const mail = {
        to,
        subject: `pooled ${i}`,
        text: `message ${i}`,
        html: `<p>message ${i}</p>`,
        messageId: `<${randomUUID()}@commerce.local>`,
        headers: {},
      };
      await mailer.send(mail, null);
    }
  } finally {
    mailer.close();
  }
  const res = await fetch(`${stack.urls.mailbox}/messages?to=${encodeURIComponent(to)}`);
  const got = (await res.json()) as { subject: string; session: string }[];
  expect(got.map((m) => m.subject).sort()).toEqual(['pooled 0', 'pooled 1', 'pooled 2']);
  return got.map((m) => m.session);
}

describe('outgoing mail connections', () => {
  test('when three e-mails are sent one after another, then they arrive over one SMTP connection', async () => {
    const sessions = await sendThree(stack.urls.smtp);
    expect(new Set(sessions).size).toBe(1);
  });

  test('when SMTP_URL says pool=false, then each e-mail opens its own connection', async () => {
    const sessions = await sendThree(`${stack.urls.smtp}?pool=false`);
    expect(new Set(sessions).size).toBe(3);
  });

  test('when the SMTP server drops the pooled connection between two e-mails (a restart), then the next e-mail goes out on a new connection', async () => {
    const proxy = FaultProxy.forUrl(stack.urls.smtp);
    const port = await proxy.start();
    const to = `pool-drop-${randomUUID()}@example.com`;
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'B2B Commerce <no-reply@commerce.local>' } as Config);
    const mail = (subject: string) => ({ to, subject, text: subject, html: `<p>${subject}</p>`, messageId: `<${randomUUID()}@commerce.local>`, headers: {} });
    try {
      await mailer.send(mail('before the drop'), null);
      // The server goes away with the idle pooled connection open, then comes back.
      await proxy.refuse();
      await new Promise((r) => setTimeout(r, 200));
      proxy.pass();
      await mailer.send(mail('after the drop'), null);
    } finally {
      mailer.close();
      await proxy.close();
    }
    const got = (await (await fetch(`${stack.urls.mailbox}/messages?to=${encodeURIComponent(to)}`)).json()) as { subject: string; session: string }[];
    expect(got.map((m) => m.subject).sort()).toEqual(['after the drop', 'before the drop']);
    expect(new Set(got.map((m) => m.session)).size).toBe(2);
  });

  test("when the SMTP server accepts the connection and never answers, then the attempt fails on its greeting timeout, well inside the e-mail step's 30 s (nodemailer alone waits 30 s)", async () => {
    const proxy = FaultProxy.forUrl(stack.urls.smtp);
    const port = await proxy.start();
    proxy.hang();
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'B2B Commerce <no-reply@commerce.local>' } as Config);
    const mail = {
      to: `silent-${randomUUID()}@example.com`,
      subject: 'never sent',
      text: 'x',
      html: '<p>x</p>',
      messageId: `<${randomUUID()}@commerce.local>`,
      headers: {},
    };
    try {
      await expect(mailer.send(mail, null)).rejects.toThrow(/Greeting never received/);
    } finally {
      mailer.close();
      await proxy.close();
    }
  }, 25_000);

  test('when SMTP_URL sets no timeouts, then the bounds are added; timeouts it sets are kept', () => {
    const url = new URL(withSmtpTimeouts('smtp://127.0.0.1:2525?pool=true&socketTimeout=60000'));
    expect(Object.fromEntries(url.searchParams)).toEqual({ pool: 'true', socketTimeout: '60000', connectionTimeout: '10000', greetingTimeout: '10000' });
  });

  test('when SMTP_URL carries credentials and options, then pooling is added without changing them', () => {
    expect(pooledSmtpUrl('smtps://user:p%40ss@mail.example.com:465?tls.rejectUnauthorized=false')).toBe(
      'smtps://user:p%40ss@mail.example.com:465?tls.rejectUnauthorized=false&pool=true',
    );
    expect(pooledSmtpUrl('smtp://127.0.0.1:2525?pool=false')).toBe('smtp://127.0.0.1:2525?pool=false');
  });
});
