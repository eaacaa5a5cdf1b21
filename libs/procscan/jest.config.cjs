module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'procscan',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
