module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'desktop',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // Real hosts, PTYs and shells: give them room, and one file at a time on two cores.
  testTimeout: 30_000,
  maxWorkers: 1,
};
