module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'rpc',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
