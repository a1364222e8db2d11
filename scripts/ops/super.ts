/** Grants (or with --revoke, removes) the platform operator flag Super: `npm run super -- <email> [--revoke]`. */
import '../../src/compat/node20.js';
import { openOrm } from '../../src/db/orm.js';
import { User } from '../../src/entities/index.js';

async function main(): Promise<void> {
  const email = process.argv[2]?.toLowerCase();
  if (!email || !process.env.DATABASE_URL) throw new Error('usage: DATABASE_URL=... npm run super -- <email> [--revoke]');
  const orm = await openOrm(process.env.DATABASE_URL, 1);
  try {
    const em = orm.em.fork();
    const user = await em.findOne(User, { email });
    if (!user) throw new Error(`no user with e-mail ${email}`);
    user.isSuper = !process.argv.includes('--revoke');
    await em.flush();
    console.log(`${email}: Super ${user.isSuper ? 'granted' : 'revoked'} (takes effect at the next login)`);
  } finally {
    await orm.close();
  }
}

main().catch((e) => {
  console.error(String(e instanceof Error ? e.message : e));
  process.exit(1);
});
