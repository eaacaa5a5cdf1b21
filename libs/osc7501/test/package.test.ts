import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

// The built package, as a third party loads it: plain Node, no TypeScript, from the repo root.
const root = join(__dirname, '../../..');
const program = `
  const sequence = m.encode({ state: 'blocked', kind: 'permission', msg: 'Apply?' });
  const store = new m.Store();
  for (const item of new m.Scanner().feed('x' + sequence + 'y').items) store.apply(item);
  console.log(JSON.stringify({ records: store.records(), reply: m.replyFor(m.parse('?', 'bel')) }));
`;
const expected = {
  records: [
    { id: null, state: 'blocked', kind: 'permission', progress: null, app: null, effectiveApp: null, title: null, msg: 'Apply?' },
  ],
  reply: '\x1b]7501;?:states=idle,working,done,blocked,error:kinds=permission,question,auth\x07',
};

beforeAll(() => {
  if (!existsSync(join(root, 'libs/osc7501/dist/index.cjs'))) {
    throw new Error('libs/osc7501 is not built: run `npx nx build osc7501` (the nx test target does it first)');
  }
});

test('plain Node can require the built package', () => {
  const out = execFileSync(process.execPath, ['-e', `const m = require('@paneflow/osc7501');${program}`], { cwd: root });
  expect(JSON.parse(out.toString())).toEqual(expected);
});

test('plain Node can import the built package', () => {
  const out = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', `import * as m from '@paneflow/osc7501';${program}`],
    { cwd: root },
  );
  expect(JSON.parse(out.toString())).toEqual(expected);
});

test('the package ships type declarations for its entry point', () => {
  expect(existsSync(join(root, 'libs/osc7501/dist/index.d.ts'))).toBe(true);
});
