/** Jest runs the HTTP-level integration tests (against the stack scripts/dev/test.ts starts) and unit tests of pure rules. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // test/cluster/ needs the cluster (a replica, two API processes): the cluster phase of `npm test` runs it (scripts/dev/test.ts).
  testPathIgnorePatterns: process.env.JEST_CLUSTER === 'true' ? ['/node_modules/'] : ['/node_modules/', '<rootDir>/test/cluster/'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testTimeout: 60000,
  maxWorkers: 2,
};
