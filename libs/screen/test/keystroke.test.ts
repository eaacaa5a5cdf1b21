import { bracketedPaste, keystrokeBytes } from '../src/keystroke';

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

  test('a refusal quotes the keystroke as a face shows it: no ESC, BEL or line separator goes back raw', () => {
    expect(() => keystrokeBytes('\x1b[31mboom', false)).toThrow("unknown key '^[[31mboom' in '^[[31mboom'");
    expect(() => keystrokeBytes('\x1b]0;x\x07-a', false)).toThrow("unknown modifier '^[]0;x^G' in '^[]0;x^G-a'");
    expect(() => keystrokeBytes('ctrl-\u2028', false)).toThrow("unknown key '\ufffd' in 'ctrl-\ufffd'");
  });
});

test('a bracketed paste cannot be ended early by the markers inside it', () => {
  expect(bracketedPaste('a\x1b[201~b\x1b[200~c')).toBe('\x1b[200~abc\x1b[201~');
});
