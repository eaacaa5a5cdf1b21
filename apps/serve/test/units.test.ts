import { parseConfig } from '../src/config';
import { keystrokeBytes } from '../src/keys';
import { leaves, presetLayout, removePane, splitPane } from '../src/layout';

describe('keystrokes (REFERENCE.md §4.5)', () => {
  test.each([
    ['a', 'a'],
    ['shift-a', 'A'],
    ['ctrl-c', '\x03'],
    ['ctrl-a', '\x01'],
    ['alt-x', '\x1bx'],
    ['ctrl-alt-d', '\x1b\x04'],
    ['space', ' '],
    ['ctrl-space', '\x00'],
    ['tab', '\t'],
    ['shift-tab', '\x1b[Z'],
    ['escape', '\x1b'],
    ['esc', '\x1b'],
    ['backspace', '\x7f'],
    ['delete', '\x1b[3~'],
    ['insert', '\x1b[2~'],
    ['pageup', '\x1b[5~'],
    ['pagedown', '\x1b[6~'],
    ['f1', '\x1bOP'],
    ['f5', '\x1b[15~'],
    ['f12', '\x1b[24~'],
    ['shift-f1', '\x1b[1;2P'],
    ['ctrl-up', '\x1b[1;5A'],
    ['7', '7'],
    ['?', '?'],
    ['ctrl-[', '\x1b'],
    ['-', '-'],
  ])('%s', (keystroke, bytes) => {
    expect(keystrokeBytes(keystroke, false)).toBe(bytes);
  });

  test('cursor keys follow the cursor-key mode', () => {
    expect(keystrokeBytes('up', false)).toBe('\x1b[A');
    expect(keystrokeBytes('up', true)).toBe('\x1bOA');
    expect(keystrokeBytes('home', true)).toBe('\x1bOH');
    expect(keystrokeBytes('left', false)).toBe('\x1b[D');
  });

  test.each(['enter', 'return', 'Enter', 'ctrl-m', 'ctrl-j', 'shift-enter'])('%s would submit and is refused', (keystroke) => {
    expect(() => keystrokeBytes(keystroke, false)).toThrow(/submit/);
  });

  test.each(['hyper-a', 'f13', 'nothing', 'ctrl-1'])('%s is not a keystroke', (keystroke) => {
    expect(() => keystrokeBytes(keystroke, false)).toThrow();
  });
});

describe('layouts', () => {
  test('even_h and even_v split evenly, pane order kept', () => {
    const tree = presetLayout('even_h', [1, 2, 3])!;
    expect(leaves(tree)).toEqual([1, 2, 3]);
    expect(tree).toMatchObject({ split: 'h', ratio: 1 / 3, children: [{ surface_id: 1 }, { split: 'h', ratio: 0.5 }] });
    expect(presetLayout('even_v', [4])).toEqual({ surface_id: 4 });
  });

  test('main_vertical keeps the first pane full height on the left', () => {
    expect(presetLayout('main_vertical', [1, 2, 3])).toEqual({
      split: 'h',
      ratio: 0.5,
      children: [{ surface_id: 1 }, { split: 'v', ratio: 0.5, children: [{ surface_id: 2 }, { surface_id: 3 }] }],
    });
  });

  test('tiled is a grid of ⌈√n⌉ columns', () => {
    const tree = presetLayout('tiled', [1, 2, 3, 4, 5])!;
    expect(leaves(tree)).toEqual([1, 2, 3, 4, 5]);
    expect(tree).toMatchObject({ split: 'h', ratio: 1 / 3 }); // 3 columns
  });

  test('splitting and removing a pane keep the tree binary and whole', () => {
    let tree = presetLayout('even_h', [1, 2]);
    tree = splitPane(tree, 2, 3, 'v');
    expect(leaves(tree)).toEqual([1, 2, 3]);
    tree = removePane(tree, 2);
    expect(tree).toEqual({ split: 'h', ratio: 0.5, children: [{ surface_id: 1 }, { surface_id: 3 }] });
    expect(removePane(removePane(tree, 1), 3)).toBeNull();
  });
});

describe('config (REFERENCE.md §10)', () => {
  const keys = new Set(['show_agent_codex']);
  test('valid keys are taken; defaults fill the rest', () => {
    const { config, ignored } = parseConfig(
      JSON.stringify({ ai_unrestricted: true, submit_paste_delay_ms: 9999, terminal: { env: { A: '1' } }, show_agent_codex: false }),
      keys,
    );
    expect(ignored).toEqual([]);
    expect(config).toMatchObject({ ai_unrestricted: true, ai_injection_fence: true, submit_paste_delay_ms: 5000, terminal_env: { A: '1' }, visibility: { show_agent_codex: false } });
  });

  test('what is wrong is named and ignored, never fatal', () => {
    const { config, ignored } = parseConfig(JSON.stringify({ ai_unrestricted: 'yes', nope: 1, terminal: { env: { A: 1 } }, agent_stall_threshold_secs: -4 }), keys);
    expect(config).toMatchObject({ ai_unrestricted: false, agent_stall_threshold_secs: 0, terminal_env: {} });
    expect(ignored).toEqual([
      'ai_unrestricted: expected true or false, got "yes"',
      'nope: unknown key',
      'terminal.env: expected an object of strings',
      'agent_stall_threshold_secs: expected a number of seconds >= 0, got -4',
    ]);
    expect(parseConfig('{not json', keys).ignored[0]).toMatch(/not valid JSON/);
  });
});
