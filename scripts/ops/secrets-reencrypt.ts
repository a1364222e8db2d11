import '../../src/compat/node20.js';
/**
 * `npm run secrets:reencrypt`: re-encrypts every stored secret with the first key of
 * ENCRYPTION_KEYS (DATABASE_URL and ENCRYPTION_KEYS from the environment). Optional
 * `--organization <id>` limits it to one organization. Prints counts, never secrets.
 */
import { parseEncryptionKeys } from '../../src/domain/secrets/crypto.js';
import { openOrm } from '../../src/db/orm.js';
import { reencryptSecrets } from '../../src/services/secrets-reencrypt.js';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  const spec = process.env.ENCRYPTION_KEYS;
  if (!url || !spec) throw new Error('DATABASE_URL and ENCRYPTION_KEYS are required.');
  const keys = parseEncryptionKeys(spec);
  const i = process.argv.indexOf('--organization');
  const organizationId = i > 0 ? process.argv[i + 1] : undefined;
  const orm = await openOrm(url, 2);
  try {
    const report = await reencryptSecrets(orm.em.fork(), keys, { organizationId });
    console.log(JSON.stringify({ currentKey: keys[0].id, ...report }));
  } finally {
    await orm.close(true);
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
