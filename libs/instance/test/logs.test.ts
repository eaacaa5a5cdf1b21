import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendLog, clipForLog, LOG_CAP_BYTES, LOG_LINE_CHARS, LOG_MESSAGE_LINES, moveAside, removeTempFiles, rotateLogIfFull, writeTextAtomic } from '../src/files';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pf-logs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const generations = (path: string) => [1, 2, 3, 4].map((n) => (existsSync(`${path}.${n}`) ? readFileSync(`${path}.${n}`, 'utf8') : null));

describe('clipForLog', () => {
  test('a line over the limit keeps its start, then … and its length; short lines are untouched', () => {
    expect(clipForLog('short line')).toBe('short line');
    const value = 'x'.repeat(1024 * 1024);
    const line = `cwd ${value} is not a directory`;
    expect(clipForLog(line)).toBe(`cwd ${'x'.repeat(LOG_LINE_CHARS - 4)}… (${line.length} chars)`);
  });

  test('a message of many lines keeps the first ones and says how many more there were', () => {
    const clipped = clipForLog(Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n'));
    const lines = clipped.split('\n');
    expect(lines).toHaveLength(LOG_MESSAGE_LINES + 1);
    expect(lines.at(-1)).toBe(`… (${1000 - LOG_MESSAGE_LINES} more lines)`);
  });

  test('a cut never splits a surrogate pair', () => {
    const clipped = clipForLog('a'.repeat(LOG_LINE_CHARS - 1) + '😀'.repeat(10));
    expect(clipped.startsWith('a'.repeat(LOG_LINE_CHARS - 1) + '…')).toBe(true);
    expect(clipped).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});

describe('rotateLogIfFull', () => {
  test('a full log held open for appending is copied to .1 and truncated: the holder writes on into the fresh log', () => {
    const path = join(dir, 'serve.log');
    writeFileSync(`${path}.1`, 'gen1');
    writeFileSync(`${path}.2`, 'gen2');
    writeFileSync(`${path}.3`, 'gen3');
    const fd = openSync(path, 'a', 0o600);
    writeSync(fd, 'y'.repeat(LOG_CAP_BYTES - 1));
    expect(rotateLogIfFull(path, fd)).toBe(false);
    writeSync(fd, 'z');
    expect(rotateLogIfFull(path, fd)).toBe(true);
    writeSync(fd, 'after\n');
    closeSync(fd);
    expect(readFileSync(path, 'utf8')).toBe('after\n');
    const [one, two, three, four] = generations(path);
    expect(one).toBe('y'.repeat(LOG_CAP_BYTES - 1) + 'z');
    expect([two, three, four]).toEqual(['gen1', 'gen2', null]);
    expect(statSync(`${path}.1`).mode & 0o777).toBe(0o600);
  });

  test('an fd that is not the file at that path is left alone', () => {
    const path = join(dir, 'host.log');
    writeFileSync(path, 'mine');
    const other = openSync(join(dir, 'other.log'), 'a');
    writeSync(other, 'y'.repeat(LOG_CAP_BYTES));
    expect(rotateLogIfFull(path, other)).toBe(false);
    closeSync(other);
    expect(readFileSync(path, 'utf8')).toBe('mine');
    expect(existsSync(`${path}.1`)).toBe(false);
  });

  test('appendLog rotates a full log by renaming it, then appends the clipped line', () => {
    const path = join(dir, 'hook.log');
    writeFileSync(path, 'y'.repeat(LOG_CAP_BYTES));
    appendLog(path, `bad event ${'v'.repeat(100_000)}`);
    expect(readFileSync(`${path}.1`, 'utf8')).toBe('y'.repeat(LOG_CAP_BYTES));
    const line = readFileSync(path, 'utf8');
    expect(line.length).toBeLessThan(LOG_LINE_CHARS + 40);
    expect(line).toMatch(/^bad event v+… \(100010 chars\)\n$/);
    appendLog(path, 'next');
    expect(readFileSync(path, 'utf8')).toBe(`${line}next\n`);
  });
});

describe('files of the home', () => {
  test('removeTempFiles removes what an interrupted atomic write left, and nothing else', () => {
    writeTextAtomic(join(dir, 'kept.json'), '{}\n');
    writeFileSync(join(dir, '.0123456789ab.tmp'), '{"half');
    writeFileSync(join(dir, 'notes.tmp'), 'not ours');
    removeTempFiles(dir);
    expect(existsSync(join(dir, '.0123456789ab.tmp'))).toBe(false);
    expect(readFileSync(join(dir, 'kept.json'), 'utf8')).toBe('{}\n');
    expect(existsSync(join(dir, 'notes.tmp'))).toBe(true);
  });

  test('moveAside keeps a bad file as <name>.unreadable', () => {
    const path = join(dir, 'workspaces.json');
    writeFileSync(path, '[]');
    expect(moveAside(path)).toBe(`${path}.unreadable`);
    expect(existsSync(path)).toBe(false);
    expect(readFileSync(`${path}.unreadable`, 'utf8')).toBe('[]');
  });
});
