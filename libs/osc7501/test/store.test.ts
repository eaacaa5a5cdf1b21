import { Store, parse, type Parsed } from '../src';

function feed(store: Store, ...bodies: string[]) {
  return bodies.flatMap((body) => store.apply(parse(body)));
}

const ids = (store: Store) => store.records().map((r) => r.id);

describe('records (OSC7501.md §8)', () => {
  test('one record per id; a report replaces its record completely', () => {
    const store = new Store();
    feed(store, 'state=working:progress=40:app=cargo:msg=UGxhbg==', 'state=working');
    expect(store.records()).toEqual([
      { id: null, state: 'working', kind: null, progress: null, app: null, effectiveApp: null, title: null, msg: null },
    ]);
  });

  test('records list the root first, then ids in byte order', () => {
    const store = new Store();
    feed(store, 'state=idle:id=b', 'state=idle:id=B', 'state=idle:id=a/b', 'state=idle', 'state=idle:id=a');
    expect(ids(store)).toEqual([null, 'B', 'a', 'a/b', 'b']);
  });

  test('changes name what happened', () => {
    const store = new Store();
    expect(store.apply(parse('state=working:id=x'))).toEqual([{ type: 'set', id: 'x' }]);
    expect(store.apply(parse('state=clear:id=x'))).toEqual([{ type: 'removed', id: 'x' }]);
    expect(store.apply(parse('state=clear:id=x'))).toEqual([]);
  });

  test('queries and discarded reports change nothing', () => {
    const store = new Store();
    feed(store, 'state=working');
    expect(store.apply({ type: 'query', terminator: 'bel' })).toEqual([]);
    expect(feed(store, 'state=clear:id=a//b', 'state=IDLE')).toEqual([]);
    expect(store.get(null)?.state).toBe('working');
  });

  test('a child report never changes its parent, and the parent need not exist', () => {
    const store = new Store();
    feed(store, 'state=working:id=deploy', 'state=error:id=deploy/us-east');
    expect(store.get('deploy')?.state).toBe('working');
    feed(store, 'state=done:id=x/y/z');
    expect(ids(store)).toEqual(['deploy', 'deploy/us-east', 'x/y/z']);
  });

  test('clear removes an id and its subtree, never ids that only share a prefix', () => {
    const store = new Store();
    feed(store, 'state=working:id=build', 'state=working:id=build/test', 'state=idle:id=buildx');
    expect(feed(store, 'state=clear:id=build')).toEqual([
      { type: 'removed', id: 'build' },
      { type: 'removed', id: 'build/test' },
    ]);
    expect(ids(store)).toEqual(['buildx']);
  });

  test('clear without an id removes every record', () => {
    const store = new Store();
    feed(store, 'state=working', 'state=idle:id=a', 'state=done:id=b');
    feed(store, 'state=clear');
    expect(store.records()).toEqual([]);
  });

  test('a child inherits the app of its nearest ancestor that has one, live', () => {
    const store = new Store();
    feed(store, 'state=working:app=cargo', 'state=working:id=a/b');
    expect(store.get('a/b')?.effectiveApp).toBe('cargo');
    expect(store.get('a/b')?.app).toBeNull();
    feed(store, 'state=idle:id=a:app=npm');
    expect(store.get('a/b')?.effectiveApp).toBe('npm');
    feed(store, 'state=idle:id=a');
    expect(store.get('a/b')?.effectiveApp).toBe('cargo');
    feed(store, 'state=clear:id=a', 'state=working:id=a/b/c', 'state=idle');
    expect(store.get('a/b/c')?.effectiveApp).toBeNull();
  });

  test('the current record is the root, else the most recently updated', () => {
    const store = new Store();
    expect(store.current()).toBeNull();
    feed(store, 'state=working:id=a', 'state=blocked:id=b', 'state=working:id=a');
    expect(store.current()?.id).toBe('a');
    feed(store, 'state=idle');
    feed(store, 'state=done:id=b');
    expect(store.current()?.id).toBeNull();
  });
});

