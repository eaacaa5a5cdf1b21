// Runs program.mjs as a real child process and reads its output the way a terminal does: the
// Scanner takes the OSC 7501 sequences out of the stream, the Store keeps the records.
import { Scanner, Store, replyFor, sanitizeForDisplay } from '@paneflow/osc7501';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const child = spawn(process.execPath, [fileURLToPath(new URL('program.mjs', import.meta.url))], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const scanner = new Scanner();
const store = new Store();
const dim = (s) => (process.env.NO_COLOR ? s : `\x1b[2m${s}\x1b[0m`);

function show(item) {
  if (item.type === 'query') {
    // A terminal would write this to the program's input; here there is a pipe, so print it.
    console.log(`query (${item.terminator}) → reply ${JSON.stringify(replyFor(item))}`);
    return;
  }
  console.log(dim(JSON.stringify(item)));
  for (const change of store.apply(item)) console.log(`  ${change.type} ${change.id ?? '(root)'}`);
  const rows = store.records().map((r) => {
    const note = r.msg ?? r.title;
    return `    ${(r.id ?? '(root)').padEnd(8)} ${r.state.padEnd(8)} ${r.kind ?? ''}${r.progress !== null ? ` ${r.progress}%` : ''}${note ? ` · ${sanitizeForDisplay(note)}` : ''}  [${r.effectiveApp ?? '-'}]`;
  });
  console.log(rows.join('\n'));
}

child.stdout.on('data', (chunk) => {
  for (const piece of scanner.split(chunk)) {
    if (piece instanceof Uint8Array) process.stdout.write(`| ${Buffer.from(piece).toString().replace(/\n(?!$)/g, '\n| ')}`);
    else show(piece);
  }
});
child.on('exit', (code) => {
  process.stdout.write(scanner.flush());
  console.log(`program exited ${code}; records kept after exit:`);
  store.processExit();
  for (const r of store.records()) console.log(`  ${r.id ?? '(root)'} ${r.state}`);
});
