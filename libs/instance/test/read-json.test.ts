import { ftruncateSync, closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RefusedFileError } from '@paneflow/proc';
import { readJson } from '../src';

// `readJson` reads the home's JSON files through @paneflow/proc's readRegularFileSync.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pf-read-json-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a file is parsed; a missing one is undefined; one over the cap is refused unread', () => {
  writeFileSync(join(dir, 'a.json'), '{"a": 1}');
  expect(readJson(join(dir, 'a.json'))).toEqual({ a: 1 });
  expect(readJson(join(dir, 'none.json'))).toBeUndefined();
  const fd = openSync(join(dir, 'huge.json'), 'w');
  ftruncateSync(fd, 4 * 1024 * 1024 * 1024);
  closeSync(fd);
  expect(() => readJson(join(dir, 'huge.json'))).toThrow(RefusedFileError);
});
