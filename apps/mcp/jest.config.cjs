const { scaled } = require('../../libs/test-time/src/index.js');

module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'mcp',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // Real hosts, PTYs and shells: give them room. One file at a time here; Nx runs several
  // projects' tests at once, since they mostly wait on processes rather than compute.
  testTimeout: scaled(30_000),
  maxWorkers: 1,
};
