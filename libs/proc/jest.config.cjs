module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'proc',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // Real processes and PTYs (and a thread pool kept busy): a loaded machine needs the time.
  testTimeout: 30_000,
};
