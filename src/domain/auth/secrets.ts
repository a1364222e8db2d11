/** Password/secret hashing (scrypt) and random credentials. Pure, no I/O beyond crypto. */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;
const PARAMS = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** scrypt with a random salt, encoded as `scrypt$N$r$p$salt$hash`. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(secret, salt, 32, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifySecret(secret: string, encoded: string | null | undefined): Promise<boolean> {
  if (!encoded) return false;
  const [alg, n, r, p, salt, hash] = encoded.split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(secret, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: PARAMS.maxmem });
  return timingSafeEqual(expected, actual);
}

/** SHA-256 hex; for high-entropy random tokens (API keys, one-time links) only. */
export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** Organization code: short, readable, unique (checked by the database). */
export const newOrgCode = (): string => `org_${randomBytes(8).toString('hex')}`;

export const API_KEY_PREFIX = 'b2bk_';

export function newApiCredentials(): { clientId: string; clientSecret: string; apiKey: string } {
  return { clientId: `cli_${randomBytes(12).toString('hex')}`, clientSecret: randomToken(32), apiKey: `${API_KEY_PREFIX}${randomToken(32)}` };
}

export function slugify(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return s || 'org';
}
