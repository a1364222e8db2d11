/**
 * Issue 19 item 2, "a generated client works": types generated with openapi-typescript from the
 * live /openapi.json, a program written with openapi-fetch against them (test/generated-client/
 * program.ts: log in, page through products with filters, create a customer, check out a cart,
 * read the invoice) type-checks with tsc and no casts, and then runs against the stack.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API, createOrg, randomIp } from './support/helpers';

jest.setTimeout(180_000);

const DIR = join(__dirname, 'generated-client');
const ROOT = join(__dirname, '..');
// Asynchronous, so the event loop keeps running: a synchronous tsc run of many seconds kept the HTTP client from
// retiring its idle keep-alive sockets, and the next request reused one the API had closed ("other side closed").
const node = (script: string, args: string[]) => promisify(execFile)(process.execPath, [join(ROOT, 'node_modules', script), ...args], { cwd: ROOT, encoding: 'utf8' });

beforeAll(async () => {
  writeFileSync(join(DIR, 'openapi.json'), await (await fetch(`${API}/openapi.json`)).text());
  await node('openapi-typescript/bin/cli.js', [join(DIR, 'openapi.json'), '-o', join(DIR, 'schema.d.ts')]);
});

describe('a client generated from /openapi.json', () => {
  test('when the integrator program is type-checked against the generated types, then tsc reports no error', async () => {
    let out = '';
    try {
      await node('typescript/bin/tsc', ['-p', join(DIR, 'tsconfig.json')]);
    } catch (e) {
      out = String((e as { stdout?: string }).stdout ?? e);
    }
    expect(out).toBe('');
  });

  test('when the program runs against the stack, then it checks out a cart and reads the invoice of the order', async () => {
    const org = await createOrg();
    const { run } = await import('./generated-client/program');
    const outcome = await run(API, { Email: org.adminEmail, Password: org.adminPassword }, randomIp());
    expect(outcome.productsSeen).toBe(3);
    expect(outcome.customer.companyName).toBe('Generated Client Co');
    expect(outcome.invoice).toMatchObject({ orderNumber: outcome.orderNumber, status: 'Paid', customer: { customerNumber: outcome.customer.customerNumber } });
    expect(outcome.invoice.total).toBeGreaterThan(0);
  });
});
