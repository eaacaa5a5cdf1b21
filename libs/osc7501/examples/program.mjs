// A program that declares its status the way an agent does: a turn with a subtask, a permission
// question, and the end of the turn, all written to stdout between ordinary output.
import { encode, encodeQuery } from '@paneflow/osc7501';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const write = (text) => process.stdout.write(text);

write(encodeQuery('bel'));
write(encode({ state: 'idle', app: 'demo-agent' }));
write('demo-agent ready\n');
await pause(300);
write(encode({ state: 'working', app: 'demo-agent' }));
write('Reading src/index.ts …\n');
write(encode({ state: 'working', id: 'tests', progress: 40, title: 'unit tests' }));
await pause(300);
write('\x1b[32m✓\x1b[0m 41 tests passed\n');
write(encode({ state: 'done', id: 'tests' }));
write(encode({ state: 'blocked', kind: 'permission', app: 'demo-agent', msg: 'approve Bash: npm publish' }));
write('? approve Bash: npm publish  1) Yes  2) No\n');
await pause(300);
write(encode({ state: 'done', app: 'demo-agent', msg: 'Published 0.1.0' }));
write('Done.\n');
