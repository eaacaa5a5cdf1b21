module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'spec',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
