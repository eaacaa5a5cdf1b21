import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { ErrorCode, MAX_REQUEST_LINE_BYTES, PublicMethods, validate, type MethodTable } from '@paneflow/protocol';
import { startInstance, type Instance } from './helpers';
import { scaled } from '@paneflow/testing';

/**
 * The socket-abuse campaign as a test: every public method gets malformed requests — params of
 * the wrong types, huge strings, unknown fields, ids JSON-RPC does not allow, truncated lines,
 * binary garbage — from a fixed seed. Each answer must be the JSON-RPC error the request earns,
 * or, for a request that happens to be valid, a result of its method's shape; serve must live
 * through all of it with its files valid JSON, and serve a normal client afterwards.
 */
const SEED = 7501;
const RUNS_PER_METHOD = 8;
const methods = PublicMethods as MethodTable;
const names = Object.keys(methods);

/**
 * Valid by chance, these would stop serve, end the panes the other requests aim at, start
 * processes, or wait up to 30 s: they are sent only malformed (an unknown field added).
 */
const ONLY_MALFORMED = new Set([
  'serve.shutdown',
  'workspace.close',
  'surface.close',
  'workspace.create',
  'surface.split',
  'workspace.up',
  'surface.wait_ready',
  'surface.restart',
  'session.restore',
]);
const KNOWN_CODES = new Set<number>(Object.values(ErrorCode));

let pf: Instance;
beforeAll(async () => {
  // No capabilities: the gates keep valid writes (send_text, key, split with a command) harmless.
  pf = await startInstance();
  const first = await pf.call('workspace.create', { cwd: pf.dir });
  await pf.call('surface.split', { direction: 'v', surface_id: first.surface_id });
});
afterAll(() => pf.cleanup());

