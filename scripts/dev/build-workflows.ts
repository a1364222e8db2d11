/** Part of `npm run build`: writes one pre-built workflow bundle per task queue with workflows to dist/workflow-bundles/. */
import '../../src/compat/node20.js';
import { TASK_QUEUES } from '../../src/activities/index.js';
import { queueHasWorkflows, writeBundle } from '../../src/worker/bundles.js';

const started = Date.now();
for (const queue of TASK_QUEUES) if (await queueHasWorkflows(queue)) console.log(`workflow bundle ${queue}: ${await writeBundle(queue)}`);
console.log(`workflow bundles built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
