import { ErrorCode, RpcError, TYPED_INPUT_CHARS, type TypedInput } from '@paneflow/protocol';
import { bracketedPaste, KeystrokeError, keystrokeBytes } from '@paneflow/screen';
import type { RemoteTerminal } from './terminals';

// What a session's input becomes and when it is written: in the order it came, a paste bracketed
// in the program's own mode, a keystroke in its cursor-key mode, automation refused what could
// submit by accident, and a person's keys during a wait kept as who answered it.

const MAX_INPUT_BYTES = 2 * 1024 * 1024;

export type InputOrigin = 'user' | 'automation';

/** Where input goes: the PTY of a live session (refusing when it is not live). */
export type LivePty = () => { write(data: string): void };

export class SessionInput {
  /** What a person typed while the program declared a wait: serve's record of who answered it. */
  typed: TypedInput | null = null;
  /** When a person's input last reached the PTY (performance.now()): the output after it is its echo. */
  typedAt = -Infinity;
  private waiting = false;
  /** Input writes queue here so that they reach the PTY in the order they came. */
  private tail: Promise<void> = Promise.resolve();
  /** Writes queued and not finished: with none, the next starts in the request's own turn. */
  private queued = 0;

  constructor(
    private readonly terminal: RemoteTerminal,
    private readonly livePty: LivePty,
  ) {}

  /** The declared records changed: a new wait is not answered by what was typed for the last one. */
  declared(): void {
    const waiting = this.terminal.declaredStatus()?.state === 'blocked';
    if (waiting && !this.waiting) this.typed = null;
    this.waiting = waiting;
  }

  /**
   * Writes input to the PTY, in the order it came. A paste first waits for the terminal to parse
   * what the program printed before it, since the program's bracketed-paste mode decides the
   * bytes; whatever arrives meanwhile waits behind it.
   */
  input(text: string, origin: InputOrigin, paste: boolean, client: string): Promise<{ written: number; bracketed: boolean; bracketed_paste_mode: boolean }> {
    this.livePty(); // a session not live refuses at once, before anything queues
    if (origin === 'user') this.noteTyped(text, client);
    const size = Buffer.byteLength(text);
    if (size > MAX_INPUT_BYTES) {
      throw new RpcError(ErrorCode.InvalidParams, `input of ${size} bytes is over ${MAX_INPUT_BYTES}`, { reason: 'input_too_large' });
    }
    return this.inTurn(async () => {
      if (paste) await this.terminal.settled();
      const mode = this.terminal.modes.bracketedPaste;
      const bracketed = paste && mode;
      // Automation must never submit by accident; a person's paste goes in as a terminal sends it.
      if (paste && !bracketed && origin === 'automation' && /[\r\n]/.test(text)) {
        throw new RpcError(ErrorCode.InvalidParams, 'text holds CR or LF and the program takes no bracketed paste', { reason: 'raw_newline', field: 'text' });
      }
      return { written: await this.write(bracketed ? bracketedPaste(text) : text, origin), bracketed, bracketed_paste_mode: mode };
    });
  }

  /** One keystroke, encoded in the program's cursor-key mode as the terminal has parsed it. */
  key(keystroke: string, origin: InputOrigin): Promise<{ written: number }> {
    this.livePty();
    return this.inTurn(async () => {
      await this.terminal.settled();
      let bytes: string;
      try {
        bytes = keystrokeBytes(keystroke, this.terminal.modes.applicationCursorKeys);
      } catch (error) {
        if (error instanceof KeystrokeError) throw new RpcError(ErrorCode.InvalidParams, error.message, { reason: 'refused_keystroke', field: 'keystroke' });
        throw error;
      }
      return { written: await this.write(bytes, origin) };
    });
  }

  /** A person's input while the program waits: who and when, and what unless it waits for credentials. */
  private noteTyped(text: string, client: string) {
    const declared = this.terminal.declaredStatus();
    if (declared?.state !== 'blocked') return;
    const kept = declared.kind === 'auth' ? null : ((this.typed?.client === client ? (this.typed.text ?? '') : '') + text).slice(-TYPED_INPUT_CHARS);
    this.typed = { client, at_ms: Date.now(), text: kept };
  }

  private inTurn<T>(write: () => Promise<T>): Promise<T> {
    // With nothing before it, a keystroke reaches the PTY at once: behind a `then` it waited for
    // the socket's stream work Node queued first (apps/host README, *A keystroke's echo*).
    const turn = this.queued === 0 ? write() : this.tail.then(write);
    this.queued++;
    const done = () => void this.queued--;
    this.tail = turn.then(done, done);
    return turn;
  }

  private async write(bytes: string, origin: InputOrigin): Promise<number> {
    this.livePty().write(bytes);
    if (origin === 'user') {
      this.typedAt = performance.now();
      // Only a real keyboard acknowledges results; automation never does (OSC7501.md §10).
      await this.terminal.userInput();
    }
    return Buffer.byteLength(bytes);
  }
}
