/**
 * Every workflow is described the same way (issue 43 item 2): one helper (workflowTags) gives a
 * start its search attributes, memo and Temporal's static summary and details. The workflow types
 * are read from the registry (src/workflows/index.ts and the queue files it re-exports), so a
 * type added there is checked here: each has a start site in src, and every start site of it
 * (client start, schedule, signal-with-start, child) is described through the helper.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SA, SYSTEM_SCOPE, summaryOf, workflowTags } from '../../src/workflows/tags-defs';

const ROOT = path.join(__dirname, '..', '..');
const WORKFLOWS = path.join(ROOT, 'src', 'workflows');

/** The workflow types the workers register: the names each queue file re-exports (index.ts lists the queue files). */
function registeredTypes(): string[] {
  const index = readFileSync(path.join(WORKFLOWS, 'index.ts'), 'utf8');
  const queueFiles = [...index.matchAll(/export \* from '\.\/([\w-]+)\.js'/g)].map((m) => m[1]);
  expect(queueFiles.length).toBeGreaterThanOrEqual(3);
  const types: string[] = [];
  for (const q of queueFiles) {
    const text = readFileSync(path.join(WORKFLOWS, `${q}.ts`), 'utf8');
    for (const m of text.matchAll(/export \{([^}]*)\} from/g)) types.push(...m[1].split(',').map((s) => s.trim().split(/\s+as\s+/).pop()!).filter(Boolean));
  }
  return types;
}

const sources = (readdirSync(path.join(ROOT, 'src'), { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ file: f, text: readFileSync(path.join(ROOT, 'src', f), 'utf8') }));

/** The options object literal that starts at the first `{` after `from` (braces balanced; template literals' `${}` balance too). */
function objectAfter(text: string, from: number): string {
  const open = text.indexOf('{', from);
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open);
}

/** Every place src starts a workflow of `type`: `workflowType: '<type>'` (client starts, schedules) or startChild/startChildOnce('<type>', …). */
function startSites(type: string): { file: string; options: string }[] {
  const re = new RegExp(`(?:workflowType:\\s*'${type}'|startChild(?:Once)?(?:<[^>]*>)?\\('${type}')`, 'g');
  const out: { file: string; options: string }[] = [];
  for (const { file, text } of sources) {
    for (const m of text.matchAll(re)) {
      // A client start names the type inside its options; a child start right before them.
      const at = m[0].startsWith('workflowType') ? text.lastIndexOf('{', m.index) : m.index + m[0].length;
      out.push({ file, options: objectAfter(text, at) });
    }
  }
  return out;
}

test('the registry lists the workflow types the workers run', () => {
  const types = registeredTypes();
  expect(types).toEqual(expect.arrayContaining(['sendEmail', 'checkoutCart', 'collectInvoice', 'paymentJanitor', 'dispatchWebhookEvents', 'importJob', 'ingestRemoteImages']));
});

describe.each(registeredTypes())('workflow type %s', (type) => {
  test('is started somewhere in src, and every start describes it through workflowTags (about, childTags or workflowTags)', () => {
    const sites = startSites(type);
    expect(sites.length).toBeGreaterThan(0);
    const undescribed = sites.filter((s) => !/\babout:|\bchildTags\(|\bworkflowTags\(/.test(s.options)).map((s) => `${s.file}: ${s.options.slice(0, 200)}`);
    expect(undescribed).toEqual([]);
    // A client start names its keys (the tenant, or scope: 'system').
    const keyless = sites.filter((s) => /\babout:/.test(s.options) && !/\bkeys\b/.test(s.options)).map((s) => s.file);
    expect(keyless).toEqual([]);
  });
});

describe('workflowTags', () => {
  test('a customer workflow: summary `<what> for customer … of organization …: <amount>`, details per key, search attributes, memo', () => {
    const t = workflowTags({ organizationId: 'org-1', customerNumber: 'C-7', invoiceNumber: 'INV-3' }, { what: 'Dunning of invoice INV-3', amount: '25.00 USD open' });
    expect(t.staticSummary).toBe('Dunning of invoice INV-3 for customer C-7 of organization org-1: 25.00 USD open');
    expect(t.memo).toEqual({ Summary: t.staticSummary });
    expect(t.staticDetails.split('\n')).toEqual([
      '**What:** Dunning of invoice INV-3',
      '**For:** customer C-7 of organization org-1',
      '**Amount:** 25.00 USD open',
      '**Scope:** organization',
      '**Organization:** org-1',
      '**Customer:** C-7',
      '**Invoice:** INV-3',
    ]);
    expect(t.typedSearchAttributes.map((p) => [p.key.name, p.value])).toEqual([
      [SA.OrganizationId.name, 'org-1'],
      [SA.CustomerNumber.name, 'C-7'],
      [SA.InvoiceNumber.name, 'INV-3'],
    ]);
  });

  test('a system workflow carries scope:system in the BusinessKeys KeywordList (no new Keyword slot) and says so', () => {
    const t = workflowTags({ scope: 'system' }, { what: 'Webhook outbox dispatcher' });
    expect(t.staticSummary).toBe('Webhook outbox dispatcher for the system (every organization)');
    expect(t.typedSearchAttributes.map((p) => [p.key.name, p.value])).toEqual([[SA.BusinessKeys.name, [SYSTEM_SCOPE]]]);
    expect(t.staticDetails).toContain('**Scope:** system');
  });

  test('a start kept in the outbox is described by the summary built when it was asked for', () => {
    const keys = { organizationId: 'org-1', salesRepNumber: 'R-2' };
    const summary = summaryOf(keys, { what: 'Commission statement 2026-01-01 to 2026-01-31 (USD)' });
    expect(summary).toBe('Commission statement 2026-01-01 to 2026-01-31 (USD) for sales rep R-2 of organization org-1');
    expect(workflowTags(keys, summary).staticSummary).toBe(summary);
  });
});
