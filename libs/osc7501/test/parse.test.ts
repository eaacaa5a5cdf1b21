import { parse } from '../src';
import { b64, report } from './helpers';

const discarded = expect.objectContaining({ type: 'discarded' });

describe('body grammar (OSC7501.md §3)', () => {
  test('fields are split at colons, empty fields and fields without = are skipped', () => {
    expect(parse('state=idle:::future=yes:oops')).toEqual(report({ state: 'idle' }));
    expect(parse(':::state=working:::')).toEqual(report({ state: 'working' }));
  });

  test('a field splits at its first =, so base64 padding belongs to the value', () => {
    expect(parse('state=done:msg=UGxhbg==')).toEqual(report({ state: 'done', msg: 'Plan' }));
  });

  test('ASCII whitespace is trimmed from both ends of keys and values', () => {
    expect(parse(' state = working : app=cargo ')).toEqual(report({ state: 'working', app: 'cargo' }));
    expect(parse('\tstate\x0b=\x0cworking\r\n')).toEqual(report({ state: 'working' }));
  });

  test('a key over 16 bytes discards the report, even an unknown key; 16 bytes is fine', () => {
    expect(parse(`state=idle:${'a'.repeat(17)}=1`)).toEqual({ type: 'discarded', reason: 'too_long' });
    expect(parse(`state=idle:${'a'.repeat(16)}=1`)).toEqual(report({ state: 'idle' }));
    // bytes, not characters: 6 × "é" is 12 bytes, 9 × "é" is 18
    expect(parse(`state=idle:${'é'.repeat(8)}=1`)).toEqual(report({ state: 'idle' }));
    expect(parse(`state=idle:${'é'.repeat(9)}=1`)).toEqual(discarded);
  });

  test('known keys are exactly the lowercase seven; others are ignored', () => {
    expect(parse('garbage:=x:Bad=1:app=b@d:state=working:app=ok:::')).toEqual(report({ state: 'working', app: 'ok' }));
    expect(parse('STATE=working')).toEqual(discarded);
    expect(parse('state=working:APP=x')).toEqual(report({ state: 'working' }));
  });

  test('a value outside the alphabet makes its field invisible', () => {
    expect(parse('state=working:state=wo rking')).toEqual(report({ state: 'working' }));
    expect(parse('state=done:msg=has space')).toEqual(report({ state: 'done' }));
    expect(parse('state=done:msg=!!')).toEqual(report({ state: 'done' }));
    expect(parse('state=idle:app=caf\u00e9')).toEqual(report({ state: 'idle' }));
  });

  test('an invisible field is not checked against any limit', () => {
    expect(parse(`state=idle:app=${'a'.repeat(40)}!`)).toEqual(report({ state: 'idle' }));
    expect(parse(`state=idle:title=${'A'.repeat(300)} `)).toEqual(discarded); // trailing space is trimmed: visible
    expect(parse(`state=idle:title=${'A'.repeat(300)}@`)).toEqual(report({ state: 'idle' }));
  });

  test('the last visible occurrence of a key counts', () => {
    expect(parse('state=idle:app=a:state=done:app=b')).toEqual(report({ state: 'done', app: 'b' }));
    expect(parse('state=working:state=sleeping')).toEqual(discarded);
    expect(parse('state=blocked:kind=question:kind=dance')).toEqual(report({ state: 'blocked' }));
    expect(parse('state=done:msg=a:msg=UGxhbg==')).toEqual(report({ state: 'done', msg: 'Plan' }));
  });

  test('limits apply to every visible occurrence, even a replaced one', () => {
    expect(parse(`state=idle:app=${'a'.repeat(33)}:app=ok`)).toEqual({ type: 'discarded', reason: 'too_long' });
    expect(parse(`state=idle:msg=${'A'.repeat(2736)}:msg=`)).toEqual(discarded);
    expect(parse(`state=idle:title=${'A'.repeat(260)}:title=UGxhbg==`)).toEqual(discarded);
    expect(parse(`state=idle:id=${'a'.repeat(33)}:id=ok`)).toEqual(discarded);
  });

  test('field order carries no meaning', () => {
    expect(parse('app=x:progress=5:state=working')).toEqual(parse('state=working:progress=5:app=x'));
  });
});

describe('state (§4)', () => {
  test.each(['idle', 'working', 'done', 'blocked', 'error'] as const)('%s is a state', (state) => {
    expect(parse(`state=${state}`)).toEqual(report({ state }));
  });

  test.each(['', 'IDLE', 'sleeping', 'Working'])('state=%p discards the report', (state) => {
    expect(parse(`state=${state}`)).toEqual({ type: 'discarded', reason: 'missing_or_unknown_state' });
  });

  test('a report without state is discarded', () => {
    expect(parse('progress=50')).toEqual(discarded);
    expect(parse('')).toEqual(discarded);
    expect(parse('state')).toEqual(discarded);
  });

  test('clear is an action: all, or an id and its subtree', () => {
    expect(parse('state=clear')).toEqual({ type: 'clear', id: null });
    expect(parse('state=clear:id=build')).toEqual({ type: 'clear', id: 'build' });
  });

  test('every discard check applies to a clear', () => {
    expect(parse('state=clear:id=a//b')).toEqual(discarded);
    expect(parse('state=clear:id=')).toEqual(discarded);
    expect(parse('state=clear:id=bad!')).toEqual(discarded);
    expect(parse('state=clear:msg=QQ=')).toEqual(discarded);
    expect(parse('state=clear:id=task:msg=!!')).toEqual({ type: 'clear', id: 'task' });
  });
});

