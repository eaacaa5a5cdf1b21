import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRegularFile, readRegularFileEnd, readRegularFileSync } from '../src';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pf-read-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** What each reader does with `path`: its text, or the error's message. */
async function outcomes(path: string, options: { maxBytes: number; follow?: boolean }) {
  const text = (read: () => Buffer) => {
    try {
      return read().toString('utf8');
    } catch (error) {
      return `${(error as Error).name}: ${(error as Error).message}`;
    }
  };
  const async = await readRegularFile(path, options).then(
    (bytes) => bytes.toString('utf8'),
    (error: Error) => `${error.name}: ${error.message}`,
  );
  return { async, sync: text(() => readRegularFileSync(path, options)) };
}

function sparse(path: string, size: number) {
  const fd = openSync(path, 'w');
  ftruncateSync(fd, size);
  closeSync(fd);
}

test('a regular file is read whole, by both readers', async () => {
  writeFileSync(join(dir, 'a.json'), '{"a": 1}');
  expect(await outcomes(join(dir, 'a.json'), { maxBytes: 8 })).toEqual({ async: '{"a": 1}', sync: '{"a": 1}' });
});

test('a FIFO, /dev/zero, a directory and a socket are refused at once, unread and never waited on', async () => {
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  mkdirSync(join(dir, 'dir'));
  const server = createServer().listen(join(dir, 'sock'));
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    for (const [path, kind] of [
      [join(dir, 'fifo'), 'a FIFO'],
      ['/dev/zero', 'a character device'],
      [join(dir, 'dir'), 'a directory'],
    ]) {
      const refused = `RefusedFileError: ${path} refused: ${kind}, not a regular file`;
      expect(await outcomes(path, { maxBytes: MiB, follow: true })).toEqual({ async: refused, sync: refused });
    }
    const socket = `RefusedFileError: ${join(dir, 'sock')} refused: a socket, not a regular file`;
    expect(await outcomes(join(dir, 'sock'), { maxBytes: MiB })).toEqual({ async: socket, sync: socket });
  } finally {
    server.close();
  }
});

test('a file over its cap is refused unread, however large (a sparse file of 8 GiB)', async () => {
  const path = join(dir, 'huge.json');
  sparse(path, 8 * GiB);
  const refused = `RefusedFileError: ${path} refused: ${8 * GiB} bytes, over the ${MiB} a file of its kind may have`;
  expect(await outcomes(path, { maxBytes: MiB })).toEqual({ async: refused, sync: refused });
});

test('a link is followed only where the caller allows it, and then only to a regular file', async () => {
  writeFileSync(join(dir, 'real.json'), '{}');
  symlinkSync(join(dir, 'real.json'), join(dir, 'link.json'));
  symlinkSync('/dev/zero', join(dir, 'zero.json'));
  const link = `RefusedFileError: ${join(dir, 'link.json')} refused: a symbolic link, not a regular file`;
  expect(await outcomes(join(dir, 'link.json'), { maxBytes: MiB })).toEqual({ async: link, sync: link });
  expect(await outcomes(join(dir, 'link.json'), { maxBytes: MiB, follow: true })).toEqual({ async: '{}', sync: '{}' });
  const zero = `RefusedFileError: ${join(dir, 'zero.json')} refused: a character device, not a regular file`;
  expect(await outcomes(join(dir, 'zero.json'), { maxBytes: MiB, follow: true })).toEqual({ async: zero, sync: zero });
});

test('a missing file is the usual ENOENT', async () => {
  const path = join(dir, 'none.json');
  expect(await outcomes(path, { maxBytes: MiB })).toEqual({ async: expect.stringMatching(/^Error: ENOENT/), sync: expect.stringMatching(/^Error: ENOENT/) });
});

test('the end of a file that grows: from the mark, never more than the cap; any size is taken', async () => {
  const path = join(dir, 'log.jsonl');
  writeFileSync(path, 'one\ntwo\nthree\n');
  expect(await readRegularFileEnd(path, { maxBytes: MiB, from: 4 })).toEqual({ bytes: Buffer.from('two\nthree\n'), start: 4 });
  expect(await readRegularFileEnd(path, { maxBytes: 6, from: 4 })).toEqual({ bytes: Buffer.from('three\n'), start: 8 });
  // A mark past the end (the file was replaced by a shorter one) reads from the start.
  expect(await readRegularFileEnd(path, { maxBytes: MiB, from: 100 })).toEqual({ bytes: Buffer.from('one\ntwo\nthree\n'), start: 0 });
  sparse(path, 8 * GiB);
  expect((await readRegularFileEnd(path, { maxBytes: 16, from: null })).start).toBe(8 * GiB - 16);
  await expect(readRegularFileEnd('/dev/zero', { maxBytes: 16, from: null, follow: true })).rejects.toThrow('/dev/zero refused: a character device, not a regular file');
});