/** Sends bytes on a connection of its own: the first line that comes back, or null if it closes without one. */
function exchange(data: Buffer): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(pf.endpoints.publicSocket);
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer and no close in 20 s to ${data.subarray(0, 200).toString('utf8')}…`));
    }, scaled(20_000));
    const finish = (line: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(line);
    };
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      const nl = received.indexOf('\n');
      if (nl !== -1) finish(received.slice(0, nl));
    });
    // Serve may close a connection whose line is over the limit before taking all of it.
    socket.on('error', () => undefined);
    socket.on('close', () => finish(null));
    socket.write(data);
  });
}

/** Values of every JSON type, from plausible (small ids, `h`) to hostile (1e308, huge, control characters). */
const hugeString = fc
  .tuple(fc.constantFrom('a', '€', '\u0000', '\u001b]52;c;', '\u202e', '\ud83d\ude00'), fc.integer({ min: 16 * 1024, max: 200 * 1024 }))
  .map(([unit, count]) => unit.repeat(count));
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(0, 1, 2, 3, -1, 1.5, 1e308, -1e308, 2 ** 53, '', 'h', 'v', 'all', 'claude', '\u001b[2J', true, false, null, [], {}) },
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: hugeString },
);

type Case = { line: Buffer; id: unknown; params?: unknown; kind: 'request' | 'garbage' | 'truncated' };

function requestLine(method: string, id: unknown, params: unknown): Buffer {
  return Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }) + '\n');
}

/** A request for `method`: the schema's fields (some), values of any type, maybe an unknown field, an odd id. */
function cases(method: string): fc.Arbitrary<Case> {
  const schema = methods[method].params as { properties?: Record<string, unknown> };
  const fields = Object.keys(schema.properties ?? {});
  const params = fc
    .tuple(fc.subarray(fields), fc.array(value, { minLength: fields.length, maxLength: fields.length }), fc.option(fc.tuple(fc.string({ maxLength: 12 }), value)))
    .map(([chosen, values, unknown]) => {
      const object: Record<string, unknown> = Object.fromEntries(chosen.map((field, i) => [field, values[i]]));
      if (unknown && !fields.includes(unknown[0])) object[unknown[0]] = unknown[1];
      if (ONLY_MALFORMED.has(method) && validate(methods[method].params, object) === null) object.fuzz_unknown_field = 1;
      return object;
    });
  const goodId = fc.oneof(fc.integer(), fc.string({ maxLength: 40 }), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }));
  const badId = fc.oneof(fc.constant(true), fc.constant(false), fc.constant([]), fc.constant({}), fc.array(fc.integer(), { minLength: 1, maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { minKeys: 1, maxKeys: 3 }));
  const notAnObject = fc.oneof(fc.constant(null), fc.array(value, { maxLength: 3 }), fc.string({ maxLength: 20 }), fc.integer(), fc.boolean());
  const request = fc
    .tuple(fc.oneof({ weight: 5, arbitrary: goodId }, { weight: 1, arbitrary: badId }), fc.oneof({ weight: 6, arbitrary: params }, { weight: 1, arbitrary: notAnObject }))
    .map(([id, p]): Case => ({ line: requestLine(method, id, p), id, params: p, kind: 'request' }));
  const truncated = fc.tuple(params, fc.double({ min: 0.05, max: 0.95, noNaN: true })).map(([p, at]): Case => {
    const line = requestLine(method, 1, p);
    return { line: Buffer.concat([line.subarray(0, Math.max(1, Math.floor((line.length - 1) * at))), Buffer.from('\n')]), id: 1, kind: 'truncated' };
  });
  // Garbage whose first byte is no whitespace, so serve has a line to answer instead of waiting for one.
  const garbage = fc
    .tuple(fc.integer({ min: 0x21, max: 0xff }), fc.uint8Array({ maxLength: 4096 }))
    .map(([head, rest]): Case => ({ line: Buffer.concat([Buffer.from([head]), Buffer.from(rest), Buffer.from('\n')]), id: null, kind: 'garbage' }));
  return fc.oneof({ weight: 6, arbitrary: request }, { weight: 1, arbitrary: truncated }, { weight: 1, arbitrary: garbage });
}

const isId = (id: unknown) => id === null || typeof id === 'string' || typeof id === 'number';

/** What serve must answer to `c` (a request to `method`); throws with the reason when it did not. */
function check(method: string, c: Case, answer: string | null) {
  if (answer === null) throw new Error('closed without an answer');
  const response = JSON.parse(answer) as { jsonrpc: string; id: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };
  expect(response.jsonrpc).toBe('2.0');
  expect('result' in response !== 'error' in response).toBe(true);
  if (response.error) {
    expect(Number.isInteger(response.error.code)).toBe(true);
    expect(typeof response.error.message).toBe('string');
    if (response.error.data !== undefined) expect(typeof response.error.data).toBe('object');
  }
  const firstLine = c.line.subarray(0, c.line.indexOf(0x0a));
  const expectError = (code: number, id: unknown) => {
    expect(response.error?.code).toBe(code);
    expect(response.id).toEqual(id);
  };
  if (firstLine.length > MAX_REQUEST_LINE_BYTES) return expectError(ErrorCode.InvalidRequest, null);
  if (c.kind !== 'request') {
    // Not JSON; or JSON by chance (garbage such as `5`), which is no request.
    return expect([ErrorCode.ParseError, ErrorCode.InvalidRequest]).toContain(response.error?.code);
  }
  if (!isId(c.id)) return expectError(ErrorCode.InvalidRequest, null);
  const id: unknown = JSON.parse(JSON.stringify(c.id)); // as it went on the wire (-0 is 0)
  if (c.params === null || typeof c.params !== 'object' || Array.isArray(c.params)) return expectError(ErrorCode.InvalidRequest, id);
  const problem = validate(methods[method].params, c.params);
  if (problem) {
    expectError(ErrorCode.InvalidParams, id);
    return expect(response.error?.data).toMatchObject({ reason: 'invalid_params' });
  }
  // Valid by chance: a result of the method's shape, or one of the protocol's errors, never an internal one.
  expect(response.id).toEqual(id);
  if (response.error) {
    expect(KNOWN_CODES.has(response.error.code)).toBe(true);
    expect(response.error.code).not.toBe(ErrorCode.InternalError);
  } else {
    expect(validate(methods[method].result, response.result)).toBeNull();
  }
}

describe('every public method, abused', () => {
  test.each(names.map((name, i) => [name, i] as const))('%s', async (method, i) => {
    // A seed of its own per method, or every method would get the same sequence of kinds.
    await fc.assert(
      fc.asyncProperty(cases(method), async (c) => check(method, c, await exchange(c.line))),
      { seed: SEED + i, numRuns: RUNS_PER_METHOD, endOnFailure: true },
    );
  });
});

test('afterwards serve is the same process, its files are valid JSON, and a normal client works', async () => {
  process.kill(pf.servePid, 0);
  expect((await pf.call('serve.status', {})).pid).toBe(pf.servePid);
  const jsonFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return jsonFiles(path);
      return entry.name.endsWith('.json') ? [path] : [];
    });
  const files = jsonFiles(pf.env.PANEFLOW_HOME!);
  expect(files.some((f) => f.endsWith('workspaces.json'))).toBe(true);
  for (const file of files) expect(() => JSON.parse(readFileSync(file, 'utf8'))).not.toThrow();

  const events = await pf.subscribe({ types: ['surface_created'] });
  const created = await pf.call('workspace.create', { cwd: pf.dir });
  await events.next((f) => f.type === 'surface_created' && f.surface_id === created.surface_id);
  expect((await pf.call('surface.list', { scope: 'all' })).surfaces.map((s) => s.surface_id)).toContain(created.surface_id);
  expect(await pf.call('system.ping', {})).toEqual({ pong: true });
});
