/** Issue 38 finding 10: the ops port binds to loopback by default; another bind address needs OPS_TOKEN. */
import { isLoopbackBind, loadConfig } from '../../src/config';
import { hashSecret, needsRehash, setPasswordHashCost, verifySecret } from '../../src/domain/auth/secrets';

const base = {
  DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
  TEMPORAL_ADDRESS: '127.0.0.1:7233',
  S3_ENDPOINT: 'http://127.0.0.1:9000',
  S3_ACCESS_KEY: 'k',
  S3_SECRET_KEY: 's',
  S3_BUCKET: 'b',
  SMTP_URL: 'smtp://127.0.0.1:1025',
  JWT_SECRET: 'x'.repeat(40),
  ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
  OPS_PORT: '9464',
};

describe('ops port bind', () => {
  test('when OPS_BIND is not set, then the ops port listens on 127.0.0.1 and needs no token', () => {
    const c = loadConfig({ ...base });
    expect(c.opsBind).toBe('127.0.0.1');
    expect(c.opsToken).toBe('');
  });

  test.each(['0.0.0.0', '::', '192.0.2.2', '10.0.0.5'])('when OPS_BIND=%s and no OPS_TOKEN, then the process refuses to start naming OPS_TOKEN', (bind) => {
    expect(() => loadConfig({ ...base, OPS_BIND: bind })).toThrow(/OPS_TOKEN \(required when the ops port listens beyond loopback/);
  });

  test('when OPS_BIND is beyond loopback with a token of 16+ characters, then it starts; a short token is refused', () => {
    expect(loadConfig({ ...base, OPS_BIND: '0.0.0.0', OPS_TOKEN: 't'.repeat(24) }).opsBind).toBe('0.0.0.0');
    expect(() => loadConfig({ ...base, OPS_BIND: '0.0.0.0', OPS_TOKEN: 'short' })).toThrow(/OPS_TOKEN \(at least 16 characters\)/);
  });

  test('when no ops port is served, then no token is needed whatever OPS_BIND says', () => {
    const { OPS_PORT: _, ...noOps } = base;
    expect(loadConfig({ ...noOps, OPS_BIND: '0.0.0.0' }).opsPort).toBeNull();
  });

  test.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['[::1]', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.0.2.2', false],
  ])('when the bind address is %s, then loopback is %s', (a, want) => {
    expect(isLoopbackBind(a)).toBe(want);
  });
});

describe('password hash cost', () => {
  test('when PASSWORD_HASH_COST is not set, then new hashes cost scrypt N=2^17 (OWASP), and a lower-cost hash is re-hashed at the next login', async () => {
    const c = loadConfig({ ...base });
    expect(c.passwordHashCost).toBe(2 ** 17);
    setPasswordHashCost(c.passwordHashCost);
    const hash = await hashSecret('correct horse');
    expect(hash.startsWith('scrypt$131072$8$1$')).toBe(true);
    expect(needsRehash(hash)).toBe(false);
    setPasswordHashCost(2 ** 10);
    const cheap = await hashSecret('correct horse');
    expect(cheap.startsWith('scrypt$1024$8$1$')).toBe(true);
    // Hashes of either cost verify; the cheaper one is re-hashed once the default is back.
    expect(await verifySecret('correct horse', hash)).toBe(true);
    expect(await verifySecret('correct horse', cheap)).toBe(true);
    setPasswordHashCost(2 ** 17);
    expect(needsRehash(cheap)).toBe(true);
  });

  test.each(['1000', '512', '2097152', 'lots'])('when PASSWORD_HASH_COST=%s, then the process refuses to start naming it', (v) => {
    expect(() => loadConfig({ ...base, PASSWORD_HASH_COST: v })).toThrow(/PASSWORD_HASH_COST/);
  });
});
