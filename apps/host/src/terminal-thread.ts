import { ErrorCode, RpcError } from '@paneflow/protocol';
import { collectSoon } from './memory';
import { CanonicalTerminal, type TerminalModes } from './terminal';
import { MessageBatch, type FromTerminals, type Question, type TerminalPort, type ToTerminals } from './terminals';

/**
 * Output one terminal parses before the thread turns to the others' and to new messages: about a
 * millisecond of xterm's time, so a pane's report waits at most that for a flood in another.
 * Counted in what the terminal says its writes cost (skimmed lines cost less than parsed ones).
 */
const SLICE_COST = 4 * 1024;
/**
 * Output a terminal that skims takes in one write: writes that waited are joined up to this, so
 * the lines of a flood that only scroll by go straight to its store and xterm parses the last
 * screen's worth once per write, not once per PTY read.
 */
const SKIM_WRITE_BYTES = 64 * 1024;

/** What a terminal does next, in the order the host's thread asked: parse output, or the rest. */
type Step = { data: string; bytes: number } | (() => void);

/** One session's terminal on this thread, with what waits for its turn. */
interface Fed {
  id: number;
  canonical: CanonicalTerminal;
  steps: Step[];
  closed: boolean;
  /** Its last write cost less than half its length: it skimmed a flood. */
  skimming: boolean;
}

/** Output as text: each write ends on a character's end (RemoteTerminal.write). ignoreBOM: a U+FEFF is the program's. */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The terminals' thread (terminals.ts): keeps every session's CanonicalTerminal and does what the
 * host's thread asks through `port`, in the order it asked. Output is parsed a slice per terminal
 * in turn, between turns of the event loop; a resize or a question waits behind the output sent
 * before it, so it sees all of that parsed.
 */
export function serveTerminals(port: TerminalPort): void {
  const terminals = new Map<number, Fed>();
  /** Terminals with steps waiting, in the order they will take their turns. */
  const waiting = new Set<Fed>();
  let turnDue = false;
  const batch = new MessageBatch<FromTerminals>(port);
  const send = (message: FromTerminals) => batch.send(message);

  // Writes parsed one after another go back as one message, in order with everything else.
  const parsed = (terminal: number, writes: number, bytes: number, modes: TerminalModes) => {
    const last = batch.last;
    if (last?.type === 'parsed' && last.terminal === terminal) {
      last.writes += writes;
      last.bytes += bytes;
      last.modes = modes;
    } else send({ type: 'parsed', terminal, writes, bytes, modes });
  };

  const open = (terminal: number, cols: number, rows: number, scrollback: number) => {
    const canonical: CanonicalTerminal = new CanonicalTerminal(cols, rows, scrollback, {
      recordsChanged: () => send({ type: 'records', terminal, records: canonical.records(), declared: canonical.declaredStatus() }),
      signalled: () => send({ type: 'signalled', terminal }),
      marked: () => send({ type: 'marked', terminal }),
      title: (title) => send({ type: 'title', terminal, title }),
      reply: (data) => send({ type: 'reply', terminal, data }),
    });
    terminals.set(terminal, { id: terminal, canonical, steps: [], closed: false, skimming: false });
  };

  /** Closes a terminal: what waits for it is answered as closed, its output dropped. */
  const close = (fed: Fed) => {
    fed.closed = true;
    terminals.delete(fed.id);
    fed.canonical.dispose();
    // A closed terminal's rows are this thread's memory to give back.
    collectSoon();
  };

  /** Each terminal with steps waiting takes a slice, then the event loop turns (new messages come in). */
  const turn = () => {
    turnDue = false;
    for (const fed of [...waiting]) {
      let budget = SLICE_COST;
      while (budget > 0 && fed.steps.length > 0) {
        const step = fed.steps.shift()!;
        try {
          if (typeof step === 'function') step();
          else if (!fed.closed) {
            let { data, bytes } = step;
            let writes = 1;
            for (let next = fed.steps[0]; fed.skimming && typeof next === 'object' && bytes + next.bytes <= SKIM_WRITE_BYTES; next = fed.steps[0]) {
              fed.steps.shift();
              data += next.data;
              bytes += next.bytes;
              writes++;
            }
            const cost = fed.canonical.write(data, bytes);
            fed.skimming = cost < data.length / 2;
            parsed(fed.id, writes, bytes, fed.canonical.modes);
            budget -= cost;
          }
        } catch (error) {
          // One terminal's failure is its session's alone: the others go on.
          if (!fed.closed) close(fed);
          send({ type: 'failed', terminal: fed.id, message: (error as Error).message });
        }
      }
      if (fed.steps.length === 0) waiting.delete(fed);
    }
    if (waiting.size > 0) scheduleTurn();
  };
  const scheduleTurn = () => {
    if (turnDue) return;
    turnDue = true;
    setImmediate(turn);
  };
  const queue = (fed: Fed, step: Step) => {
    fed.steps.push(step);
    waiting.add(fed);
    scheduleTurn();
  };

  const answer = (canonical: CanonicalTerminal, question: Question): unknown => {
    switch (question.name) {
      case 'settled':
        return canonical.modes;
      case 'userInput':
        return canonical.userInput();
      case 'processExit':
        return canonical.processExit();
      case 'read':
        return canonical.read(question.lines, question.offset);
      case 'search':
        return canonical.search(question.pattern, question.maxMatches);
      case 'checkpoint':
        return canonical.checkpoint(question.scrollback, question.deepBytes);
      case 'savedScreen':
        return canonical.savedScreen(question.scrollback, question.deepBytes);
      case 'finalText':
        return canonical.finalText(question.maxBytes);
    }
  };

  /** Answers a question about `fed` as it is now; a closed terminal has nothing left to wait for, nor to read. */
  const reply = (fed: Fed | undefined, ask: number, question: Question) => {
    try {
      if (fed && !fed.closed) send({ type: 'answer', ask, result: answer(fed.canonical, question) });
      else if (question.name === 'settled' || question.name === 'userInput' || question.name === 'processExit') send({ type: 'answer', ask });
      else throw new RpcError(ErrorCode.NotFound, 'the session is gone', { reason: 'session_gone' });
    } catch (error) {
      const { code, message, data } = error instanceof RpcError ? error : new RpcError(ErrorCode.InternalError, (error as Error).message);
      send({ type: 'answer', ask, error: { code, message, data } });
    }
  };

  const receive = (message: ToTerminals) => {
    if (message.type === 'open') {
      try {
        open(message.terminal, message.cols, message.rows, message.scrollback);
      } catch (error) {
        send({ type: 'failed', terminal: message.terminal, message: (error as Error).message });
      }
      return;
    }
    const fed = terminals.get(message.terminal);
    switch (message.type) {
      case 'write':
        if (fed) queue(fed, { data: decoder.decode(message.data), bytes: message.data.byteLength });
        break;
      case 'resize':
        if (fed) queue(fed, () => fed.closed || fed.canonical.resize(message.cols, message.rows));
        break;
      case 'ask': {
        const { ask, question } = message;
        // A user's input and an exit change the records at once, not in stream order (as they did in one thread).
        if (fed && question.name !== 'userInput' && question.name !== 'processExit') queue(fed, () => reply(fed, ask, question));
        else reply(fed, ask, question);
        break;
      }
      case 'close':
        if (fed) close(fed);
        break;
    }
  };
  port.on('message', (messages) => {
    for (const message of messages as ToTerminals[]) receive(message);
  });
}
