import fc from 'fast-check';
import { encodeMouse, InputParser, type InputEvent } from '../src';

const ESC = '\x1b';

function parse(...chunks: Array<string | Uint8Array>): InputEvent[] {
  const parser = new InputParser();
  return [...chunks.flatMap((chunk) => parser.feed(chunk)), ...parser.flush()];
}
const names = (...chunks: Array<string | Uint8Array>) => parse(...chunks).map((event) => (event.type === 'key' ? event.name : event.type));

describe('keys', () => {
  test('printable characters are one key each, by code point', () => {
    expect(names('aB€中😀 ')).toEqual(['a', 'B', '€', '中', '😀', 'space']);
    expect(parse('😀')[0]).toEqual({ type: 'key', sequence: '😀', name: '😀', key: '😀', ctrl: false, alt: false, shift: false });
  });

  test('control characters are named keys', () => {
    expect(names('\r\t\x7f\x02\x00\x1c\x1d\x1f\x08\n')).toEqual(['enter', 'tab', 'backspace', 'ctrl-b', 'ctrl-space', 'ctrl-\\', 'ctrl-]', 'ctrl-_', 'ctrl-h', 'ctrl-j']);
    expect(parse('\x02')[0]).toMatchObject({ key: 'b', ctrl: true, alt: false, shift: false, sequence: '\x02' });
  });

  test('ESC before a key is Alt with that key', () => {
    expect(names(`${ESC}a`, `${ESC}A`, `${ESC}\x02`, `${ESC}\r`, `${ESC}\x7f`, `${ESC}中`)).toEqual(['alt-a', 'alt-A', 'ctrl-alt-b', 'alt-enter', 'alt-backspace', 'alt-中']);
    expect(parse(`${ESC}${ESC}x`).map((e) => e.type === 'key' && [e.name, e.sequence])).toEqual([
      ['alt-escape', `${ESC}${ESC}`],
      ['x', 'x'],
    ]);
  });

  test('cursor keys in CSI and SS3 forms, with modifiers', () => {
    expect(names(`${ESC}[A${ESC}[B${ESC}[C${ESC}[D${ESC}[H${ESC}[F${ESC}[E`)).toEqual(['up', 'down', 'right', 'left', 'home', 'end', 'begin']);
    expect(names(`${ESC}OA${ESC}OB${ESC}OC${ESC}OD${ESC}OH${ESC}OF${ESC}OM`)).toEqual(['up', 'down', 'right', 'left', 'home', 'end', 'enter']);
    expect(names(`${ESC}[1;5A${ESC}[1;2C${ESC}[1;3D${ESC}[1;8B${ESC}[1;6H`)).toEqual(['ctrl-up', 'shift-right', 'alt-left', 'ctrl-alt-shift-down', 'ctrl-shift-home']);
    expect(parse(`${ESC}[1;5A`)[0]).toMatchObject({ key: 'up', ctrl: true, alt: false, shift: false });
    expect(names(`${ESC}${ESC}[A`, `${ESC}${ESC}OD`)).toEqual(['alt-up', 'alt-left']);
  });

  test('editing and function keys', () => {
    expect(names(`${ESC}[2~${ESC}[3~${ESC}[5~${ESC}[6~${ESC}[1~${ESC}[4~${ESC}[7~${ESC}[8~`)).toEqual(['insert', 'delete', 'pageup', 'pagedown', 'home', 'end', 'home', 'end']);
    expect(names(`${ESC}OP${ESC}OQ${ESC}OR${ESC}OS${ESC}[1;5P${ESC}[15~${ESC}[17~${ESC}[21~${ESC}[23~${ESC}[24;2~`)).toEqual(['f1', 'f2', 'f3', 'f4', 'ctrl-f1', 'f5', 'f6', 'f10', 'f11', 'shift-f12']);
    expect(names(`${ESC}[3;5~${ESC}[Z`)).toEqual(['ctrl-delete', 'shift-tab']);
  });

  test('unknown sequences pass through whole as keys without a name', () => {
    for (const sequence of [`${ESC}[99~`, `${ESC}[?1;2c`, `${ESC}[12;5R`, `${ESC}[1;9A`, `${ESC}[97;5u`, `${ESC}[2$y`, `${ESC}Ox`, `${ESC}]11;rgb:ffff/0000/ffff\x07`, `${ESC}P1$r0m${ESC}\\`]) {
      expect(parse(sequence)).toEqual([{ type: 'key', sequence, name: null, key: null, ctrl: false, alt: false, shift: false }]);
    }
  });

  test('an ESC before a sequence that is not a known key is the Escape key, and the sequence parses on its own', () => {
    expect(parse(`${ESC}${ESC}[99~`).map((e) => e.type === 'key' && [e.sequence, e.name])).toEqual([
      [ESC, 'escape'],
      [`${ESC}[99~`, null],
    ]);
    expect(parse(`${ESC}${ESC}[I`, `${ESC}${ESC}[200~x${ESC}[201~`).map((e) => e.type)).toEqual(['key', 'focus', 'key', 'paste']);
  });

  test('a sequence broken by a character that cannot be in it is passed on, and parsing goes on', () => {
    expect(parse(`${ESC}[1\x01`).map((e) => e.type === 'key' && [e.sequence, e.name])).toEqual([
      [`${ESC}[1`, null],
      ['\x01', 'ctrl-a'],
    ]);
    expect(names(`${ESC}[\rx`)).toEqual(['alt-[', 'enter', 'x']);
  });

  test('a CSI that never ends is passed on once it is too long to be one', () => {
    const parser = new InputParser();
    expect(parser.feed(`${ESC}[${'1;'.repeat(40)}`)).toEqual([expect.objectContaining({ type: 'key', name: null })]);
    expect(parser.pendingEscape).toBe(false);
  });
});

