/**
 * Attacks on the edges of the API (issue 9 items 1, 6, 7, 8, 11, 12), each named after the
 * attack and run over HTTP against the real stack.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync } from 'node:zlib';
import { API, call, stack, createMemberUser, createOrg, dbQuery, decodeToken, expectProblem, randomIp, uniq, waitForMail, type OrgFixture } from './support/helpers';
import { pathParamFixtures } from './support/matrix-fixtures';

const acceptToken = (text: string) => {
  const m = /accept-membership\?token=([A-Za-z0-9_-]+)/.exec(text);
  if (!m) throw new Error(`no acceptance link in: ${text.slice(0, 300)}`);
  return m[1];
};
const setPasswordLink = (text: string) => {
  const m = /set-password\?token=([A-Za-z0-9_-]+)/.exec(text);
  if (!m) throw new Error(`no set-password link in: ${text.slice(0, 300)}`);
  return m[1];
};

async function adminToken(org: OrgFixture): Promise<{ token: string; userId: string }> {
  const member = await createMemberUser(org);
  expect((await call('POST', '/api/organizations/users/admins', { token: org.adminToken, body: { Email: member.email } })).status).toBe(200);
  const login = await call('POST', '/api/auth/token', { body: { Email: member.email, Password: 'member password 1' } });
  expect(login.status).toBe(200);
  return { token: login.body.AccessToken, userId: member.userId };
}

describe('pre-account takeover', () => {
  test('when an attacker self-registers cfo@victim and the victim admin adds that e-mail, then the attacker cannot sign in to the victim until the real owner accepts the e-mailed link', async () => {
    const victimEmail = `${uniq('cfo')}@victim.example`;
    const attackerPassword = 'attacker password 1';
    const attackerOrg = await call('POST', '/api/organizations', {
      body: { Organization: { Name: uniq('Attacker Org ') }, User: { FirstName: 'Mallory', LastName: 'Attacker', Email: victimEmail, Password: attackerPassword } },
    });
    expect(attackerOrg.status).toBe(201);
    const victim = await createOrg();

    const added = await call('POST', '/api/users', { token: victim.adminToken, body: { FirstName: 'Carol', LastName: 'Finance', Email: victimEmail.toUpperCase(), PhoneNumber: '+1 555 0199' } });
    expect(added.status).toBe(200);
    // The response echoes what the victim submitted, never the attacker's profile.
    expect(added.body).toEqual({ UserId: expect.any(String), FirstName: 'Carol', LastName: 'Finance', Email: victimEmail.toLowerCase(), PhoneNumber: '+1 555 0199' });

    const before = await call('POST', '/api/auth/token', { body: { Email: victimEmail, Password: attackerPassword, OrgCode: victim.code } });
    expectProblem(before, 401);
    // Without OrgCode the pending organization is not chosen either.
    const noCode = await call('POST', '/api/auth/token', { body: { Email: victimEmail, Password: attackerPassword } });
    expect(decodeToken(noCode.body.AccessToken).OrganizationId).toBe(attackerOrg.body.OrganizationId);

    const mail = await waitForMail(victimEmail, (m) => m.subject === `Join ${victim.name}?`);
    const token = acceptToken(mail.text);
    const accepted = await call('POST', '/api/users/memberships/accept', { body: { Token: token, Password: 'owner password 1' } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ OrganizationId: victim.organizationId, Name: victim.name });
    expectProblem(await call('POST', '/api/users/memberships/accept', { body: { Token: token, Password: 'owner password 2' } }), 400);

    // The attacker's password died with the acceptance; the owner's opens the victim organization.
    expectProblem(await call('POST', '/api/auth/token', { body: { Email: victimEmail, Password: attackerPassword, OrgCode: victim.code } }), 401);
    const after = await call('POST', '/api/auth/token', { body: { Email: victimEmail, Password: 'owner password 1', OrgCode: victim.code } });
    expect(after.status).toBe(200);
    expect(decodeToken(after.body.AccessToken)).toMatchObject({ OrganizationId: victim.organizationId, role: 'Customer' });
  });

  test('when the victim admin grants the admin role to a self-registered e-mail, then the attacker gets no admin token there', async () => {
    const victimEmail = `${uniq('ceo')}@victim.example`;
    const attackerPassword = 'attacker password 2';
    expect(
      (await call('POST', '/api/organizations', { body: { Organization: { Name: uniq('Squat ') }, User: { FirstName: 'M', LastName: 'A', Email: victimEmail, Password: attackerPassword } } })).status,
    ).toBe(201);
    const victim = await createOrg();
    expect((await call('POST', '/api/organizations/users/admins', { token: victim.adminToken, body: { Email: victimEmail } })).status).toBe(200);
    expectProblem(await call('POST', '/api/auth/token', { body: { Email: victimEmail, Password: attackerPassword, OrgCode: victim.code } }), 401);
  });
});

describe('malformed input never answers 500', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
  });

  test('when path ids and query filters carry NUL, then 400 naming the parameter', async () => {
    for (const path of ['/api/products/%00', '/api/customers/%00', '/api/products/abc%00def/activate']) {
      const res = await call(path.endsWith('activate') ? 'POST' : 'GET', path, { token: org.adminToken });
      expectProblem(res, 400);
    }
    const filters = encodeURIComponent(JSON.stringify([{ field: 'companyName', operator: 'contains', value: 'a\u0000b' }]));
    const res = await call('GET', `/api/customers?filters=${filters}`, { token: org.adminToken });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors)).toEqual(['filters[0].value']);
    expectProblem(await call('GET', '/api/customers?companyName=%00', { token: org.adminToken }), 400);
  });

  test('when JSON strings and jsonb values carry NUL, or an integer exceeds 2,147,483,647, then 400 naming the field', async () => {
    const sku = uniq('SKU-');
    const nul = await call('PUT', '/api/products', { token: org.adminToken, body: { sku, name: 'a\u0000b', productAttributes: { color: 'red\u0000' } } });
    expectProblem(nul, 400);
    expect(Object.keys(nul.body.errors).sort()).toEqual(['name', 'productAttributes.color']);
    const big = await call('PUT', '/api/products', { token: org.adminToken, body: { sku, name: 'Big', quantityOnHand: 2_147_483_648 } });
    expectProblem(big, 400);
    expect(big.body.errors).toEqual({ quantityOnHand: ['quantityOnHand must be at most 2147483647.'] });
    const fine = await call('PUT', '/api/products', { token: org.adminToken, body: { sku, name: 'Big', quantityOnHand: 2_147_483_647 } });
    expect(fine.status).toBeLessThan(300);
  });

  test('when a login carries a 5,000-character ClientId or an over-long e-mail, then 400, and the rate-limit key stored is a hash', async () => {
    const ip = randomIp();
    const res = await call('POST', '/api/auth/login', { ip, body: { OrgCode: 'x', ClientId: 'c'.repeat(5000), ClientSecret: 's' } });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors)).toEqual(['ClientId']);
    const longMail = await call('POST', '/api/auth/token', { ip, body: { Email: `${'e'.repeat(300)}@example.com`, Password: 'p' } });
    expectProblem(longMail, 400);
    const clientId = `cli_${'z'.repeat(90)}`;
    expect((await call('POST', '/api/auth/login', { ip, body: { OrgCode: 'x', ClientId: clientId, ClientSecret: 's' } })).status).toBe(401);
    const hashed = createHash('sha256').update(clientId).digest('hex');
    const rows = await dbQuery<{ key: string }>('select key from rate_limit_bucket where key like $1', [`login:/api/auth/login:%`]);
    expect(rows.some((r) => r.key === `login:/api/auth/login:${hashed}`)).toBe(true);
    expect(rows.some((r) => r.key.includes(clientId))).toBe(false);
  });

  test('when a body nests 8,000 levels deep, then 400 without a stack overflow', async () => {
    const deep = '{"Organization":' + '{"a":'.repeat(8000) + '1' + '}'.repeat(8000) + '}';
    const res = await call('POST', '/api/organizations', { rawBody: deep });
    expectProblem(res, 400);
    expect(res.text.length).toBeLessThan(2000);
    const arrays = await call('PUT', '/api/products', { token: org.adminToken, rawBody: `{"sku":"x","images":${'['.repeat(8000)}${']'.repeat(8000)}}` });
    expectProblem(arrays, 400);
  });

  test('when a 96 KB string is sent where a number belongs, then the 400 names the field and rule without echoing the value', async () => {
    const value = 'n'.repeat(96 * 1024);
    const res = await call('PUT', '/api/products', { token: org.adminToken, body: { sku: uniq('S'), quantityOnHand: value, weight: value, name: 'ok' } });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['quantityOnHand', 'weight']);
    expect(res.text).not.toContain('nnnnnnnnnn');
    expect(res.text.length).toBeLessThan(2000);
  });

  test('when image uploads are broken multipart (missing boundary, truncated, empty file, two files), then 400', async () => {
    const b = 'edgeBoundary42';
    const part = (name: string, content: string, filename?: string) =>
      `--${b}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n${filename ? 'Content-Type: image/png\r\n' : ''}\r\n${content}\r\n`;
    const cases: [string, string, string][] = [
      ['missing boundary', 'multipart/form-data', `${part('image', 'x', 'a.png')}--${b}--\r\n`],
      ['truncated', `multipart/form-data; boundary=${b}`, part('image', 'x'.repeat(100), 'a.png').slice(0, 70)],
      ['empty file', `multipart/form-data; boundary=${b}`, `${part('image', '', 'a.png')}--${b}--\r\n`],
      ['two files', `multipart/form-data; boundary=${b}`, `${part('image', 'x', 'a.png')}${part('other', 'y', 'b.png')}--${b}--\r\n`],
    ];
    for (const [label, contentType, body] of cases) {
      const res = await call('POST', '/api/images/from-local', { token: org.adminToken, rawBody: body, headers: { 'content-type': contentType } });
      expect({ label, status: res.status }).toEqual({ label, status: 400 });
      expectProblem(res, 400);
    }
  });
});

describe('login brute force', () => {
  test('when one client IP tries 31 logins with different e-mails and spoofed X-Forwarded-For prefixes, then the 31st is 429', async () => {
    const ip = randomIp();
    for (let i = 0; i < 30; i++) {
      const spoofed = randomIp();
      const res = await call('POST', '/api/auth/token', { headers: { 'x-forwarded-for': `${spoofed}, ${ip}` }, body: { Email: `${uniq('guess')}@example.com`, Password: 'guess password' } });
      expect(res.status).toBe(401);
    }
    const blocked = await call('POST', '/api/auth/token', { headers: { 'x-forwarded-for': `${randomIp()}, ${ip}` }, body: { Email: `${uniq('guess')}@example.com`, Password: 'guess password' } });
    expectProblem(blocked, 429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another client is not affected.
    expect((await call('POST', '/api/auth/token', { body: { Email: `${uniq('other')}@example.com`, Password: 'guess password' } })).status).toBe(401);
  });
});

describe('set-password token reuse and stale sessions', () => {
  test('when a set-password link is used twice at the same time, then exactly one succeeds, and the other links of the user die with it', async () => {
    const org = await createOrg();
    const email = `${uniq('invitee')}@example.com`;
    expect((await call('POST', '/api/users', { token: org.adminToken, body: { FirstName: 'Ivy', LastName: 'Invitee', Email: email } })).status).toBe(201);
    const invite = setPasswordLink((await waitForMail(email, (m) => /invited/.test(m.subject))).text);
    expect((await call('POST', '/api/organizations/users/admins', { token: org.adminToken, body: { Email: email } })).status).toBe(200);
    const welcome = setPasswordLink((await waitForMail(email, (m) => m.subject === `Welcome to ${org.name}`)).text);
    expect(welcome).not.toBe(invite);

    const [a, b] = await Promise.all([
      call('POST', '/api/auth/set-password', { body: { Token: invite, Password: 'first password 1' } }),
      call('POST', '/api/auth/set-password', { body: { Token: invite, Password: 'second password 2' } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([204, 400]);
    expect((a.status === 204 ? a : b).headers.get('cache-control')).toBe('no-store');
    // The other outstanding link was spent with the first use.
    expectProblem(await call('POST', '/api/auth/set-password', { body: { Token: welcome, Password: 'third password 3' } }), 400);
    const [{ password_hash: hash }] = await dbQuery<{ password_hash: string }>('select password_hash from app_user where email = $1', [email]);
    // The stack's cost (the test stack lowers PASSWORD_HASH_COST; production's default is 2^17, test/unit/ops-config.test.ts).
    expect(hash.startsWith(`scrypt$${stack.env.production.PASSWORD_HASH_COST ?? 131072}$8$1$`)).toBe(true);
  });

  test('when a password is changed, then tokens issued before stop working', async () => {
    const org = await createOrg();
    const before = await call('GET', '/api/users/profile', { token: org.adminToken });
    expect(before.status).toBe(200);
    const raw = randomBytes(32).toString('base64url');
    await dbQuery("insert into password_token (id, user_id, token_hash, expires_at, created_at) values (gen_random_uuid(), $1, $2, now() + interval '1 hour', now())", [
      org.adminUserId,
      createHash('sha256').update(raw).digest('hex'),
    ]);
    expect((await call('POST', '/api/auth/set-password', { body: { Token: raw, Password: 'rotated password 9' } })).status).toBe(204);
    expectProblem(await call('GET', '/api/users/profile', { token: org.adminToken }), 401);
    const fresh = await call('POST', '/api/auth/token', { body: { Email: org.adminEmail, Password: 'rotated password 9' } });
    expect(fresh.status).toBe(200);
    expect((await call('GET', '/api/users/profile', { token: fresh.body.AccessToken })).status).toBe(200);
  });
});

describe('response headers, open redirects and idempotency keys', () => {
  test('when any response is sent, then it carries nosniff and no X-Powered-By, and token and credential responses are no-store', async () => {
    const org = await createOrg();
    for (const res of [await call('GET', '/health'), await call('GET', '/api/nowhere'), await call('GET', '/api/organization', { token: org.adminToken })]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
    const login = await call('POST', '/api/auth/token', { body: { Email: org.adminEmail, Password: org.adminPassword } });
    expect(login.headers.get('cache-control')).toBe('no-store');
    const creds = await call('POST', '/api/organizations/api-access', { token: login.body.AccessToken });
    expect(creds.status).toBe(201);
    expect(creds.headers.get('cache-control')).toBe('no-store');
  });

  test('when a hosted payment asks to return to a foreign origin, then 400, until an admin adds that origin to the organization', async () => {
    const org = await createOrg();
    const customerNumber = await pathParamFixtures.customerNumber(org);
    const body = { customerNumber, transactionAmount: 0, applicationReturnUrl: 'https://evil.example.net/phish' };
    const refused = await call('POST', '/api/payments/hosted/transaction-setup', { token: org.adminToken, body });
    expectProblem(refused, 400);
    expect(Object.keys(refused.body.errors)).toEqual(['applicationReturnUrl']);
    const lookalike = await call('POST', '/api/payments/hosted/transaction-setup', { token: org.adminToken, body: { ...body, applicationReturnUrl: 'https://shop.example.com.evil.example.net/' } });
    expectProblem(lookalike, 400);

    const put = await call('PUT', '/api/organizations/return-origins', { token: org.adminToken, body: { Origins: ['https://Evil.example.net/'] } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ Origins: ['https://evil.example.net'] });
    expect((await call('POST', '/api/payments/hosted/transaction-setup', { token: org.adminToken, body })).status).toBe(201);
    // The API's own origin is always allowed.
    expect((await call('POST', '/api/payments/hosted/transaction-setup', { token: org.adminToken, body: { ...body, applicationReturnUrl: `${API}/done` } })).status).toBe(201);
  });

  test("when a second caller reuses another caller's Idempotency-Key, then it is not given the first caller's stored response", async () => {
    const org = await createOrg();
    const second = await adminToken(org);
    const key = uniq('idem-');
    const body = { FirstName: 'Kay', LastName: 'Key', Email: `${uniq('kay')}@example.com` };
    const first = await call('POST', '/api/users', { token: org.adminToken, body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    const replay = await call('POST', '/api/users', { token: org.adminToken, body, headers: { 'idempotency-key': key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const other = await call('POST', '/api/users', { token: second.token, body, headers: { 'idempotency-key': key } });
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(other.status).toBe(200);
  });
});

describe('resource exhaustion', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
  });

  /** A grayscale PNG of w x h pixels whose rows are all zero: a few hundred KB that decode to w*h bytes. */
  function pixelBomb(w: number, h: number): Buffer {
    const crcTable = Array.from({ length: 256 }, (_, n) => {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      return c >>> 0;
    });
    const crc = (buf: Buffer) => {
      let c = 0xffffffff;
      for (const byte of buf) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
      return (c ^ 0xffffffff) >>> 0;
    };
    const chunk = (type: string, data: Buffer) => {
      const len = Buffer.alloc(4);
      len.writeUInt32BE(data.length);
      const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
      const c = Buffer.alloc(4);
      c.writeUInt32BE(crc(td));
      return Buffer.concat([len, td, c]);
    };
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(w, 0);
    ihdr.writeUInt32BE(h, 4);
    ihdr[8] = 8; // bit depth
    ihdr[9] = 0; // grayscale
    const raw = Buffer.alloc((w + 1) * h); // filter byte 0 + zero pixels per row
    return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
  }

  test('when an image declares 12,000 x 12,000 pixels (a decompression bomb), then 400 before decoding', async () => {
    const bomb = pixelBomb(12_000, 12_000);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const form = new FormData();
    form.append('image', new Blob([bomb], { type: 'image/png' }), 'bomb.png');
    const res = await fetch(`${API}/api/images/from-local`, { method: 'POST', headers: { authorization: `Bearer ${org.adminToken}` }, body: form });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: Record<string, string[]> };
    expect(body.errors.image[0]).toMatch(/more than 50,000,000 pixels/);
  });

  test('when an anonymous caller posts a malformed multipart body, then 401 (the body is parsed only after authentication)', async () => {
    const res = await call('POST', '/api/images/from-local', { rawBody: 'x'.repeat(10_000), headers: { 'content-type': 'multipart/form-data' } });
    expectProblem(res, 401);
  });

  test('when a remote image server drips one byte a second, then the download is cut at the total deadline, not kept alive by each byte', async () => {
    let opened = 0;
    let closed = 0;
    const server = http.createServer((_req, res) => {
      opened = Date.now();
      res.socket?.on('close', () => (closed = Date.now()));
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': '100000' });
      const t = setInterval(() => res.write(Buffer.from([0])), 1000);
      res.on('close', () => clearInterval(t));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const res = await call('POST', '/api/images/from-remote', { token: org.adminToken, body: { images: [{ imageUrl: `http://127.0.0.1:${port}/slow.png` }] } });
      expect(res.status).toBe(204);
      const deadline = Date.now() + 25_000;
      while (!closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      expect(opened).toBeGreaterThan(0);
      expect(closed).toBeGreaterThan(0);
      // IMAGE_FETCH_TIMEOUT_MS is 8 s in the test stack.
      expect(closed - opened).toBeLessThan(11_000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }, 40_000);

  test('when one organization starts a fourth concurrent remote ingestion, then 429 with Retry-After, while another organization still starts one', async () => {
    const hanging = http.createServer(() => undefined);
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    const port = (hanging.address() as AddressInfo).port;
    const busy = await createOrg();
    try {
      const images = [{ imageUrl: `http://127.0.0.1:${port}/hang.png` }];
      for (let i = 0; i < 3; i++) expect((await call('POST', '/api/images/from-remote', { token: busy.adminToken, body: { images } })).status).toBe(204);
      const fourth = await call('POST', '/api/images/from-remote', { token: busy.adminToken, body: { images } });
      expectProblem(fourth, 429);
      expect(fourth.headers.get('retry-after')).toBe('30');
      expect((await call('POST', '/api/images/from-remote', { token: org.adminToken, body: { images } })).status).toBe(204);
    } finally {
      hanging.closeAllConnections();
      hanging.close();
    }
  });
});
