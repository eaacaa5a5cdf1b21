import { encode, encodeQuery, parse, replyFor, sanitizeForDisplay } from '../src';
import { report, scanOne } from './helpers';

describe('encode (OSC7501.md §14)', () => {
  test('keys in the fixed order, ST by default', () => {
    expect(
      encode({ msg: 'Apply?', app: 'deploy', progress: 5, id: 'a/b', kind: 'permission', state: 'blocked', title: 'T' }),
    ).toBe('\x1b]7501;state=blocked:kind=permission:id=a/b:progress=5:app=deploy:title=VA==:msg=QXBwbHk/\x1b\\');
  });

  test('BEL when asked', () => {
    expect(encode({ state: 'idle' }, { terminator: 'bel' })).toBe('\x1b]7501;state=idle\x07');
  });

  test('base64 is padded, and null or empty fields are left out', () => {
    expect(encode({ state: 'done', msg: 'Plan', title: '', app: null })).toBe('\x1b]7501;state=done:msg=UGxhbg==\x1b\\');
  });

  test('clear, with and without an id', () => {
    expect(scanOne(encode({ state: 'clear' }))).toEqual({ type: 'clear', id: null });
    expect(scanOne(encode({ state: 'clear', id: 'build' }))).toEqual({ type: 'clear', id: 'build' });
  });

  test('what it encodes scans back to the same report', () => {
    const text = 'approve Bash: rm -rf build · 安全';
    expect(scanOne(encode({ state: 'blocked', kind: 'question', msg: text }))).toEqual(
      report({ state: 'blocked', kind: 'question', msg: text }),
    );
  });

  test.each([
    ['an unknown state', { state: 'sleeping' }, /state/],
    ['an unknown kind', { state: 'blocked', kind: 'dance' }, /kind/],
    ['kind without blocked', { state: 'done', kind: 'auth' }, /kind/],
    ['progress on done', { state: 'done', progress: 5 }, /progress/],
    ['progress over 100', { state: 'working', progress: 101 }, /progress/],
    ['fractional progress', { state: 'working', progress: 4.5 }, /progress/],
    ['an invalid id', { state: 'idle', id: 'a//b' }, /id/],
    ['an id that smuggles a field', { state: 'idle', id: 'a:state=done' }, /id/],
    ['a 33-byte app', { state: 'idle', app: 'a'.repeat(33) }, /app/],
    ['an app with a slash', { state: 'idle', app: 'a/b' }, /app/],
    ['a padded app', { state: 'idle', app: ' a' }, /app/],
    ['a message with a newline', { state: 'done', msg: 'a\nb' }, /msg/],
    ['a message with a C1 control', { state: 'done', msg: 'a\u0085' }, /msg/],
    ['a message over 2048 bytes', { state: 'done', msg: 'é'.repeat(1025) }, /msg/],
    ['a title over 192 bytes', { state: 'done', title: 't'.repeat(193) }, /title/],
    ['an unpaired surrogate', { state: 'done', msg: 'a\ud800' }, /msg/],
  ])('refuses %s', (_name, input, field) => {
    expect(() => encode(input as never)).toThrow(field);
  });

  test('the largest report fits in one sequence', () => {
    const largest = encode({
      state: 'blocked',
      kind: 'permission',
      id: ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32), 'd'.repeat(29)].join('/'),
      progress: 100,
      app: 'x'.repeat(32),
      title: 't'.repeat(192),
      msg: 'm'.repeat(2048),
    });
    expect(Buffer.byteLength(largest)).toBeLessThanOrEqual(4096);
    expect(scanOne(largest).type).toBe('report');
  });
});

describe('query and reply (§7)', () => {
  test('the query is ESC ] 7501 ; ? ST unless asked for BEL', () => {
    expect(encodeQuery()).toBe('\x1b]7501;?\x1b\\');
    expect(encodeQuery('bel')).toBe('\x1b]7501;?\x07');
    expect(parse('?')).toEqual({ type: 'query', terminator: 'st' });
  });

  test('the reply is fixed bytes in the query\'s own terminator', () => {
    const body = '\x1b]7501;?:states=idle,working,done,blocked,error:kinds=permission,question,auth';
    expect(Buffer.byteLength(body)).toBe(78);
    expect(replyFor({ terminator: 'bel' })).toBe(body + '\x07');
    expect(replyFor({ terminator: 'st' })).toBe(body + '\x1b\\');
  });
});

describe('display (§11)', () => {
  test('bidi controls and invisible format characters are removed for display', () => {
    expect(sanitizeForDisplay('a\u202eb\u2066c\u200bd\ufeffe\u00adf\u061cg\u2060h')).toBe('abcdefgh');
    expect(sanitizeForDisplay('Apply? 安全 ✓')).toBe('Apply? 安全 ✓');
  });
});