describe('capacity and eviction (§9)', () => {
  test.each([
    [undefined, 256],
    [10, 64],
    [64, 64],
    [100, 100],
    [1000, 256],
    [Number.NaN, 256],
  ])('capacity %p is %d', (capacity, expected) => {
    expect(new Store({ capacity }).capacity).toBe(expected);
  });

  test('the least recently updated record is evicted, exactly one, for a new id', () => {
    const store = new Store({ capacity: 64 });
    for (let i = 0; i < 64; i++) feed(store, `state=working:id=r${i}`);
    expect(feed(store, 'state=working:id=r63')).toEqual([{ type: 'set', id: 'r63' }]);
    expect(feed(store, 'state=working:id=r64')).toEqual([
      { type: 'evicted', id: 'r0' },
      { type: 'set', id: 'r64' },
    ]);
    feed(store, 'state=idle:id=r1');
    expect(feed(store, 'state=working:id=r65')[0]).toEqual({ type: 'evicted', id: 'r2' });
    expect(store.size).toBe(64);
  });

  test('the root record has no protection', () => {
    const store = new Store({ capacity: 64 });
    feed(store, 'state=working');
    for (let i = 0; i < 64; i++) feed(store, `state=idle:id=r${i}`);
    expect(store.get(null)).toBeNull();
  });

  test('reads and discarded reports do not touch the order; a byte-identical report does', () => {
    const store = new Store({ capacity: 64 });
    for (let i = 0; i < 64; i++) feed(store, `state=working:id=r${i}`);
    store.get('r0');
    store.records();
    feed(store, 'state=bogus:id=r0');
    expect(feed(store, 'state=idle:id=n1')[0]).toEqual({ type: 'evicted', id: 'r0' });
    feed(store, 'state=working:id=r1'); // identical to what it was
    expect(feed(store, 'state=idle:id=n2')[0]).toEqual({ type: 'evicted', id: 'r2' });
  });

  test('clears free slots', () => {
    const store = new Store({ capacity: 64 });
    for (let i = 0; i < 64; i++) feed(store, `state=working:id=r${i}`);
    feed(store, 'state=clear:id=r10');
    expect(feed(store, 'state=idle:id=new')).toEqual([{ type: 'set', id: 'new' }]);
  });
});

describe('lifetime (§10)', () => {
  function populated(options?: ConstructorParameters<typeof Store>[0]) {
    const store = new Store(options);
    feed(store, 'state=working', 'state=blocked:id=a', 'state=done:id=b', 'state=idle:id=c', 'state=error:id=d');
    return store;
  }

  test('prompt start drops working and blocked, keeps idle, done and error', () => {
    const store = populated();
    expect(store.promptStart()).toEqual([
      { type: 'removed', id: null },
      { type: 'removed', id: 'a' },
    ]);
    expect(ids(store)).toEqual(['b', 'c', 'd']);
  });

  test('a user keystroke then drops done and error; a reset drops everything', () => {
    const store = populated();
    store.promptStart();
    expect(store.userInput()).toEqual([
      { type: 'removed', id: 'b' },
      { type: 'removed', id: 'd' },
    ]);
    expect(ids(store)).toEqual(['c']);
    store.reset();
    expect(store.records()).toEqual([]);
  });

  test('process exit drops working and blocked like a prompt start', () => {
    const store = populated();
    store.processExit();
    expect(ids(store)).toEqual(['b', 'c', 'd']);
  });

  test('user input keeps idle, working and blocked', () => {
    const store = populated();
    store.userInput();
    expect(ids(store)).toEqual([null, 'a', 'c']);
  });

  test('dropIdleOnLifetimeEvents also drops idle records, as an opt-in', () => {
    const store = populated({ dropIdleOnLifetimeEvents: true });
    store.promptStart();
    expect(ids(store)).toEqual(['b', 'd']);
  });
});

test('records are copies: changing one does not change the store', () => {
  const store = new Store();
  store.apply(parse('state=working') as Parsed);
  const record = store.get(null)!;
  record.state = 'done';
  expect(store.get(null)?.state).toBe('working');
});
