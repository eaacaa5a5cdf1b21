import { Scanner } from '../src';
import { BEL, ESC, ST, b64, osc, report, scanAll, scanOne } from './helpers';

const discarded = expect.objectContaining({ type: 'discarded' });

/** A body of exactly `bytes` bytes that parses as idle. */
function bodyOf(bytes: number): string {
  const head = 'state=idle:pad=';
  return head + 'a'.repeat(bytes - head.length);
}

describe('framing (OSC7501.md §2)', () => {
  test('ST and BEL both terminate', () => {
    expect(scanOne(osc('state=working', ST))).toEqual(report({ state: 'working' }));
    expect(scanOne(osc('state=working', BEL))).toEqual(report({ state: 'working' }));
  });

  test('the sequence is consumed and the text around it passes through', () => {
    expect(scanAll(`before${osc('state=idle')}after`)).toEqual({ items: [report({})], text: 'beforeafter' });
  });

  test.each([
    ['75010;', `${ESC}]75010;state=idle${ST}`],
    ['750;', `${ESC}]750;state=idle${ST}`],
    ['75;', `${ESC}]75;state=idle${ST}`],
    ['7501 without ;', `${ESC}]7501${ST}`],
    ['an 8-bit OSC', `\u009d7501;state=idle${BEL}`],
    ['no ESC', `]7501;state=idle${BEL}`],
  ])('%s is not OSC 7501: no item, and every byte passes through', (_name, input) => {
    expect(scanAll(input)).toEqual({ items: [], text: input });
  });

  test('0x9C is not a terminator', () => {
    const { items, text } = scanAll(`${ESC}]7501;state=working:note=\u009c:app=x${ST}tail`);
    expect(items).toEqual([report({ state: 'working', app: 'x' })]);
    expect(text).toBe('tail');
  });

  describe('size limit: 4096 bytes for the whole sequence', () => {
    test('with ST a body of 4087 bytes is accepted and 4088 discarded', () => {
      expect(scanOne(osc(bodyOf(4087), ST))).toEqual(report({}));
      expect(scanOne(osc(bodyOf(4088), ST))).toEqual({ type: 'discarded', reason: 'sequence_too_long' });
    });

    test('with BEL a body of 4088 bytes is accepted and 4089 discarded', () => {
      expect(scanOne(osc(bodyOf(4088), BEL))).toEqual(report({}));
      expect(scanOne(osc(bodyOf(4089), BEL))).toEqual({ type: 'discarded', reason: 'sequence_too_long' });
    });

    test('limits count UTF-8 bytes, not characters', () => {
      // 1362 × "é" in an unknown value is 2724 bytes
      const wide = (n: number) => `state=idle:x=${'a'.repeat(n - 13 - 2 * 1362)}${'é'.repeat(1362)}`;
      expect(scanOne(osc(wide(4087)))).toEqual(report({}));
      expect(scanOne(osc(wide(4088)))).toEqual(discarded);
      expect(scanOne(new Uint8Array(Buffer.from(osc(wide(4087)))) as never)).toEqual(report({}));
    });

    test('an oversized sequence is consumed to its terminator and its bytes never pass through', () => {
      const { items, text } = scanAll(`a${osc('state=idle:x=' + 'z'.repeat(1_000_000))}b`);
      expect(items).toEqual([{ type: 'discarded', reason: 'sequence_too_long' }]);
      expect(text).toBe('ab');
    });

    test('capture is bounded: a megabyte-long body is counted, not stored', () => {
      const scanner = new Scanner();
      const chunk = 'y'.repeat(64 * 1024);
      scanner.feed(`${ESC}]7501;state=idle:x=`);
      for (let i = 0; i < 64; i++) expect(scanner.feed(chunk)).toEqual({ items: [], text: '' });
      expect(scanner.feed(ST).items).toEqual([{ type: 'discarded', reason: 'sequence_too_long' }]);
      expect((scanner as unknown as { body: Uint8Array }).body.length).toBeLessThanOrEqual(4096);
    });
  });

  describe('control bytes inside the sequence', () => {
    test('C0 bytes other than ESC, BEL, CAN and SUB are dropped and not counted', () => {
      expect(scanOne(osc('sta\x00te=wo\x01rk\x1fing:app=ca\nrgo\r'))).toEqual(report({ state: 'working', app: 'cargo' }));
      const body = bodyOf(4087).replace(/a/g, 'a\x01'); // doubles the pad, but the C0 bytes do not count
      expect(scanOne(osc(body))).toEqual(report({}));
    });

    test('CAN or SUB aborts the sequence: nothing is applied and nothing passes through', () => {
      expect(scanAll(`x${ESC}]7501;state=working\x18y`)).toEqual({ items: [], text: 'xy' });
      expect(scanAll(`x${ESC}]7501;state=working\x1ay${osc('state=done')}`)).toEqual({
        items: [report({ state: 'done' })],
        text: 'xy',
      });
    });

    test('an ESC not followed by \\ ends the sequence there and begins the next escape sequence', () => {
      expect(scanAll(`${ESC}]7501;state=working${ESC}[0m`)).toEqual({
        items: [report({ state: 'working' })],
        text: `${ESC}[0m`,
      });
      expect(scanAll(`${ESC}]7501;state=idle${ESC}]7501;state=working${ST}`)).toEqual({
        items: [report({ state: 'idle' }), report({ state: 'working' })],
        text: '',
      });
      expect(scanAll(`${ESC}]7501;state=idle${ESC}${ESC}[1m`)).toEqual({ items: [report({})], text: `${ESC}${ESC}[1m` });
    });

    test('bytes >= 0x80 are kept in the body and make their field invisible', () => {
      expect(scanOne(osc('state=working:app=caf\u00e9'))).toEqual(report({ state: 'working' }));
      expect(scanOne(osc('state=working:id=caf\u00e9'))).toEqual(discarded);
    });
  });

  test('sequences and text keep stream order', () => {
    const scanner = new Scanner();
    const input = `a${osc('state=working')}b${osc('?', BEL)}c${osc('state=clear')}d`;
    expect(scanner.split(input)).toEqual([
      'a',
      report({ state: 'working' }),
      'b',
      { type: 'query', terminator: 'bel' },
      'c',
      { type: 'clear', id: null },
      'd',
    ]);
  });
});

