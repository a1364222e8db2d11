/**
 * The runbook's list of workflow ids (docs/operations.md) names every id prefix the code starts
 * workflows under, so an on-call engineer who greps it for `dunning-` finds it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const sources = (readdirSync(path.join(ROOT, 'src'), { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(path.join(ROOT, 'src', f), 'utf8'));

test('when the code builds a workflow id from a business key, then the runbook names its prefix', () => {
  const prefixes = new Set<string>();
  for (const text of sources)
    for (const m of text.matchAll(/(?:workflowId:\s*|WorkflowId\s*=\s*\([^)]*\)\s*=>\s*|workflowIdOf\s*=\s*\([^)]*\)\s*=>\s*)`([a-z][a-z-]*-)\$\{/g)) prefixes.add(m[1]);
  expect(prefixes.size).toBeGreaterThan(8);
  const runbook = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  expect([...prefixes].filter((p) => !runbook.includes(`\`${p}<`))).toEqual([]);
});
