import { createProjectGraphAsync, type ProjectGraph } from '@nx/devkit';
import { execFileSync } from 'node:child_process';
import { relative, join } from 'node:path';
import { scaled } from '@paneflow/test-time';

// Proves the lint rules of eslint.config.mjs: a pure library that reaches for a process, a socket,
// a file, a PTY, a window or an app fails lint. Each probe is linted as if it were a file of the
// library, through the same ESLint and config that `nx lint` uses.
const root = join(__dirname, '../..');
let graph: ProjectGraph;

type Probe = { filePath: string; code: string };

/** Lints each probe as the file it names; returns the rule ids each one broke. */
function lint(probes: Probe[]): string[][] {
  const out = execFileSync(process.execPath, [join(__dirname, 'lint-texts.mjs')], {
    cwd: root,
    input: JSON.stringify(probes),
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

beforeAll(async () => {
  // The Nx rule reads the cached project graph; make sure there is one, as `nx lint` does.
  graph = await createProjectGraphAsync({ exitOnError: false });
}, scaled(60_000));

function pureProjects() {
  return Object.values(graph.nodes).filter((node) => node.data.tags?.includes('type:pure'));
}

/** The pure sources, each with its project: every type:pure project, and the pure part of others. */
const pureSources = [
  { project: 'osc7501', dir: 'libs/osc7501/src' },
  { project: 'procscan', dir: 'libs/procscan/src/match' },
  { project: 'protocol', dir: 'libs/protocol/src' },
  { project: 'reducer', dir: 'libs/reducer/src' },
  { project: 'screen', dir: 'libs/screen/src' },
  { project: 'spec', dir: 'libs/spec/src' },
  { project: 'view', dir: 'libs/view/src' },
];

test('every pure project and every pure glob of eslint.config.mjs is probed', () => {
  const probedProjects = new Set(pureSources.map((s) => s.project));
  expect(pureProjects().filter((p) => !probedProjects.has(p.name))).toEqual([]);
  const globs = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', "import('./eslint.config.mjs').then((m) => console.log(JSON.stringify(m.pureSources)))"], {
      cwd: root,
      encoding: 'utf8',
    }),
  );
  expect(globs).toEqual(pureSources.map((s) => `${s.dir}/**/*.ts`));
});

const forbidden = [
  "import { readFileSync } from 'node:fs';",
  "import { readFileSync } from 'fs';",
  "import { connect } from 'node:net';",
  "import { spawn } from 'node:child_process';",
  "import { spawn } from 'child_process';",
  "import * as pty from 'node-pty';",
  "import { app } from 'electron';",
  "import { call } from '@paneflow/rpc';",
  "import { resolveEndpoints } from '@paneflow/instance';",
  "import { readProcStat } from '@paneflow/proc';",
];
const forbiddenGlobals = ['export const pid = process.pid;', "export const b = Buffer.from('x');"];

describe.each(pureSources)('a file of the pure sources $dir', ({ dir }) => {
  let probe: string;
  let apps: string[];
  let results: string[][];

  beforeAll(() => {
    probe = join(dir, '__boundary_probe__.ts');
    apps = Object.values(graph.nodes)
      .filter((node) => node.data.tags?.includes('type:app'))
      .map((app) => relative(join(root, dir), join(root, app.data.root, 'src/index')));
    results = lint([
      { filePath: probe, code: "import { sibling } from './sibling';\nexport const p = sibling;\n" },
      ...[...forbidden, ...forbiddenGlobals].map((line) => ({ filePath: probe, code: `${line}\nexport const x = 1;\n` })),
      ...apps.map((app) => ({ filePath: probe, code: `import * as app from '${app}';\nexport const a = app;\n` })),
    ]);
  }, scaled(60_000));

  test('may import its own modules', () => {
    expect(results[0]).toEqual([]);
  });

  test.each(forbidden.map((line, i) => [line, i + 1] as const))('fails lint for %s', (_line, index) => {
    expect(results[index]).toContain('no-restricted-imports');
  });

  test.each(forbiddenGlobals.map((line, i) => [line, forbidden.length + i + 1] as const))(
    'fails lint for the Node global in %s',
    (_line, index) => {
      expect(results[index]).toContain('no-restricted-globals');
    },
  );

  test('fails lint when it imports an app', () => {
    expect(apps.length).toBeGreaterThan(0);
    const first = 1 + forbidden.length + forbiddenGlobals.length;
    for (let i = 0; i < apps.length; i++) expect(results[first + i]).toContain('@nx/enforce-module-boundaries');
  });
});
