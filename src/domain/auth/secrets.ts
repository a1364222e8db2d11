/** Password/secret hashing (scrypt) and random credentials. Pure, no I/O beyond crypto. */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;
/** OWASP Password Storage Cheat Sheet: scrypt N=2^17, r=8, p=1 (128 MiB per hash). */
export const DEFAULT_SCRYPT_N = 2 ** 17;
const SCRYPT_PARAMS = { N: DEFAULT_SCRYPT_N, r: 8, p: 1 };

/**
 * The cost (scrypt N) of new hashes, from PASSWORD_HASH_COST (src/config.ts; set once per process
 * by the composition root). Only the test stack lowers it, to spare the CPU thousands of sign-ups and
 * logins would spend; hashes of another cost still verify.
 */
export function setPasswordHashCost(N: number): void {
  SCRYPT_PARAMS.N = N;
}
/** Largest cost a stored hash may ask for (a corrupted row must not exhaust memory). */
const MAX_N = 2 ** 20;
const maxmem = (N: number, r: number, p: number) => 128 * N * r * p + 64 * 1024 * 1024;

/** scrypt with a random salt, encoded as `scrypt$N$r$p$salt$hash`, so older hashes stay verifiable after a cost change. */
export async function hashSecret(secret: string): Promise<string> {
  const { N, r, p } = SCRYPT_PARAMS;
  const salt = randomBytes(16);
  const hash = await scrypt(secret, salt, 32, { N, r, p, maxmem: maxmem(N, r, p) });
  return ['scrypt', N, r, p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifySecret(secret: string, encoded: string | null | undefined): Promise<boolean> {
  if (!encoded) return false;
  const [alg, n, r, p, salt, hash] = encoded.split('$');
  const [N, R, P] = [Number(n), Number(r), Number(p)];
  if (alg !== 'scrypt' || !salt || !hash || !Number.isInteger(N) || N < 2 || N > MAX_N || !(R >= 1 && R <= 32) || !(P >= 1 && P <= 16)) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(secret, Buffer.from(salt, 'base64'), expected.length, { N, r: R, p: P, maxmem: maxmem(N, R, P) });
  return timingSafeEqual(expected, actual);
}

/** Whether a stored hash uses a lower cost than the configured one (re-hash it at the next successful login). */
export function needsRehash(encoded: string | null | undefined): boolean {
  if (!encoded) return false;
  const [, n, r, p] = encoded.split('$');
  return Number(n) < SCRYPT_PARAMS.N || Number(r) !== SCRYPT_PARAMS.r || Number(p) !== SCRYPT_PARAMS.p;
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