describe('escape timing', () => {
  test('a lone ESC is held until flush, then it is the Escape key', () => {
    const parser = new InputParser();
    expect(parser.feed(ESC)).toEqual([]);
    expect(parser.pendingEscape).toBe(true);
    expect(parser.flush()).toEqual([expect.objectContaining({ name: 'escape', sequence: ESC })]);
    expect(parser.pendingEscape).toBe(false);
    expect(parser.flush()).toEqual([]);
  });

  test('a sequence split across chunks is put back together without a flush', () => {
    const parser = new InputParser();
    expect(parser.feed(ESC)).toEqual([]);
    expect(parser.feed('[1;')).toEqual([]);
    expect(parser.pendingEscape).toBe(true);
    expect(parser.feed('5A')).toEqual([expect.objectContaining({ name: 'ctrl-up', sequence: `${ESC}[1;5A` })]);
    expect(parser.pendingEscape).toBe(false);
  });

  test('what a flush finds half done becomes keys', () => {
    expect(names(`${ESC}[`)).toEqual(['alt-[']);
    expect(names(`${ESC}O`)).toEqual(['alt-O']);
    expect(names(`${ESC}${ESC}`)).toEqual(['alt-escape']);
    expect(parse(`${ESC}[1;`)).toEqual([expect.objectContaining({ name: null, sequence: `${ESC}[1;` })]);
    expect(names(`${ESC}]`)).toEqual(['alt-]']);
  });

  test('Alt with a string introducer followed by typing is a key, not a swallowed OSC or DCS', () => {
    const parser = new InputParser();
    expect(parser.feed(`${ESC}P`)).toEqual([]);
    expect(parser.pendingEscape).toBe(true);
    expect(parser.feed('x').map((e) => e.type === 'key' && e.name)).toEqual(['alt-P', 'x']);
    expect(names(`${ESC}]ab`)).toEqual(['alt-]', 'a', 'b']);
  });

  test('a terminal reply whose ST is split across chunks stays one sequence', () => {
    const parser = new InputParser();
    expect(parser.feed(`${ESC}]11;rgb:0/0/0${ESC}`)).toEqual([]);
    expect(parser.feed('\\')).toEqual([expect.objectContaining({ name: null, sequence: `${ESC}]11;rgb:0/0/0${ESC}\\` })]);
  });

  test('UTF-8 bytes split across chunks make whole characters', () => {
    const bytes = new TextEncoder().encode('中😀é');
    const chunks = Array.from(bytes, (byte) => Uint8Array.of(byte));
    expect(names(...chunks)).toEqual(['中', '😀', 'é']);
  });

  test('a string chunk cut inside a surrogate pair makes a whole character, and is not an escape', () => {
    const parser = new InputParser();
    expect(parser.feed('a\ud83d')).toEqual([expect.objectContaining({ name: 'a' })]);
    expect(parser.pendingEscape).toBe(false);
    expect(parser.feed('\ude00')).toEqual([expect.objectContaining({ name: '😀' })]);
  });
});