test('split gives byte chunks back as bytes, never decoded', () => {
  const bytes = Uint8Array.from([0xff, 0x41, ...Buffer.from(osc('state=idle')), 0xfe]);
  const pieces = new Scanner().split(bytes);
  expect(pieces).toEqual([Uint8Array.of(0xff, 0x41), report({}), Uint8Array.of(0xfe)]);
});

describe('query (§7)', () => {
  test('a BEL query is answered with BEL, an ST or ESC-ended query with ST', () => {
    expect(scanOne(osc('?', BEL))).toEqual({ type: 'query', terminator: 'bel' });
    expect(scanOne(osc('?', ST))).toEqual({ type: 'query', terminator: 'st' });
    expect(scanAll(`${ESC}]7501;?${ESC}[c`)).toEqual({ items: [{ type: 'query', terminator: 'st' }], text: `${ESC}[c` });
  });

  test('a query and the DA1 after it keep their order', () => {
    // Claude Code writes the query and DA1 back to back (REFERENCE.md §6.2)
    expect(new Scanner().split(`${osc('?', BEL)}${ESC}[c`)).toEqual([{ type: 'query', terminator: 'bel' }, `${ESC}[c`]);
  });

  test.each(['??', ' ? '])('%p is discarded with no query', (body) => {
    expect(scanOne(osc(body, BEL))).toEqual(discarded);
  });
});

