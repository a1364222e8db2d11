/**
 * Workflow bundles, one per task queue. `npm run build` writes them (scripts/dev/build-workflows.ts)
 * to dist/workflow-bundles/<queue>.js; production workers load that file and never run webpack.
 * Only outside production, a missing bundle is built when the worker starts.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { log } from '../logger.js';

/** dist/ (this file is dist/src/worker/bundles.js once compiled). */
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const bundlePath = (queue: string) => path.join(DIST, 'workflow-bundles', `${queue}.js`);
export const workflowsPath = (queue: string) => path.join(DIST, 'src', 'workflows', `${queue}.js`);
/** Workflow interceptors in every bundle: OpenTelemetry spans for a workflow started inside a trace (src/tracing.ts). */
export const workflowInterceptorsPath = path.join(DIST, 'src', 'workflows', 'tracing-interceptors.js');

const quiet = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (m: string) => log.warn(m),
  error: (m: string) => log.error(m),
};

/** Whether a queue's src/workflows/<queue>.ts exports any workflow (the mail queue's exports none: it has activities only). */
export async function queueHasWorkflows(queue: string): Promise<boolean> {
  const mod = (await import(pathToFileURL(workflowsPath(queue)).href)) as Record<string, unknown>;
  return Object.values(mod).some((v) => typeof v === 'function');
}

export async function buildBundle(queue: string): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: workflowsPath(queue), workflowInterceptorModules: [workflowInterceptorsPath], logger: quiet });
}

/** Writes dist/workflow-bundles/<queue>.js (and its source map). */
export async function writeBundle(queue: string): Promise<string> {
  const { code } = await buildBundle(queue);
  const file = bundlePath(queue);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, code);
  return file;
}

/** The worker's `workflowBundle` for a queue: the pre-built file, else (dev/test only) a bundle built now. */
export async function loadBundle(queue: string, production: boolean): Promise<{ codePath: string } | WorkflowBundleWithSourceMap> {
  const file = bundlePath(queue);
  if (existsSync(file)) return { codePath: file };
  if (production) throw new Error(`Missing pre-built workflow bundle ${file}: run npm run build.`);
  log.warn('no pre-built workflow bundle; bundling at start (dev/test only)', { queue });
  return buildBundle(queue);
}
