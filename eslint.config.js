import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Nothing imports src/api except src/app.ts (and the route modules themselves). */
const NO_API = { regex: '^(?!@opentelemetry/)(.*/)?api(/|$)', message: 'Only src/app.ts wires src/api; put shared logic in src/services.' };
/** src/domain holds pure rules: no ORM, no Koa, no Temporal. */
const PURE_DOMAIN = {
  group: ['@mikro-orm/*', 'koa', 'koa-*', '@koa/*', '@temporalio/*'],
  message: 'src/domain is pure: no ORM, no Koa, no Temporal (use src/services).',
};
/** The configuration is read by every layer, so it reaches none of them (issue 39 item 7): settings parsers live in src/domain. */
const CONFIG_DOWN = {
  regex: '(^|/)(http|services|adapters|db|activities|workflows)(/|$)',
  message: 'src/config.ts imports no layer (src/http, services, adapters, db, activities, workflows): put a settings parser in src/domain.',
};
/** src/domain sits below the HTTP layer and the entities: not even their types (issue 17 item 3). */
const DOMAIN_DOWN = {
  regex: '(^|/)(http|entities)(/|$)',
  message: 'src/domain imports neither src/http nor src/entities (define the type in src/domain; they import it from there).',
};
/** Adapters receive their settings from the caller; they never reach up (issue 17 item 3). */
const ADAPTERS_DOWN = {
  regex: '(^|/)(services|api|http)(/|$)',
  message: 'src/adapters (adapters) import neither src/services, src/api nor src/http: take settings as arguments.',
};

/**
 * Production code (src, server.ts, worker.ts) never imports scripts/ or test/ (issue 39 item 4):
 * bench workflows and activities live in scripts/bench/, the test stack's fault injection in
 * test/support/ (worker.ts loads it by path only with ENABLE_TEST_HOOKS=true).
 */
const PRODUCTION_CODE = {
  regex: '^(\\.\\./)+(scripts|test)(/|$)|^\\./(scripts|test)(/|$)',
  message: 'src, server.ts and worker.ts never import scripts/ or test/: bench code belongs in scripts/bench, test-only code in test/support.',
};
/** Files whose name says bench or test-only code may not live in src (issue 39 item 4). */
const NOT_IN_SRC = ['src/**/bench*.ts', 'src/**/*-bench.ts', 'src/**/*.test.ts', 'src/**/fault-injection*.ts', 'src/**/*-fixtures.ts'];
/** Test hooks that only test code may read (the worker loads them through TEST_ACTIVITY_INTERCEPTORS). */
const NO_TEST_ENV = {
  selector: "MemberExpression[object.type='MemberExpression'][object.object.name='process'][object.property.name='env'][property.name='FAULT_INJECTION']",
  message: 'FAULT_INJECTION is read by test/support/fault-injection.ts only: no fault injection in production code.',
};

/**
 * One data-access layer (issue 39 item 1): src/db alone opens database connections (the ORM in
 * src/db/orm.ts, the pg pools and the LISTEN client in src/db/pools.ts) and runs SQL text with
 * `$n` placeholders (src/db/sql.ts, src/db/orm-sql.ts). Elsewhere in src, pg and kysely are imported as types only.
 */
const DB_DRIVERS = [
  { name: 'pg', allowTypeImports: true, message: 'Only src/db opens pg pools and clients (src/db/pools.ts); run SQL through src/db/sql.ts.' },
  { name: 'kysely', allowTypeImports: true, message: 'Run SQL text through src/db: boundRows/boundSql (orm-sql.ts), rowsOf/readRows/inTransaction (sql.ts).' },
];
const NO_ORM_INIT = {
  selector: "CallExpression[callee.object.name='MikroORM'][callee.property.name='init'], NewExpression[callee.name='MikroORM']",
  message: 'Only src/db/orm.ts creates a MikroORM instance: call openOrm.',
};
/**
 * One placeholder style (issue 39 item 1): SQL text runs through src/db with PostgreSQL's `$n`
 * placeholders bound at the wire (boundRows/boundSql on the ORM's connection or transaction,
 * rowsOf/readRows, inTransaction). Outside src/db (and src/migrations, which run MikroORM's own
 * addSql/execute) no `.execute(...)` takes SQL text, no connection's execute is called, and
 * em/tx/conn.execute is not used at all: MikroORM's execute takes `?` placeholders and inlines
 * every value into the text (src/db/sql.ts).
 */