describe('worked examples (§13)', () => {
  test.each([
    [osc('state=working'), report({ state: 'working' })],
    [osc('state=working:id=build/test:progress=40', BEL), report({ state: 'working', id: 'build/test', progress: 40 })],
    [osc('state=blocked:kind=permission:app=deploy:msg=QXBwbHk/'), report({ state: 'blocked', kind: 'permission', app: 'deploy', msg: 'Apply?' })],
    [osc(' state = working : app=cargo '), report({ state: 'working', app: 'cargo' })],
    [osc('state=idle:future=yes:oops'), report({ state: 'idle' })],
    [osc('garbage:=x:Bad=1:app=b@d:state=working:app=ok:::'), report({ state: 'working', app: 'ok' })],
    [osc('state=IDLE'), discarded],
    [osc('progress=50'), discarded],
    [osc(''), discarded],
    [osc(`state=idle:${'a'.repeat(17)}=1`), discarded],
    [osc(`state=idle:${'a'.repeat(16)}=1`), report({ state: 'idle' })],
    [osc('state=done:kind=auth:progress=10'), report({ state: 'done' })],
    [osc('state=working:kind=auth:progress=10'), report({ state: 'working', progress: 10 })],
    [osc('state=blocked:kind=dance'), report({ state: 'blocked' })],
    [osc('state=working:progress=007'), report({ state: 'working', progress: 7 })],
    [osc('state=working:progress=101'), report({ state: 'working' })],
    [osc('state=working:progress=+1'), report({ state: 'working' })],
    [osc('state=idle:app=a/b'), report({ state: 'idle' })],
    [osc(`state=idle:app=${'a'.repeat(33)}:app=ok`), discarded],
    [osc('state=clear:id=a//b'), discarded],
    [osc('state=clear:id='), discarded],
    [osc('state=clear:id=bad!'), discarded],
    [osc('state=done:msg=UGxhbg'), report({ state: 'done', msg: 'Plan' })],
    [osc('state=done:msg=5a6J5YWo'), report({ state: 'done', msg: '安全' })],
    [osc('state=done:msg=YQpi'), discarded],
    [osc('state=done:msg=wps='), discarded],
    [osc('state=done:msg=/w=='), discarded],
    [osc('state=done:msg=QQ='), discarded],
    [osc('state=done:msg=:title='), report({ state: 'done' })],
    [osc('state=done:msg=has space'), report({ state: 'done' })],
    [osc('state=done:msg=!!'), report({ state: 'done' })],
    [osc('state=clear:id=task:msg=!!'), { type: 'clear', id: 'task' }],
    [osc('?', BEL), { type: 'query', terminator: 'bel' }],
    [osc('?', ST), { type: 'query', terminator: 'st' }],
    [osc('??'), discarded],
    [osc(' ? '), discarded],
    [osc(`state=done:title=${b64('Plan')}`), report({ state: 'done', title: 'Plan' })],
  ])('%j', (input, expected) => {
    expect(scanOne(input)).toEqual(expected);
  });
});

describe('chunks', () => {
  test('a sequence split at every position gives the same item and text', () => {
    const input = `ab${osc('state=blocked:kind=permission:msg=QXBwbHk/')}cd${osc('?', BEL)}e${ESC}]7501;state=done${ESC}[0m`;
    const whole = scanAll(input);
    for (let cut = 0; cut <= input.length; cut++) {
      const scanner = new Scanner();
      const first = scanner.feed(input.slice(0, cut));
      const second = scanner.feed(input.slice(cut));
      expect({ items: [...first.items, ...second.items], text: first.text + second.text + scanner.flush() }).toEqual(whole);
    }
  });

  test('a partial introducer at the end of a chunk is held back, then released when it is not one', () => {
    const scanner = new Scanner();
    expect(scanner.feed(`text${ESC}]75`)).toEqual({ items: [], text: 'text' });
    expect(scanner.feed('0;x')).toEqual({ items: [], text: `${ESC}]750;x` });
    expect(scanner.feed(`${ESC}`)).toEqual({ items: [], text: '' });
    expect(scanner.flush()).toBe(ESC);
  });

  test('byte chunks split inside a UTF-8 character pass it through whole', () => {
    const bytes = Buffer.from(`日本${osc('state=idle')}語`);
    const scanner = new Scanner();
    let text = '';
    const items = [];
    for (const byte of bytes) {
      const result = scanner.feed(Uint8Array.of(byte));
      text += result.text;
      items.push(...result.items);
    }
    expect({ items, text: text + scanner.flush() }).toEqual({ items: [report({})], text: '日本語' });
  });

  test('flush drops a sequence that never ended', () => {
    const scanner = new Scanner();
    expect(scanner.feed(`a${ESC}]7501;state=working`)).toEqual({ items: [], text: 'a' });
    expect(scanner.flush()).toBe('');
    expect(scanAll('after')).toEqual({ items: [], text: 'after' });
  });
});
