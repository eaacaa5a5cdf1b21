module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'proc',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
