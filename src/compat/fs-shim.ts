/**
 * node:fs plus a minimal globSync for Node 20 (see node20.ts). The service lists its
 * entities and migrations explicitly, so MikroORM only asks for literal paths; patterns
 * with wildcards are matched by a small recursive walk.
 */
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

function toRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      re += '.*';
      i++;
      if (pattern[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function walk(dir: string, out: string[]): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    out.push(full);
    if (entry.isDirectory()) walk(full, out);
  }
}

export function globSync(patterns: string | string[], options: { cwd?: string; withFileTypes?: boolean } = {}): unknown[] {
  const cwd = options.cwd ?? process.cwd();
  const results: string[] = [];
  for (const pattern of Array.isArray(patterns) ? patterns : [patterns]) {
    const abs = path.resolve(cwd, pattern);
    if (!/[*?]/.test(pattern)) {
      if (fs.existsSync(abs)) results.push(abs);
      continue;
    }
    const base = abs.slice(0, abs.search(/[*?]/)).replace(/[^/]*$/, '');
    if (!fs.existsSync(base)) continue;
    const all: string[] = [];
    walk(base, all);
    const re = toRegExp(abs);
    results.push(...all.filter((f) => re.test(f)));
  }
  if (!options.withFileTypes) return results.map((f) => path.relative(cwd, f));
  return results.map((f) => {
    const st = fs.statSync(f);
    return Object.assign(st, { name: path.basename(f), parentPath: path.dirname(f), path: path.dirname(f) });
  });
}
