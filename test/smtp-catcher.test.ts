import net from 'node:net';
import { call, createOrg, stack, waitForMail } from './support/helpers';

describe('SMTP catcher (test infrastructure)', () => {
  test('when an SMTP client resets its connection mid-conversation, then the catcher keeps running and still receives mail', async () => {
    const port = Number(new URL(stack.urls.smtp).port);
    await new Promise<void>((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.write('EHLO reset.test\r\n');
        setTimeout(() => {
          s.resetAndDestroy();
          resolve();
        }, 200);
      });
      s.on('error', reject);
    });
    await new Promise((r) => setTimeout(r, 300));
    expect((await fetch(`${stack.urls.mailbox}/health`)).status).toBe(200);
    const org = await createOrg();
    await waitForMail(org.adminEmail, (m) => m.subject.includes(org.name));
    expect((await call('GET', '/api/organization', { token: org.adminToken })).status).toBe(200);
  });
});