describe('paste, mouse and focus', () => {
  test('a bracketed paste is one event with everything between the markers, escapes included', () => {
    expect(parse(`a${ESC}[200~line one\r${ESC}[Aline two${ESC}[201~b`)).toEqual([
      expect.objectContaining({ name: 'a' }),
      { type: 'paste', text: `line one\r${ESC}[Aline two` },
      expect.objectContaining({ name: 'b' }),
    ]);
  });

  test('a paste split anywhere, markers included, is the same paste; an open paste is not an escape to flush', () => {
    const stream = `${ESC}[200~x${ESC}[201y${ESC}[201~z`;
    for (let cut = 1; cut < stream.length; cut++) {
      expect(parse(stream.slice(0, cut), stream.slice(cut))).toEqual([{ type: 'paste', text: `x${ESC}[201y` }, expect.objectContaining({ name: 'z' })]);
    }
    const parser = new InputParser();
    expect(parser.feed(`${ESC}[200~abc${ESC}[20`)).toEqual([]);
    expect(parser.pendingEscape).toBe(false);
    expect(parser.flush()).toEqual([]);
    expect(parser.feed('1~')).toEqual([{ type: 'paste', text: 'abc' }]);
  });

  test.each([
    [`${ESC}[<0;10;5M`, { action: 'press', button: 'left', x: 10, y: 5 }],
    [`${ESC}[<0;10;5m`, { action: 'release', button: 'left' }],
    [`${ESC}[<1;1;1M`, { action: 'press', button: 'middle' }],
    [`${ESC}[<2;300;200M`, { action: 'press', button: 'right', x: 300, y: 200 }],
    [`${ESC}[<32;11;5M`, { action: 'drag', button: 'left' }],
    [`${ESC}[<35;12;6M`, { action: 'move', button: 'none' }],
    [`${ESC}[<64;3;4M`, { action: 'wheel', button: 'wheel-up' }],
    [`${ESC}[<65;3;4M`, { action: 'wheel', button: 'wheel-down' }],
    [`${ESC}[<66;3;4M`, { action: 'wheel', button: 'wheel-left' }],
    [`${ESC}[<128;3;4M`, { action: 'press', button: 'button8' }],
    [`${ESC}[<4;1;1M`, { shift: true, alt: false, ctrl: false }],
    [`${ESC}[<8;1;1M`, { shift: false, alt: true, ctrl: false }],
    [`${ESC}[<16;1;1M`, { shift: false, alt: false, ctrl: true }],
    [`${ESC}[<84;1;1M`, { action: 'wheel', button: 'wheel-up', shift: true, ctrl: true }],
  ])('SGR mouse %j', (sequence, expected) => {
    expect(parse(sequence)).toEqual([expect.objectContaining({ type: 'mouse', ...expected })]);
  });

  test('a malformed mouse report is passed on as a key', () => {
    expect(parse(`${ESC}[<1;2M`)).toEqual([expect.objectContaining({ type: 'key', name: null, sequence: `${ESC}[<1;2M` })]);
  });

  test('focus in and out', () => {
    expect(parse(`${ESC}[I${ESC}[O`)).toEqual([
      { type: 'focus', focused: true },
      { type: 'focus', focused: false },
    ]);
  });
});

// What the terminal can send, as canonical text: every token below is parsed back to itself.
const token = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '中', '😀', 'é', '\r', '\t', '\x7f', '\x02', '\x00'), minLength: 1, maxLength: 4 }),
  fc.constantFrom(`${ESC}[A`, `${ESC}OB`, `${ESC}[1;5C`, `${ESC}[3~`, `${ESC}[24;2~`, `${ESC}OP`, `${ESC}[Z`, `${ESC}[99~`, `${ESC}[?1;2c`, `${ESC}x`, `${ESC}${ESC}[D`, `${ESC}${ESC}[99~`, `${ESC}${ESC}`, ESC),
  fc.constantFrom(`${ESC}[I`, `${ESC}[O`),
  fc
    .tuple(
      fc.oneof(fc.constantFrom(0, 1, 2, 32, 33, 34, 35, 64, 65, 66, 67, 128)),
      fc.constantFrom(0, 4, 8, 16, 28),
      fc.integer({ min: 1, max: 400 }),
      fc.integer({ min: 1, max: 200 }),
      fc.boolean(),
    )
    .map(([button, modifiers, x, y, release]) => `${ESC}[<${button + modifiers};${x};${y}${release && button < 3 ? 'm' : 'M'}`),
  fc.string({ unit: fc.constantFrom('p', '\r', ESC, '[', '2', '0', '1', '~', '中'), maxLength: 12 }).map((text) => `${ESC}[200~${text.split(`${ESC}[201~`).join('')}${ESC}[201~`),
);

/** The bytes an event stands for, in canonical form. */
function bytesOf(event: InputEvent): string {
  switch (event.type) {
    case 'key':
      return event.sequence;
    case 'paste':
      return `${ESC}[200~${event.text}${ESC}[201~`;
    case 'focus':
      return event.focused ? `${ESC}[I` : `${ESC}[O`;
    case 'mouse':
      return encodeMouse(event, { x: 0, y: 0, width: 10_000, height: 10_000 }, { mouseTracking: 'any', mouseEncoding: 'sgr' })!;
  }
}

test('any split of a stream into chunks gives the events of the whole stream, and no byte is lost', () => {
  fc.assert(
    fc.property(fc.array(token, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 8 }), (tokens, cuts) => {
      const stream = tokens.join('');
      const whole = parse(stream);
      const points = [...new Set(cuts.map((cut) => cut % (stream.length + 1)))].sort((a, b) => a - b);
      const chunks = [0, ...points].map((start, i) => stream.slice(start, points[i] ?? stream.length));
      expect(parse(...chunks)).toEqual(whole);
      expect(whole.map(bytesOf).join('')).toBe(stream);
    }),
    { numRuns: 500 },
  );
});
