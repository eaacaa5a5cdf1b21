const { scaled } = require('../../libs/test-time/src/index.js');

module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'client',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // A real instance, PTYs and shells: give them room.
  testTimeout: scaled(30_000),
};
