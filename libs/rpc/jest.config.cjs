const { scaled } = require('../../libs/test-time/src/index.js');

module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'rpc',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // Bounds a hang, never a speed: the helpers' own waits (10 s) fail first, with what was missing.
  testTimeout: scaled(30_000),
};
