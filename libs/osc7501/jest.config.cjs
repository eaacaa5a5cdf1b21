module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'osc7501',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};
