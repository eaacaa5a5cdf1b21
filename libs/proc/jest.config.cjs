const { scaled } = require('../../libs/test-time/src/index.js');

module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'proc',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // Real processes and PTYs (and a thread pool kept busy): a loaded machine needs the time.
  testTimeout: scaled(30_000),
};
