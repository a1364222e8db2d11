/**
 * Node 20 compatibility for MikroORM 7, which statically imports `globSync` from node:fs
 * (added in Node 22) in one module. When the running Node lacks it, a resolve hook serves
 * that module a node:fs that also exports a small globSync. Import this module first in
 * every entry point; it does nothing on Node 22+.
 */
import fs from 'node:fs';
import { register } from 'node:module';

if (!('globSync' in fs)) {
  register(new URL('./node20-hooks.js', import.meta.url));
}
