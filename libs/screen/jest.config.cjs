const { scaled } = require('../../libs/test-time/src/index.js');

module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'screen',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // The fidelity test replays real captures through tmux and xterm (a pure library's tests take no helper).
  testTimeout: scaled(120_000),
};
