module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'view',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