const EXECUTE_MESSAGE = 'Run SQL text through src/db with $n placeholders: boundRows(em, text, params) / boundSql(em) (src/db/orm-sql.ts), rowsOf/readRows or inTransaction (src/db/sql.ts), never em.execute / conn.execute with ? placeholders.';
const NO_RAW_EXECUTE = [
  {
    selector:
      "CallExpression[callee.property.name='execute']:matches([arguments.0.type=/^(Literal|TemplateLiteral|TaggedTemplateExpression)$/], [callee.object.callee.property.name='getConnection'], [callee.object.name=/^(em|tem|tx|trx|conn|connection)$/])",
    message: EXECUTE_MESSAGE,
  },
];

/** src/db sits under services and http: it imports neither them nor anything above them. */
const DB_DOWN = {
  regex: '(^|/)(services|http|adapters|activities|workflows)(/|$)',
  message: 'src/db is the bottom layer: it imports neither src/services, src/http, src/adapters, src/activities nor src/workflows.',
};
/** src/http is Koa plumbing under src/services: what it needs from below comes from src/db or src/domain, the rest is injected (Deps). */
const HTTP_DOWN = {
  regex: '(^|/)services(/|$)',
  message: 'src/http does not import src/services: read through src/db, take rules from src/domain, or receive the service as a dependency (src/deps.ts).',
};
/**
 * Service modules that others build on never import the import jobs (issue 39 item 1): imports
 * uses catalog's upsert and the invoice rules, one way; their in-process bulk endpoints live in
 * src/services/imports/sync.ts.
 */
const NOT_IMPORTS = {
  regex: '^\\.\\./imports(/|$)|(^|/)services/imports(/|$)',
  message: 'services/catalog and services/invoices do not import services/imports (imports builds on them): move the shared piece to src/db or src/domain, the bulk use case to services/imports.',
};

/**
 * Outside src/workflows, code sees a workflow only through its contract: the side-effect-free
 * src/workflows/*-defs.ts files (inputs, results, signals, queries, updates). Workflow modules
 * themselves (activity proxies, deterministic code) are loaded by the worker's bundle only.
 */
const WORKFLOW_CONTRACTS = {
  regex: '(^|/)workflows/(?![^/]*-defs(\\.js)?$)',
  message: 'Import a workflow contract from src/workflows/*-defs.ts, never a workflow module.',
};
/**
 * One Temporal client module (issue 39 items 3 and 7): only src/adapters/temporal.ts imports
 * @temporalio/client (types included: it re-exports Client and WorkflowExecutionInfo), and only it
 * starts workflows or schedules, so every start goes through its startWorkflow / startOnce (the
 * start outbox) / runWorkflow and every failure maps to AppError there. scripts/ and test/ connect
 * their own clients.
 */
const ONE_CLIENT = {
  name: '@temporalio/client',
  message: 'Only src/adapters/temporal.ts imports @temporalio/client: start, await and read failures through it (startWorkflow, startOnce, runWorkflow, awaitWorkflow, updateRefusal, isWorkflowNotFound; types Client, WorkflowExecutionInfo).',
};
const RAW_START = {
  selector:
    "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(start|signalWithStart|execute)$/][callee.object.type='MemberExpression'][callee.object.property.name='workflow'], CallExpression[callee.type='MemberExpression'][callee.property.name='create'][callee.object.type='MemberExpression'][callee.object.property.name='schedule']",
  message: 'Start workflows and schedules through src/adapters/temporal.ts (startWorkflow, startOnce, runWorkflow, signalWithStart, ensureSchedule), never with the client directly.',
};
/** A contract owns its types: services import the contract, never the other way round (issue 39 items 3 and 7). */
const DEFS_OWN_TYPES = {
  regex: '(^|/)services(/|$)',
  message: 'A src/workflows/*-defs.ts contract defines its own types and never imports src/services (not even as types): move the type here and let the service import it.',
};

