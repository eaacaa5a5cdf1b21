module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'protocol',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
