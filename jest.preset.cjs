// Shared by every project's jest.config.cjs: swc for speed, sources mapped through tsconfig paths.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');
const { scaled } = require('./libs/test-time/src/index.js');

const workspaceRoot = __dirname;
// `@paneflow/x` maps to one file, `@paneflow/x/*` to the files below it.
const escape = (text) => text.replace(/[.+?^${}()|[\]\\/]/g, '\\$&');
const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([name, [target]]) => [
    `^${escape(name).replace('*', '(.*)')}$`,
    path.join(workspaceRoot, target).replace('*', '$1'),
  ]),
);

module.exports = {
  testEnvironment: 'node',
  // jest's own default, scaled like every deadline of the suite (libs/test-time).
  testTimeout: scaled(5000),
  transform: {
    '^.+\\.(ts|js|mjs|cjs)$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  // ESM-only packages that jest must transform.
  transformIgnorePatterns: ['/node_modules/(?!(typebox|citty)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  moduleNameMapper: {
    ...moduleNameMapper,
    '^virtual:paneflow-runtimes$': path.join(workspaceRoot, 'tools/runtime-texts.cjs'),
    '^virtual:paneflow-prices$': path.join(workspaceRoot, 'tools/price-text.cjs'),
  },
  reporters: ['default', path.join(workspaceRoot, 'tools/jest-results-reporter.cjs')],
  // Refuses a run against an app bundle older than its sources (tools/fresh-bundles.cjs).
  globalSetup: path.join(workspaceRoot, 'tools/fresh-bundles.cjs'),
};