/** Retry policies come from src/workflows/retry-policies.ts only (named by what a step means). */
const RETRY_FROM_POLICIES = [
  { selector: "Property[key.name='retry'] > ObjectExpression", message: 'Use a policy of src/workflows/retry-policies.ts (retry: MUST_SUCCEED, bounded(n), ...).' },
  { selector: "Property[key.name='maximumAttempts']", message: 'Retry limits live in src/workflows/retry-policies.ts (bounded(n)).' },
];

/** What workflow code may import: deterministic code only, and the rest of src as types. */
const WORKFLOW_PATTERNS = [
  NO_API,
  { group: ['node:*', 'fs', 'path', 'crypto', 'http', 'https', 'net', 'child_process'], message: 'Workflow code must stay deterministic: no Node built-ins.' },
  {
    regex: '(^|/)(activities|services|adapters|entities)(/|$)',
    allowTypeImports: true,
    message: 'Workflows import activities, services, adapters and entities as types only (import type).',
  },
];

/**
 * What a contract (src/workflows/*-defs.ts) may import: as workflow code, except src/services even
 * as types (DEFS_OWN_TYPES). typescript-eslint skips a type import that any allowTypeImports
 * pattern matches, so services is left out of that pattern here rather than added on top.
 */
const DEFS_PATTERNS = [
  NO_API,
  WORKFLOW_PATTERNS[1],
  {
    regex: '(^|/)(activities|adapters|entities)(/|$)',
    allowTypeImports: true,
    message: 'Workflows import activities, adapters and entities as types only (import type).',
  },
  DEFS_OWN_TYPES,
];

/** Route files: routes and yup schemas only; the use cases (and every query) live in src/services. */
const API_LAYER = [
  { regex: '(^|/)entities(/|$)', message: 'src/api does not touch entities: call a service in src/services and shape its view.' },
  { regex: '^\\./(?!schemas\\.js$)', message: 'Route files do not import each other: move the shared logic to src/services (or the schema to ./schemas.js).' },
];
const NO_EM_CALLS = {
  selector: "CallExpression[callee.type='MemberExpression'][callee.object.name='em'], CallExpression[callee.type='MemberExpression'][callee.object.property.name='em']",
  message: 'No EntityManager calls in src/api: put the query in a service function (src/services/<domain>).',
};

/**
 * Activities are one-line delegates (issue 39 items 2 and 7): each forks the EntityManager and calls
 * one function of src/services/<domain>/, where the use case, its SQL and its transactions live (the
 * Temporal samples' saga). No database access in src/activities: no ORM values (its types only, for
 * the factories' deps), no pg, kysely, entities or SQL helpers, no SQL text and no EntityManager
 * call other than fork().
 */