describe('kind and progress (§4)', () => {
  test.each(['permission', 'question', 'auth'] as const)('blocked takes kind %s', (kind) => {
    expect(parse(`state=blocked:kind=${kind}`)).toEqual(report({ state: 'blocked', kind }));
  });

  test('kind is absent when unknown or on any other state', () => {
    expect(parse('state=blocked:kind=dance')).toEqual(report({ state: 'blocked' }));
    expect(parse('state=done:kind=auth:progress=10')).toEqual(report({ state: 'done' }));
    expect(parse('state=working:kind=auth:progress=10')).toEqual(report({ state: 'working', progress: 10 }));
  });

  test.each([
    ['0', 0],
    ['100', 100],
    ['007', 7],
    ['0000000000000042', 42],
  ])('progress=%s reads %d', (value, expected) => {
    expect(parse(`state=working:progress=${value}`)).toEqual(report({ state: 'working', progress: expected }));
    expect(parse(`state=blocked:progress=${value}`)).toEqual(report({ state: 'blocked', progress: expected }));
  });

  test.each(['101', '256', '-1', '+1', '4.5', '1_0', '', '99999999999999999999', '1e2'])(
    'progress=%p is absent and the report kept',
    (value) => {
      expect(parse(`state=working:progress=${value}`)).toEqual(report({ state: 'working' }));
    },
  );

  test('progress is absent on idle, done and error', () => {
    for (const state of ['idle', 'done', 'error'] as const) {
      expect(parse(`state=${state}:progress=50`)).toEqual(report({ state }));
    }
  });
});

describe('app (§4)', () => {
  test('a name of 1-32 name characters', () => {
    expect(parse('state=idle:app=claude-code')).toEqual(report({ state: 'idle', app: 'claude-code' }));
    expect(parse('state=idle:app=A.b_c+d-9')).toEqual(report({ state: 'idle', app: 'A.b_c+d-9' }));
    expect(parse(`state=idle:app=${'a'.repeat(32)}`)).toEqual(report({ state: 'idle', app: 'a'.repeat(32) }));
  });

  test('over 32 bytes discards the report', () => {
    expect(parse(`state=idle:app=${'a'.repeat(33)}`)).toEqual({ type: 'discarded', reason: 'too_long' });
    expect(parse(`state=idle:app=${'a/'.repeat(17)}`)).toEqual(discarded);
  });

  test('other bytes of the value alphabet, or empty, leave app absent', () => {
    for (const app of ['a/b', 'a,b', 'a=b', '']) {
      expect(parse(`state=idle:app=${app}`)).toEqual(report({ state: 'idle' }));
    }
  });
});

describe('id (§4)', () => {
  test('1-8 segments joined by single slashes', () => {
    expect(parse('state=working:id=build/test:progress=40')).toEqual(
      report({ state: 'working', id: 'build/test', progress: 40 }),
    );
    const eight = Array.from({ length: 8 }, (_, i) => `s${i}`).join('/');
    expect(parse(`state=idle:id=${eight}`)).toEqual(report({ id: eight }));
    const wide = ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32), 'd'.repeat(29)].join('/');
    expect(wide).toHaveLength(128);
    expect(parse(`state=idle:id=${wide}`)).toEqual(report({ id: wide }));
  });

  test.each([
    ['empty', ''],
    ['a lone slash', '/'],
    ['a trailing slash', 'a/'],
    ['a leading slash', '/a'],
    ['a double slash', 'a//b'],
    ['a comma', 'a,b'],
    ['an equals sign', 'a=b'],
    ['a bang', 'bad!'],
    ['an inner space', 'a b'],
    ['a 33-byte segment', 'a'.repeat(33)],
    ['9 segments', Array.from({ length: 9 }, () => 'x').join('/')],
    ['129 bytes', ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32), 'd'.repeat(30)].join('/')],
    ['a non-ASCII byte', 'caf\u00e9'],
  ])('%s always discards the report', (_name, id) => {
    expect(parse(`state=idle:id=${id}`)).toEqual(discarded);
  });

  test('an invalid id anywhere discards, even when a later id is valid', () => {
    expect(parse('state=idle:id=a//b:id=ok')).toEqual(discarded);
    expect(parse('state=idle:id=ok:id=bad!')).toEqual(discarded);
  });
});

