module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'instance',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
