import nx from '@nx/eslint-plugin';
import { builtinModules } from 'node:module';
import nxTypescript from '@nx/eslint-plugin/typescript';

/**
 * What a pure library (ARCHITECTURE.md) may not reach: processes, sockets, files, PTYs, windows.
 * `@nx/enforce-module-boundaries` skips Node built-ins and packages that are not installed, so
 * `no-restricted-imports` bans those by name and the Nx rule guards project boundaries by tag.
 */
const impureModules = [
  ...builtinModules.filter((name) => !name.startsWith('_')).flatMap((name) => [name, `node:${name}`]),
  'node-pty',
  'electron',
  '@paneflow/rpc',
  '@paneflow/instance',
  '@paneflow/proc',
];

/** Folders whose every file is pure. Partly pure projects list their pure files here. */
export const pureSources = ['libs/osc7501/src/**/*.ts', 'libs/procscan/src/match/**/*.ts', 'libs/protocol/src/**/*.ts', 'libs/reducer/src/**/*.ts', 'libs/screen/src/**/*.ts', 'libs/spec/src/**/*.ts', 'libs/view/src/**/*.ts'];

export default [
  { ignores: ['**/dist', '**/node_modules', '**/.nx', '**/coverage'] },
  ...nxTypescript.configs.typescript,
  {
    files: ['**/*.ts', '**/*.mts', '**/*.cts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:pure', onlyDependOnLibsWithTags: ['type:pure'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:pure', 'type:lib'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:pure', 'type:lib'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:pure', 'type:lib'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: pureSources,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: impureModules.map((name) => ({
            name,
            message: 'Pure libraries touch no process, socket, PTY or file (ARCHITECTURE.md).',
          })),
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'require', '__dirname', '__filename', 'setImmediate'].map((name) => ({
          name,
          message: 'Pure libraries run anywhere: no Node globals.',
        })),
      ],
    },
  },
];
