import { SerializeAddon } from '@xterm/addon-serialize';
import { Terminal } from '@xterm/headless';
import { modesBeyondSerialize } from '../src/checkpoint-modes';
import { cursorModes, mouseEncoding, writeSync } from '../src/xterm-internals';

const terminal = () => new Terminal({ cols: 20, rows: 4, allowProposedApi: true });

test('a checkpoint with modesBeyondSerialize puts a hidden cursor, its shape and the SGR mouse encoding back in a mirror', () => {
  for (const set of ['\x1b[?25l\x1b[6 q\x1b[?1002h\x1b[?1006h', '\x1b[3 q\x1b[?1000h\x1b[?1016h', '']) {
    const source = terminal();
    const serializer = new SerializeAddon();
    source.loadAddon(serializer);
    writeSync(source, `prompt> ${set}`);
    const mirror = terminal();
    writeSync(mirror, serializer.serialize() + modesBeyondSerialize(source));
    expect([set, cursorModes(mirror), mouseEncoding(mirror), mirror.modes.mouseTrackingMode]).toEqual([set, cursorModes(source), mouseEncoding(source), source.modes.mouseTrackingMode]);
    source.dispose();
    mirror.dispose();
  }
});

test('serialize alone leaves them out: what this exists for', () => {
  const source = terminal();
  const serializer = new SerializeAddon();
  source.loadAddon(serializer);
  writeSync(source, '\x1b[?25l\x1b[6 q\x1b[?1006h');
  const mirror = terminal();
  writeSync(mirror, serializer.serialize());
  expect([cursorModes(mirror).hidden, cursorModes(mirror).style, mouseEncoding(mirror)]).toEqual([false, undefined, 'default']);
});
