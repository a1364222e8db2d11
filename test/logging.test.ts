import { readFileSync } from 'node:fs';
import path from 'node:path';
import { call, createOrg, issueApiAccess, setPasswordToken, stack, uniq, waitForMail } from './support/helpers';

describe('API logs', () => {
  test('when logins, api-access and a set-password flow ran, then the API log holds none of their secrets and every line is JSON', async () => {
    const secrets: string[] = [];
    const org = await createOrg();
    secrets.push(org.adminPassword, org.adminToken);
    const creds = await issueApiAccess(org);
    secrets.push(creds.ClientSecret, creds.ApiKey);
    const client = await call('POST', '/api/auth/login', { body: { OrgCode: org.code, ClientId: creds.ClientId, ClientSecret: creds.ClientSecret } });
    expect(client.status).toBe(200);
    secrets.push(client.body.AccessToken);
    // A failed login with a wrong secret must not log the attempted secret either.
    const wrongSecret = `wrong-${uniq('secret')}`;
    expect((await call('POST', '/api/auth/login', { body: { OrgCode: org.code, ClientId: creds.ClientId, ClientSecret: wrongSecret } })).status).toBe(401);
    secrets.push(wrongSecret);
    expect((await call('GET', '/api/organization', { apiKey: creds.ApiKey })).status).toBe(200);
    const admin = await call('POST', '/api/auth/token', { body: { Email: org.adminEmail, Password: org.adminPassword } });
    expect(admin.status).toBe(200);
    secrets.push(admin.body.AccessToken);

    const email = `${uniq('logged')}@example.com`;
    expect((await call('POST', '/api/users', { token: admin.body.AccessToken, body: { FirstName: 'Log', LastName: 'Ged', Email: email } })).status).toBe(201);
    const token = setPasswordToken(await waitForMail(email, (m) => /token=/.test(m.text)));
    const newPassword = `pw-${uniq('secret')}`;
    secrets.push(token, newPassword);
    expect((await call('POST', '/api/auth/set-password', { body: { Token: token, Password: newPassword } })).status).toBe(204);
    const user = await call('POST', '/api/auth/token', { body: { Email: email, Password: newPassword } });
    expect(user.status).toBe(200);
    secrets.push(user.body.AccessToken);
    // Bad JSON that carries a secret must not echo it into the log either.
    const badJsonSecret = `pw-${uniq('badjson')}`;
    expect((await call('POST', '/api/auth/token', { rawBody: `{"Email":"${email}","Password":"${badJsonSecret}"` })).status).toBe(400);
    secrets.push(badJsonSecret);

    await new Promise((r) => setTimeout(r, 500));
    const content = readFileSync(path.join(stack.logDir, 'api.log'), 'utf8');
    const lines = content.split('\n');
    if (!content.endsWith('\n')) lines.pop(); // a line still being written
    const nonEmpty = lines.filter((l) => l.trim() !== '');
    expect(nonEmpty.length).toBeGreaterThan(10);
    const notJson = nonEmpty.filter((l) => {
      try {
        return typeof JSON.parse(l) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    expect(content).toContain('"msg":"request"');
    for (const s of secrets) expect({ leaked: content.includes(s), secret: s.slice(0, 6) }).toEqual({ leaked: false, secret: s.slice(0, 6) });
  });
});
