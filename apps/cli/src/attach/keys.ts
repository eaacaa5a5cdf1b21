import { InputParser, type InputEvent } from '@paneflow/screen';

/** How long a lone ESC waits to be the start of a sequence. */
const ESCAPE_MS = 25;

/** The outer terminal's bytes as input events; a lone ESC waits ESCAPE_MS for the rest of a sequence. */
export class KeyReader {
  private readonly parser = new InputParser();
  private escapeTimer: NodeJS.Timeout | null = null;

  constructor(private readonly handle: (event: InputEvent) => void) {}

  feed(chunk: Buffer): void {
    this.stop();
    for (const event of this.parser.feed(chunk)) this.handle(event);
    if (this.parser.pendingEscape) {
      this.escapeTimer = setTimeout(() => {
        this.escapeTimer = null;
        for (const event of this.parser.flush()) this.handle(event);
      }, ESCAPE_MS);
    }
  }

  stop(): void {
    if (this.escapeTimer) clearTimeout(this.escapeTimer);
    this.escapeTimer = null;
  }
}
