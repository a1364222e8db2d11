#!/usr/bin/env node
/**
 * The npm registry mirror here lacks some packages' optional per-platform binaries
 * (e.g. @swc/core-darwin-arm64). `npm install` then leaves them out of package-lock.json,
 * and `npm ci` refuses the lockfile as out of sync. This adds the entries a complete
 * registry would have written: optional, with the os/cpu their names state, so npm skips
 * them on other platforms without fetching. Run after `npm install`: `npm run lock:fix`.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pkgs = lock.packages;

function platformOf(name) {
  const n = name.split('/').pop();
  const os = /darwin/.test(n) ? 'darwin' : /win32|windows/.test(n) ? 'win32' : /linux/.test(n) ? 'linux' : /freebsd/.test(n) ? 'freebsd' : /android/.test(n) ? 'android' : null;
  const cpu = /arm64|aarch64/.test(n) ? 'arm64' : /\barm\b|-arm-|-arm$|gnueabihf/.test(n) ? 'arm' : /ia32|-x86\b/.test(n) ? 'ia32' : /ppc64/.test(n) ? 'ppc64' : /s390x/.test(n) ? 's390x' : /riscv64/.test(n) ? 'riscv64' : /x64|amd64/.test(n) ? 'x64' : null;
  const libc = /musl/.test(n) ? 'musl' : /-gnu/.test(n) ? 'glibc' : null;
  return { os, cpu, libc };
}

let added = 0;
for (const [path, meta] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    const nested = `${path}/node_modules/${dep}`;
    const exact = String(version).replace(/^[\^~=]/, '');
    if (pkgs[key]?.optional && !pkgs[key].resolved && !pkgs[key].integrity && pkgs[key].version !== exact) pkgs[key].version = exact;
    if (pkgs[key] || pkgs[nested]) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (!os && !cpu) continue;
    pkgs[key] = { version: exact, optional: true, ...(cpu ? { cpu: [cpu] } : {}), ...(os ? { os: [os] } : {}), ...(libc ? { libc: [libc] } : {}) };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`lock:fix added ${added} optional platform entries`);
