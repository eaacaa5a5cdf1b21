import { spawnSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from './until';

let servers = 0;

/** Where tmux keeps the socket of `-L name` (tmux(1): `$TMUX_TMPDIR`, else /tmp, then `tmux-UID`). */
export function tmuxSocketPath(name: string): string {
  return join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid!()}`, name);
}

/**
 * A private tmux server, the real outer terminal for terminal clients in tests: windows run a
 * command at a given size, `send-keys` types into them, `capture-pane` reads them back.
 */
export class Tmux {
  readonly socket = `pf-test-${process.pid}-${++servers}`;
  private windows = 0;

  /** tmux, with this server's socket and no config of the user's. */
  run(...args: string[]): string {
    const result = spawnSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${result.stderr.trim()}`);
    return result.stdout;
  }

  /**
   * A window running `argv` with exactly `env` (written to a script in `dir`, so nothing of the
   * test process leaks in), `cols` × `rows`.
   */
  window(argv: string[], options: { env: NodeJS.ProcessEnv; dir: string; cols: number; rows: number }): TmuxWindow {
    const name = `w${++this.windows}`;
    const script = join(options.dir, `tmux-${this.socket}-${name}.sh`);
    const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
    const exports = Object.entries(options.env)
      .filter(([key, value]) => value !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && key !== 'TERM' && key !== 'TMUX')
      .map(([key, value]) => `export ${key}=${quote(value!)}`);
    writeFileSync(script, ['#!/bin/sh', ...exports, `exec ${argv.map(quote).join(' ')}`, ''].join('\n'));
    chmodSync(script, 0o700);
    const size = ['-x', String(options.cols), '-y', String(options.rows)];
    if (this.windows === 1) this.run('new-session', '-d', '-s', 'test', '-n', name, ...size, script);
    else this.run('new-window', '-d', '-t', 'test', '-n', name, script);
    // The window keeps its size whatever attaches (a global window-size crashes tmux 3.3a's
    // new-window), and stays once its program ends, to be read.
    this.run('set-option', '-w', '-t', `test:${name}`, 'window-size', 'manual');
    this.run('set-option', '-g', 'remain-on-exit', 'on');
    this.run('resize-window', '-t', `test:${name}`, ...size);
    return new TmuxWindow(this, `test:${name}`);
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore' });
    // tmux 3.3a leaves its socket file behind when its server ends.
    rmSync(tmuxSocketPath(this.socket), { force: true });
  }
}

export class TmuxWindow {
  constructor(
    private readonly tmux: Tmux,
    readonly target: string,
  ) {}

  /** Keys as tmux names them (`Enter`, `C-b`, `Up`), each a key press. */
  keys(...keys: string[]): void {
    this.tmux.run('send-keys', '-t', this.target, ...keys);
  }

  /** Text typed literally. */
  type(text: string): void {
    this.tmux.run('send-keys', '-t', this.target, '-l', text);
  }

  /** The window's lines; with `escapes`, with the SGR sequences of their colours and attributes. */
  capture(escapes = false): string[] {
    return this.tmux.run('capture-pane', '-p', '-N', ...(escapes ? ['-e'] : []), '-t', this.target).replace(/\n$/, '').split('\n');
  }

  /** The window's lines once `test` holds of them; else the error shows the last screen. */
  async shows(test: (lines: string[]) => boolean, what: string, timeoutMs?: number): Promise<string[]> {
    let last: string[] = [];
    try {
      return await until(() => {
        last = this.capture();
        return test(last) ? last : null;
      }, what, timeoutMs);
    } catch (error) {
      throw new Error(`${(error as Error).message}; the screen:\n${last.join('\n')}`, { cause: error });
    }
  }

  /**
   * Copies every byte the window's program writes to its terminal, from now on, to `file`: what
   * the terminal was told, where capture-pane shows only what it made of it (the cursor's shape,
   * a bell, a desktop notification).
   */
  pipe(file: string): void {
    this.tmux.run('pipe-pane', '-O', '-t', this.target, `cat >> '${file.replaceAll("'", `'\\''`)}'`);
  }

  /** A format of the window's (`#{window_bell_flag}`). */
  format(format: string): string {
    return this.tmux.run('display-message', '-p', '-t', this.target, format).trim();
  }

  resize(cols: number, rows: number): void {
    this.tmux.run('resize-window', '-t', this.target, '-x', String(cols), '-y', String(rows));
  }

  /** The pid of the program the window runs, and whether it still runs. */
  get pid(): number {
    return Number(this.format('#{pane_pid}'));
  }

  get dead(): boolean {
    return this.format('#{pane_dead}') === '1';
  }
}
