import { selectorKind, selectPanes, type Selectable } from '../src/selectors';

// The one selector grammar (REFERENCE.md §4.2), which serve's `surface.resolve` applies for every
// face: tested here once; the faces' tests check that they reach it.
const pane = (surface_id: number, name: string | null, workspace_id: string, cwd = '/work', cmd = 'bash'): Selectable => ({ surface_id, name, cwd, cmd, workspace_id });
const panes = [
  pane(1, 'Build', 'w1', '/work/api', 'npm run build'),
  pane(2, 'build', 'w1', '/work/web', 'claude --model opus'),
  pane(3, 'builder', 'w1'),
  pane(4, 'lead', 'w2', '/work/api', 'claude'),
  pane(5, null, 'w1', '/work/api', 'vim notes.md'),
  pane(42, '7', 'w2'),
];
const inW1 = (p: Selectable) => p.workspace_id === 'w1';
const ids = (selector: string, inScope = inW1) => {
  const { matches, stage } = selectPanes(panes, selector, inScope);
  return [stage, matches.map((p) => p.surface_id)];
};

test('all digits are a surface id, in any workspace whatever the scope', () => {
  expect(ids('4')).toEqual(['surface_id', [4]]);
  expect(ids('42')).toEqual(['surface_id', [42]]);
  expect(ids('99')).toEqual(['surface_id', []]);
  expect(ids('007')).toEqual(['surface_id', []]);
});

test('cmdline: is a substring of the foreground command line, within scope', () => {
  expect(ids('cmdline:claude')).toEqual(['cmdline', [2]]);
  expect(ids('cmdline:claude', () => true)).toEqual(['cmdline', [2, 4]]);
  expect(ids('cmdline:')).toEqual(['cmdline', [1, 2, 3, 5]]);
});

test('cwd: is the pane directory exactly, within scope', () => {
  expect(ids('cwd:/work/api')).toEqual(['cwd', [1, 5]]);
  expect(ids('cwd:/work/api', () => true)).toEqual(['cwd', [1, 4, 5]]);
  expect(ids('cwd:/work')).toEqual(['cwd', [3]]);
});

test('anything else is a name: exact, then any case, then a case-insensitive prefix; the first rule that finds decides', () => {
  expect(ids('build')).toEqual(['exact', [2]]);
  expect(ids('BUILD')).toEqual(['any_case', [1, 2]]);
  expect(ids('bui')).toEqual(['prefix', [1, 2, 3]]);
  expect(ids('builde')).toEqual(['prefix', [3]]);
  expect(ids('lead')).toEqual(['exact', []]);
  expect(ids('lead', () => true)).toEqual(['exact', [4]]);
});

test('selectorKind reads a selector before any pane is looked at', () => {
  expect(selectorKind('12')).toEqual({ kind: 'surface_id', text: '12' });
  expect(selectorKind('cmdline:npm test')).toEqual({ kind: 'cmdline', text: 'npm test' });
  expect(selectorKind('cwd:~/x')).toEqual({ kind: 'cwd', text: '~/x' });
  expect(selectorKind('12a')).toEqual({ kind: 'name', text: '12a' });
  expect(selectorKind('CMDLINE:x')).toEqual({ kind: 'name', text: 'CMDLINE:x' });
});
