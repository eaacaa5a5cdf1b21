module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'reducer',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
