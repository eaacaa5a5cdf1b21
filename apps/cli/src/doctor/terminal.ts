// `paneflow doctor`, the terminal it runs in: asked the way an agent asks it at start (the OSC 7501
// query, then DA1, back to back), so that a user learns what an agent run straight in it would see.
import { encodeQuery } from '@paneflow/osc7501';
import { closeSync, openSync, writeSync } from 'node:fs';
import { check, type Check } from './report';

const group = 'terminal' as const;
const DA1_REQUEST = '\x1b[c';
// eslint-disable-next-line no-control-regex -- DA1's answer is an escape sequence
const DA1_ANSWER = /\x1b\[\?([0-9;]*)c/;
const REPLY_START = '\x1b]7501;?';
/** Every terminal answers DA1 at once; one that has not within this is not a terminal emulator. */
const ANSWER_WAIT_MS = 2000;
/** After DA1, a reply that is still coming: an agent would already have decided it is unsupported. */
const LATE_REPLY_MS = 200;

/** What the terminal wrote back, until DA1's answer (and a moment more) or the deadline. */
function askTerminal(): Promise<string> {
  const input = process.stdin;
  const tty = openSync('/dev/tty', 'w');
  return new Promise((resolve) => {
    let answers = '';
    let late: NodeJS.Timeout | null = null;
    const finish = () => {
      clearTimeout(deadline);
      if (late) clearTimeout(late);
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      closeSync(tty);
      resolve(answers);
    };
    const onData = (chunk: Buffer) => {
      answers += chunk.toString('latin1');
      if (!late && DA1_ANSWER.test(answers)) late = setTimeout(finish, LATE_REPLY_MS);
    };
    const deadline = setTimeout(finish, ANSWER_WAIT_MS);
    input.setRawMode(true);
    input.on('data', onData);
    input.resume();
    writeSync(tty, encodeQuery('bel') + DA1_REQUEST);
  });
}

export async function terminalChecks(): Promise<Check[]> {
  if (!process.stdin.isTTY) return [check(group, 'terminal', 'info', 'stdin is not a terminal: nothing to ask')];
  const answers = await askTerminal();
  const da1 = DA1_ANSWER.exec(answers);
  const reply = answers.indexOf(REPLY_START);
  // Inside tmux it is tmux that answers, whatever terminal is outside it.
  const where = process.env.PANEFLOW_SESSION_ID ? 'this Paneflow pane' : process.env.TMUX ? 'tmux' : 'this terminal';
  const checks: Check[] = [];
  checks.push(
    da1
      ? check(group, 'DA1', 'ok', `${where} answers DA1 (attributes ${da1[1] || 'none'})`)
      : check(group, 'DA1', 'warn', `${where} did not answer DA1 within ${ANSWER_WAIT_MS / 1000} s: programs that ask it wait, then give up`),
  );
  if (reply === -1) {
    checks.push(
      check(
        group,
        'OSC 7501',
        'warn',
        `${where} does not answer the OSC 7501 query: an agent run straight in it declares nothing (Claude Code stays silent)`,
        'run agents in Paneflow (paneflow new, or paneflow attach from this terminal): there every pane answers',
      ),
    );
  } else if (da1 && da1.index < reply) {
    checks.push(check(group, 'OSC 7501', 'warn', `${where} answers the OSC 7501 query only after DA1: agents take that as unsupported (OSC7501.md §7.3)`, 'report it to the terminal: the reply must come in stream order'));
  } else {
    checks.push(check(group, 'OSC 7501', 'ok', `${where} answers the OSC 7501 query before DA1, as agents expect`));
  }
  checks.push(check(group, 'OSC 133', 'info', 'prompt marks cannot be asked for (no terminal answers for them); attach draws its panes itself, so Paneflow needs nothing from this terminal'));
  return checks;
}