const ACTIVITY_DELEGATES = [
  { group: ['@mikro-orm/*'], allowTypeImports: true, message: 'src/activities take the ORM as a type only: the query belongs in a service (src/services/<domain>).' },
  { group: ['pg', 'pg-*', 'kysely'], message: 'No database client in src/activities: put the statement in a service (src/services/<domain>).' },
  {
    regex: '(^|/)(entities|db|numbering)(/|\\.js$|$)',
    message: 'src/activities import neither entities nor the SQL helpers (src/db, numbering): delegate to a service (src/services/<domain>).',
  },
];
const SQL_TEXT = '/^\\s*(select|insert|update|delete|with)\\s/i';
const NO_DATABASE_IN_ACTIVITIES = [
  { selector: `Literal[value=${SQL_TEXT}]`, message: 'No SQL in src/activities: the statement belongs in a service (src/services/<domain>).' },
  { selector: `TemplateElement[value.raw=${SQL_TEXT}]`, message: 'No SQL in src/activities: the statement belongs in a service (src/services/<domain>).' },
  { selector: 'TaggedTemplateExpression', message: 'No tagged SQL in src/activities: the statement belongs in a service (src/services/<domain>).' },
  {
    selector: "CallExpression[callee.type='MemberExpression'][callee.object.name=/^t?em$/], CallExpression[callee.type='MemberExpression'][callee.object.property.name='em'][callee.property.name!='fork']",
    message: 'src/activities only fork the EntityManager (deps.orm.em.fork()) and hand it to a service: no queries, flushes or transactions here.',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**', 'jest.config.cjs', 'scripts/**/*.mjs', 'test/generated-client/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js'] }, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-argument': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      // Strings are built from validated input; template/stringify noise rules are off.
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  // Tests and scripts read JSON responses and files loosely; the type rules apply to src/ and the entry points.
  {
    files: ['test/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  // Dependency direction (docs/architecture.md): src/api is reached only through src/app.ts;
  // src/domain is pure; workflows are deterministic and see activities and services as types only.
  {
    files: ['**/*.ts'],
    ignores: ['src/app.ts', 'src/api/**'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_API] }] },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/workflows/**', 'src/api/**', 'src/app.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_API, WORKFLOW_CONTRACTS, PRODUCTION_CODE], paths: [...DB_DRIVERS, ONE_CLIENT] }] },
  },
  // One data-access layer (issue 39 item 1): src/db at the bottom, src/http under src/services,
  // and no cycle between imports and the services it builds on.
  {
    files: ['src/db/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_API, WORKFLOW_CONTRACTS, PRODUCTION_CODE, DB_DOWN], paths: [ONE_CLIENT] }] },
  },
  {
    files: ['src/http/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_API, WORKFLOW_CONTRACTS, PRODUCTION_CODE, HTTP_DOWN], paths: [...DB_DRIVERS, ONE_CLIENT] }] },
  },
  {
    files: ['src/services/catalog/**/*.ts', 'src/services/invoices/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_API, WORKFLOW_CONTRACTS, PRODUCTION_CODE, NOT_IMPORTS], paths: [...DB_DRIVERS, ONE_CLIENT] }] },
  },
  {
    files: ['src/config.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_API, WORKFLOW_CONTRACTS, PRODUCTION_CODE, CONFIG_DOWN], paths: [...DB_DRIVERS, ONE_CLIENT] }] },
  },
  {
    files: ['src/api/**/*.ts'],
    ignores: ['src/api/index.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [WORKFLOW_CONTRACTS, PRODUCTION_CODE, ...API_LAYER], paths: [...DB_DRIVERS, ONE_CLIENT] }] },
  },
  {
    files: ['src/api/index.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [WORKFLOW_CONTRACTS, PRODUCTION_CODE], paths: [...DB_DRIVERS, ONE_CLIENT] }] },
  },
  {
    files: ['src/app.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [PRODUCTION_CODE], paths: [...DB_DRIVERS, ONE_CLIENT] }] },
  },
  {
    files: ['server.ts', 'worker.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_API, PRODUCTION_CODE], paths: [...DB_DRIVERS, ONE_CLIENT] }] },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_API, PURE_DOMAIN, DOMAIN_DOWN, WORKFLOW_CONTRACTS, PRODUCTION_CODE], paths: [...DB_DRIVERS, ONE_CLIENT] }] },
  },
  {
    files: ['src/adapters/**/*.ts'],
    ignores: ['src/adapters/temporal.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_API, ADAPTERS_DOWN, WORKFLOW_CONTRACTS, PRODUCTION_CODE], paths: [...DB_DRIVERS, ONE_CLIENT] }] },
  },
  // The one Temporal client module (ONE_CLIENT, RAW_START).
  {
    files: ['src/adapters/temporal.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_API, ADAPTERS_DOWN, WORKFLOW_CONTRACTS, PRODUCTION_CODE], paths: DB_DRIVERS }] },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/workflows/retry-policies.ts', 'src/adapters/temporal.ts', 'src/db/orm.ts'],
    rules: { 'no-restricted-syntax': ['error', ...RETRY_FROM_POLICIES, NO_TEST_ENV, NO_ORM_INIT, RAW_START, ...NO_RAW_EXECUTE] },
  },
  // src/db runs the SQL text, src/migrations MikroORM's own (NO_RAW_EXECUTE does not apply to them).
  {
    files: ['src/db/**/*.ts', 'src/migrations/**/*.ts'],
    ignores: ['src/db/orm.ts'],
    rules: { 'no-restricted-syntax': ['error', ...RETRY_FROM_POLICIES, NO_TEST_ENV, NO_ORM_INIT, RAW_START] },
  },
  {
    files: ['src/adapters/temporal.ts'],
    rules: { 'no-restricted-syntax': ['error', ...RETRY_FROM_POLICIES, NO_TEST_ENV, NO_ORM_INIT, ...NO_RAW_EXECUTE] },
  },
  {
    files: ['src/db/orm.ts'],
    rules: { 'no-restricted-syntax': ['error', ...RETRY_FROM_POLICIES, NO_TEST_ENV, RAW_START] },
  },
  {
    files: ['src/api/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...RETRY_FROM_POLICIES, NO_EM_CALLS, NO_TEST_ENV, NO_ORM_INIT, RAW_START, ...NO_RAW_EXECUTE] },
  },
  {
    files: ['src/workflows/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [...WORKFLOW_PATTERNS, PRODUCTION_CODE], paths: [...DB_DRIVERS, ONE_CLIENT] }] },
  },
  // The bench workflows (scripts/bench/workflows, bundled by scripts/lib/bench-worker.ts) are workflow code too.
  {
    files: ['scripts/bench/workflows/**/*.ts'],
    ignores: ['scripts/bench/workflows/activities.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: WORKFLOW_PATTERNS }] },
  },
  {
    files: ['worker.ts', 'server.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_TEST_ENV, NO_ORM_INIT, RAW_START, ...NO_RAW_EXECUTE] },
  },
  // Bench and test-only code does not come back into src (issue 39 item 4): such a file fails lint by its name.
  {
    files: NOT_IN_SRC,
    rules: { 'no-restricted-syntax': ['error', { selector: 'Program', message: 'Bench code belongs in scripts/bench/, test-only code in test/support/: not in src.' }] },
  },
  // A contract file defines and declares only: no activity proxies, timers or other workflow calls,
  // and it owns its types (DEFS_OWN_TYPES: no src/services, not even as types).
  {
    files: ['src/workflows/*-defs.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [...DEFS_PATTERNS, PRODUCTION_CODE],
          paths: [
            ...DB_DRIVERS,
            { name: '@temporalio/workflow', allowImportNames: ['defineSignal', 'defineQuery', 'defineUpdate'], message: 'A *-defs.ts file holds contracts only (defineSignal, defineQuery, defineUpdate and types).' },
            ONE_CLIENT,
          ],
        },
      ],
    },
  },
  // Activities are one-line delegates to src/services (issue 39 items 2 and 7).
  {
    files: ['src/activities/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [NO_API, WORKFLOW_CONTRACTS, PRODUCTION_CODE, ...ACTIVITY_DELEGATES], paths: [...DB_DRIVERS, ONE_CLIENT] }],
      'no-restricted-syntax': ['error', ...RETRY_FROM_POLICIES, NO_TEST_ENV, NO_ORM_INIT, RAW_START, ...NO_RAW_EXECUTE, ...NO_DATABASE_IN_ACTIVITIES],
    },
  },
);