describe('title and msg (§5)', () => {
  test('standard base64, padded or not', () => {
    expect(parse('state=blocked:kind=permission:app=deploy:msg=QXBwbHk/')).toEqual(
      report({ state: 'blocked', kind: 'permission', app: 'deploy', msg: 'Apply?' }),
    );
    expect(parse('state=done:msg=UGxhbg')).toEqual(report({ state: 'done', msg: 'Plan' }));
    expect(parse('state=done:msg=5a6J5YWo')).toEqual(report({ state: 'done', msg: '安全' }));
    expect(parse(`state=idle:title=${b64('Build · step 2')}`)).toEqual(report({ title: 'Build · step 2' }));
  });

  test.each([
    ['one leftover character', 'a'],
    ['wrong padding', 'QQ='],
    ['non-zero unused bits', 'QR=='],
    ['the URL-safe alphabet', 'a-b_'],
    ['= in the middle', 'QQ==QQ=='],
    ['too much padding', 'QQ==='],
  ])('%s discards the report', (_name, value) => {
    expect(parse(`state=done:msg=${value}`)).toEqual({ type: 'discarded', reason: 'invalid_text' });
  });

  test.each([
    ['LF', 'YQpi'],
    ['TAB', b64('a\tb')],
    ['NUL', b64('a\0b')],
    ['DEL', b64('a\x7fb')],
    ['U+009B', 'wps='],
    ['U+0080', b64('\u0080')],
  ])('a decoded %s (a control character) discards the report', (_name, value) => {
    expect(parse(`state=done:msg=${value}`)).toEqual(discarded);
  });

  test('the decoded bytes must be UTF-8', () => {
    expect(parse('state=done:msg=/w==')).toEqual(discarded); // 0xFF
    expect(parse(`state=done:msg=${Buffer.from([0xc0, 0xaf]).toString('base64')}`)).toEqual(discarded); // overlong
    expect(parse(`state=done:msg=${Buffer.from([0xed, 0xa0, 0x80]).toString('base64')}`)).toEqual(discarded); // surrogate
    expect(parse(`state=done:msg=${Buffer.from([0xe5, 0xae]).toString('base64')}`)).toEqual(discarded); // truncated
  });

  test('text is stored exactly as decoded, bidi controls and a BOM included', () => {
    const text = '\ufeffa\u202eb\u200bc';
    expect(parse(`state=done:msg=${b64(text)}`)).toEqual(report({ state: 'done', msg: text }));
  });

  test('decoded size limits: title 192 bytes, msg 2048 bytes', () => {
    expect(parse(`state=idle:title=${b64('t'.repeat(192))}`)).toEqual(report({ title: 't'.repeat(192) }));
    expect(parse(`state=idle:title=${b64('t'.repeat(193))}`)).toEqual(discarded);
    expect(parse(`state=idle:msg=${b64('m'.repeat(2048))}`)).toEqual(report({ msg: 'm'.repeat(2048) }));
    // 2732 encoded bytes can decode to 2049: the encoded limit alone is not enough
    const justOver = b64('m'.repeat(2049)).replace(/=+$/, '');
    expect(justOver.length).toBeLessThanOrEqual(2732);
    expect(parse(`state=idle:msg=${justOver}`)).toEqual(discarded);
    expect(parse(`state=idle:title=${b64('é'.repeat(97))}`)).toEqual(discarded); // 194 bytes
  });

  test('encoded size limits: title 256 bytes, msg 2732 bytes', () => {
    expect(parse(`state=idle:title=${'A'.repeat(257)}`)).toEqual({ type: 'discarded', reason: 'too_long' });
    expect(parse(`state=idle:msg=${'A'.repeat(2733)}`)).toEqual({ type: 'discarded', reason: 'too_long' });
  });

  test('only the last visible occurrence is decoded', () => {
    expect(parse('state=done:msg=QQ=:msg=UGxhbg==')).toEqual(report({ state: 'done', msg: 'Plan' }));
    expect(parse('state=done:msg=UGxhbg==:msg=QQ=')).toEqual(discarded);
  });

  test('an empty value counts as absent', () => {
    expect(parse('state=done:msg=:title=')).toEqual(report({ state: 'done' }));
    expect(parse('state=done:msg=UGxhbg==:msg=')).toEqual(report({ state: 'done' }));
  });
});

describe('queries (§7)', () => {
  test('a body of exactly "?" is a query; the terminator is the caller\'s', () => {
    expect(parse('?')).toEqual({ type: 'query', terminator: 'st' });
    expect(parse('?', 'bel')).toEqual({ type: 'query', terminator: 'bel' });
  });

  test.each(['??', ' ? ', '?:x=1'])('%p is not a query but a stateless report', (body) => {
    expect(parse(body)).toEqual(discarded);
  });

  test('a "?" field beside a state is a bare field, skipped', () => {
    expect(parse('?:state=idle')).toEqual(report({ state: 'idle' }));
  });

  test('the reply, echoed back, is discarded: it has no state', () => {
    expect(parse('?:states=idle,working,done,blocked,error:kinds=permission,question,auth')).toEqual(discarded);
  });
});

describe('sizes', () => {
  test('a body longer than any terminated sequence can carry is discarded', () => {
    const pad = (n: number) => 'state=idle:x=' + 'a'.repeat(n - 'state=idle:x='.length);
    expect(parse(pad(4088))).toEqual(report({ state: 'idle' }));
    expect(parse(pad(4089))).toEqual({ type: 'discarded', reason: 'sequence_too_long' });
  });
});
