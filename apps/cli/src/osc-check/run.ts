// `paneflow osc check`: the program in a fresh PTY under a receiver that behaves as the host's
// terminal does (it answers the OSC 7501 query and DA1 in stream order), every read of its output
// judged by @paneflow/osc7501's checker, and a script typed into it.
import { ConformanceChecker, replyFor, Scanner, Store, type ConformanceReport } from '@paneflow/osc7501';
import { keepOutputAtExit } from '@paneflow/proc';
import { SUBMIT_PASTE_DELAY_MS } from '@paneflow/protocol/limits';
import { PANE_TERMINAL_ENV } from '@paneflow/protocol/pane-terminal';
import { bracketedPaste } from '@paneflow/screen';
import { Terminal } from '@xterm/headless';
import type { IPty } from 'node-pty';
import { keyBytes, type Step } from './script';

export interface CheckOptions {
  command: string[];
  answers: boolean;
  steps: Step[] | null;
  timeoutMs: number;
}

export interface CheckRun {
  report: ConformanceReport;
  /** How the program ended: by itself (its code or signal), or hung up by the check. */
  ended: { by: 'itself'; code: number; signal: number } | { by: 'hang-up'; why: 'script done' | 'timeout' };
  /** A `wait-for` that never came: the line, the state, what was declared instead. */
  unmet: { line: number; state: string; current: string | null } | null;
}

const COLS = 80;
const ROWS = 24;
/** After a hang-up, how long the program has to go before it is killed. */
const HANG_UP_GRACE_MS = 3000;
/** After the script, how long the program may take to end by itself (a script ending `send /exit`). */
const SCRIPT_END_GRACE_MS = 1000;

/** What the program sees of its environment: the host's pane terminal, outside any Paneflow or tmux. */
function programEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('PANEFLOW_') && key !== 'TMUX' && key !== 'TMUX_PANE') env[key] = value;
  }
  return { ...env, ...PANE_TERMINAL_ENV };
}

export async function runCheck(options: CheckOptions): Promise<CheckRun> {
  // Loaded here: only this verb needs the native module.
  const pty = require('node-pty') as typeof import('node-pty');
  const [program, ...args] = options.command;
  let child: IPty;
  try {
    child = pty.spawn(program, args, { name: PANE_TERMINAL_ENV.TERM, cols: COLS, rows: ROWS, cwd: process.cwd(), env: programEnvironment(), encoding: null });
  } catch (error) {
    throw new Error(`cannot run ${program}: ${(error as Error).message}`, { cause: error });
  }
  // Every byte it wrote is judged, the last ones too: node-pty and libuv drop the end of a fast exit.
  keepOutputAtExit(child);
  // The receiver: xterm answers DA1 and cursor reports; the query's reply is queued behind what came before it.
  const terminal = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true, logLevel: 'off' });
  terminal.onData((answer) => child.write(answer));
  const checker = new ConformanceChecker({ answers: options.answers });
  const scanner = new Scanner();
  const records = new Store();
  const declared = new Set<() => void>();

  const exited = new Promise<{ code: number; signal: number }>((resolve) => child.onExit(({ exitCode, signal }) => resolve({ code: exitCode, signal: signal ?? 0 })));
  let done = false;
  void exited.then(() => (done = true));
  child.onData((data) => {
    const chunk = data as unknown as Buffer;
    checker.feed(chunk);
    for (const piece of scanner.split(chunk)) {
      if (piece instanceof Uint8Array) terminal.write(piece);
      else if (piece.type === 'query') {
        if (options.answers) terminal.write('', () => child.write(replyFor(piece)));
      } else if (piece.type !== 'discarded') {
        records.apply(piece);
        for (const wake of declared) wake();
      }
    }
  });

  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const deadline = Date.now() + options.timeoutMs;
  /** Resolves true once the program's current record has `state`; false at the deadline or its exit. */
  const declaredState = (state: string) =>
    new Promise<boolean>((resolve) => {
      const check = () => {
        if (records.current()?.state === state) finish(true);
        else if (done) finish(false);
      };
      const timer = setTimeout(() => finish(false), Math.max(0, deadline - Date.now()));
      const finish = (met: boolean) => {
        clearTimeout(timer);
        declared.delete(check);
        resolve(met);
      };
      declared.add(check);
      void exited.then(check);
      check();
    });

  /** Waits `ms` (at most to the deadline), or until the program exits. */
  const pause = (ms: number) => Promise.race([exited, sleep(Math.min(ms, Math.max(0, deadline - Date.now())))]);
  let unmet: CheckRun['unmet'] = null;
  for (const step of options.steps ?? []) {
    if (done || Date.now() >= deadline) break;
    if (step.type === 'send') {
      // As serve submits to an agent: the text, pasted where the program asked for pastes, then Enter apart.
      child.write(terminal.modes.bracketedPasteMode ? bracketedPaste(step.text) : step.text);
      await pause(SUBMIT_PASTE_DELAY_MS);
      if (!done) child.write('\r');
    } else if (step.type === 'type') child.write(step.text);
    else if (step.type === 'key') child.write(keyBytes(step.name, terminal.modes.applicationCursorKeysMode));
    else if (step.type === 'wait') await pause(step.ms);
    else if (!(await declaredState(step.state))) {
      unmet = { line: step.line, state: step.state, current: records.current()?.state ?? null };
      break;
    }
  }
  const scriptDone = options.steps !== null && unmet === null && !done && Date.now() < deadline;
  await pause(options.steps === null ? Infinity : scriptDone ? SCRIPT_END_GRACE_MS : 0);

  let ended: CheckRun['ended'];
  if (done) ended = { by: 'itself', ...(await exited) };
  else {
    ended = { by: 'hang-up', why: scriptDone ? 'script done' : 'timeout' };
    // The whole process group: a launcher's child (npx, a shell, Codex's node) is hung up with it,
    // and killed with it when it outlives the grace, even once the launcher itself is gone.
    const signal = (name: NodeJS.Signals | 0) => {
      try {
        process.kill(-child.pid, name);
        return true;
      } catch {
        return false; // no process left in the group
      }
    };
    const graceEnds = Date.now() + HANG_UP_GRACE_MS;
    signal('SIGHUP');
    await Promise.race([exited, sleep(HANG_UP_GRACE_MS)]);
    // No event says a group emptied: it is looked at until the grace ends.
    while (signal(0) && Date.now() < graceEnds) await sleep(50);
    signal('SIGKILL');
    await exited;
  }
  checker.exit();
  terminal.dispose();
  return { report: checker.report(), ended, unmet };
}
