module.exports = {
  ...require('../jest.preset.cjs'),
  displayName: 'workspace',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
