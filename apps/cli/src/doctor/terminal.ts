// `paneflow doctor`, the terminal it runs in: asked the way an agent asks it at start (the OSC 7501
// query, then DA1, back to back), so that a user learns what an agent run straight in it would see.
import { encodeQuery } from '@paneflow/osc7501';
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
/** With no DA1 answer by the deadline, input is still swallowed this long, so a late answer never reaches the shell. */
const DRAIN_MS = 500;

/**
 * What the terminal wrote back, until DA1's answer (and a moment more) or the deadline. It asks
 * and reads the same terminal, stdout's and stdin's, both in raw mode, so that no answer is echoed
 * or left behind as input.
 */
function askTerminal(): Promise<string> {
  const input = process.stdin;
  return new Promise((resolve) => {
    let answers = '';
    let finishing: NodeJS.Timeout | null = null;
    const finish = () => {
      clearTimeout(deadline);
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      resolve(answers);
    };
    const onData = (chunk: Buffer) => {
      answers += chunk.toString('latin1');
      if (!finishing && DA1_ANSWER.test(answers)) finishing = setTimeout(finish, LATE_REPLY_MS);
    };
    const deadline = setTimeout(() => (finishing ??= setTimeout(finish, DRAIN_MS)), ANSWER_WAIT_MS);
    input.setRawMode(true);
    input.on('data', onData);
    input.resume();
    process.stdout.write(encodeQuery('bel') + DA1_REQUEST);
  });
}

export async function terminalChecks(): Promise<Check[]> {
  // Output to a pager or a file, input from elsewhere: the answers would go to another reader.
  if (!process.stdin.isTTY || !process.stdout.isTTY) return [check(group, 'terminal', 'info', 'stdin or stdout is not a terminal: nothing asked')];
  const answers = await askTerminal();
  const da1 = DA1_ANSWER.exec(answers);
  const reply = answers.indexOf(REPLY_START);
  // Inside tmux it is tmux that answers, whatever runs outside it (a tmux in a Paneflow pane too).
  const where = process.env.TMUX ? 'tmux' : process.env.PANEFLOW_SESSION_ID ? 'this Paneflow pane' : 'this terminal';
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
