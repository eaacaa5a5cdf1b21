module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'testing',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
