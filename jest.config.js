// Two projects: unit (pure code, fakes; fast, parallel) and integration (real containerd; run in band).
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }] };
module.exports = {
  // Integration tests drive real containers; jest reads testTimeout from the top level only.
  testTimeout: 60000,
  projects: [
    { displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'], transform, testEnvironment: 'node' },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
      testTimeout: 60000,
    },
    {
      // Real client libraries and tools (dockerode, testcontainers, the docker CLI, docker-compose, docker-py)
      // against a test berth, the way their users call them; run with the integration project (scripts/test.sh).
      displayName: 'clients',
      testMatch: ['<rootDir>/test/clients/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
      testTimeout: 60000,
    },
  ],
};
