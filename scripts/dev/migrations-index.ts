/** Regenerates src/migrations/index.ts from the migration files (after a merge): `node dist/scripts/dev/migrations-index.js`. */
import { rewriteIndex } from '../lib/migrations-index.js';

rewriteIndex('src/migrations');
console.log('src/migrations/index.ts rewritten');
