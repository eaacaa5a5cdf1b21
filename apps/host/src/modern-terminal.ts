import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal, type ITerminalOptions } from '@xterm/headless';

/**
 * A headless terminal with character widths as programs measure them today (emoji and CJK wide,
 * by Unicode 11 and later), not xterm's default Unicode 6 tables: every terminal of a session — the
 * host's, the rows it lays out again, the mirrors — must agree with the program, or the cursor
 * drifts after the first emoji.
 */
export function modernTerminal(options: ITerminalOptions & { cols: number; rows: number }): Terminal {
  const term = new Terminal({ ...options, allowProposedApi: true });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  return term;
}
