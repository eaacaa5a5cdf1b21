module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'screen',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
