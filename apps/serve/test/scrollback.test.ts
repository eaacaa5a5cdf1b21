import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killIfAlive, screenMatching, serveCli, startInstance, type Instance, waitUntilGone } from './helpers';

let pf: Instance;
beforeAll(async () => {
  pf = await startInstance({ orchestration: true });
});
afterAll(() => pf.cleanup());

const LINES = 60_000;
const lineText = (i: number) => `deep-${i} 日本語 ${i % 1000 === 0 ? 'w'.repeat(150) : 'end'}`;

test('lines deep in the host’s compact scrollback read and search the same through serve, before and after serve restarts', async () => {
  const printer = join(pf.dir, 'printer.cjs');
  writeFileSync(
    printer,
    `const lineText = ${lineText.toString()};
let out = '';
for (let i = 0; i < ${LINES}; i++) out += '\\x1b[1;3' + (i % 7) + 'm' + lineText(i) + '\\x1b[0m\\r\\n';
process.stdout.write(out + 'printed-all\\r\\n');
setInterval(() => {}, 1000);`,
  );
  const up = await pf.call('workspace.up', { name: 'deep', layout: 'even_h', panes: [{ cwd: pf.dir, command: `node ${printer}`, focus: true, env: {} }] });
  const surface = up.surfaces[0].surface_id;
  await screenMatching(pf, surface, /^printed-all$/m, 60_000);

  const readDeep = () => pf.call('surface.read', { surface_id: surface, lines: 5, offset: 40_000, fenced: false });
  const search = () => pf.call('surface.search', { surface_id: surface, pattern: 'deep-10000 ' });
  const before = await readDeep();
  // Line LINES (0-based) is 'printed-all': the five lines read end 40,000 lines before the end of the pane.
  expect(before.text.split('\n')).toEqual(Array.from({ length: 5 }, (_, k) => lineText(LINES - 40_004 + k)));
  expect(before.total_lines).toBe(LINES + 1);
  const found = await search();
  expect(found.matches).toEqual([{ line: 10_001, text: lineText(10_000) }]);

  killIfAlive(pf.servePid);
  await waitUntilGone(pf.servePid);
  const restarted = serveCli(pf.env, 'start');
  expect(restarted.code).toBe(0);
  pf.servePid = JSON.parse(restarted.stdout).pid;

  expect(await readDeep()).toEqual(before);
  expect(await search()).toEqual(found);
});
