import { encodeFocus, encodeKey, encodeMouse, InputParser, type KeyEvent, type MouseEvent, type MouseTracking } from '../src';

const ESC = '\x1b';
const key = (sequence: string) => new InputParser().feed(sequence)[0] as KeyEvent;

describe('encodeKey', () => {
  test('unmodified arrows, Home and End follow the pane’s cursor key mode, whichever form the terminal sent', () => {
    for (const final of 'ABCDHF') {
      for (const sent of [`${ESC}[${final}`, `${ESC}O${final}`]) {
        expect(encodeKey(key(sent), { applicationCursorKeys: true })).toBe(`${ESC}O${final}`);
        expect(encodeKey(key(sent), { applicationCursorKeys: false })).toBe(`${ESC}[${final}`);
      }
    }
  });

  test('every other key goes as it was typed', () => {
    for (const sent of [`${ESC}[1;5A`, `${ESC}${ESC}[A`, `${ESC}OP`, `${ESC}[3~`, 'a', '\x02', `${ESC}x`, `${ESC}[99~`, '中']) {
      expect(encodeKey(key(sent), { applicationCursorKeys: true })).toBe(sent);
      expect(encodeKey(key(sent), { applicationCursorKeys: false })).toBe(sent);
    }
  });
});

describe('encodeFocus', () => {
  test('focus reports only when the pane asked for them', () => {
    expect(encodeFocus(true, { sendFocus: true })).toBe(`${ESC}[I`);
    expect(encodeFocus(false, { sendFocus: true })).toBe(`${ESC}[O`);
    expect(encodeFocus(true, { sendFocus: false })).toBeNull();
  });
});

describe('encodeMouse', () => {
  // The pane's terminal starts at column 10, row 5 of the outer terminal (0-based), 20x8.
  const content = { x: 10, y: 5, width: 20, height: 8 };
  const event = (action: MouseEvent['action'], button: MouseEvent['button'], extra: Partial<MouseEvent> = {}): MouseEvent => ({
    type: 'mouse',
    action,
    button,
    x: 13,
    y: 7,
    shift: false,
    alt: false,
    ctrl: false,
    ...extra,
  });
  const sgr = (tracking: MouseTracking, e: MouseEvent) => encodeMouse(e, content, { mouseTracking: tracking, mouseEncoding: 'sgr' });

  test('positions are relative to the pane, 1-based, and clamped to its edges', () => {
    expect(sgr('vt200', event('press', 'left'))).toBe(`${ESC}[<0;3;2M`);
    expect(sgr('vt200', event('press', 'left', { x: 11, y: 6 }))).toBe(`${ESC}[<0;1;1M`);
    expect(sgr('vt200', event('press', 'left', { x: 1, y: 100 }))).toBe(`${ESC}[<0;1;8M`);
    expect(sgr('vt200', event('press', 'left', { x: 200, y: 1 }))).toBe(`${ESC}[<0;20;1M`);
  });

  test('each tracking mode gets only the events it asked for', () => {
    const events = [event('press', 'left'), event('release', 'left'), event('wheel', 'wheel-up'), event('drag', 'left'), event('move', 'none')];
    const wanted = (tracking: MouseTracking) => events.map((e) => sgr(tracking, e) !== null);
    expect(wanted('none')).toEqual([false, false, false, false, false]);
    expect(wanted('x10')).toEqual([true, false, false, false, false]);
    expect(wanted('vt200')).toEqual([true, true, true, false, false]);
    expect(wanted('drag')).toEqual([true, true, true, true, false]);
    expect(wanted('any')).toEqual([true, true, true, true, true]);
  });

  test('SGR carries the button, motion, wheel and modifiers, and which button was released', () => {
    expect(sgr('any', event('press', 'right', { shift: true, ctrl: true }))).toBe(`${ESC}[<22;3;2M`);
    expect(sgr('any', event('release', 'middle', { alt: true }))).toBe(`${ESC}[<9;3;2m`);
    expect(sgr('any', event('drag', 'left'))).toBe(`${ESC}[<32;3;2M`);
    expect(sgr('any', event('move', 'none'))).toBe(`${ESC}[<35;3;2M`);
    expect(sgr('any', event('wheel', 'wheel-down'))).toBe(`${ESC}[<65;3;2M`);
    expect(sgr('any', event('press', 'button9'))).toBe(`${ESC}[<129;3;2M`);
  });

  test('X10 tracking reports no modifiers', () => {
    expect(sgr('x10', event('press', 'left', { shift: true, alt: true, ctrl: true }))).toBe(`${ESC}[<0;3;2M`);
  });

  test('the default encoding is three characters of 32 + value; a release says button 3', () => {
    const plain = (e: MouseEvent) => encodeMouse(e, content, { mouseTracking: 'any', mouseEncoding: 'default' });
    expect(plain(event('press', 'left'))).toBe(`${ESC}[M #"`);
    expect(plain(event('release', 'right', { ctrl: true }))).toBe(`${ESC}[M3#"`);
    expect(plain(event('wheel', 'wheel-up'))).toBe(`${ESC}[M\`#"`);
    expect(plain(event('drag', 'middle'))).toBe(`${ESC}[MA#"`);
  });

  test('the default encoding gives null where a value would not be one ASCII character', () => {
    const wide = { x: 0, y: 0, width: 300, height: 100 };
    const plain = (e: MouseEvent) => encodeMouse(e, wide, { mouseTracking: 'any', mouseEncoding: 'default' });
    expect(plain(event('press', 'left', { x: 94, y: 1 }))).toBe(`${ESC}[M ~!`);
    expect(plain(event('press', 'left', { x: 95, y: 1 }))).toBeNull();
    expect(plain(event('press', 'left', { x: 1, y: 95 }))).toBeNull();
    expect(plain(event('press', 'button8', { x: 1, y: 1 }))).toBeNull();
    expect(encodeMouse(event('press', 'left', { x: 95, y: 1 }), wide, { mouseTracking: 'any', mouseEncoding: 'sgr' })).toBe(`${ESC}[<0;95;1M`);
  });

  test('a pane with no room gets nothing', () => {
    expect(encodeMouse(event('press', 'left'), { x: 0, y: 0, width: 0, height: 5 }, { mouseTracking: 'any', mouseEncoding: 'sgr' })).toBeNull();
  });
});
