// `paneflow osc check --input FILE`: what to type into the program, and when.
import { STATES, type State } from '@paneflow/osc7501';
import { KeystrokeError, keystrokeBytes } from '@paneflow/screen';
import { displayText } from '@paneflow/view';
import { readFileSync } from 'node:fs';
import { CliError } from '../errors';

export type Step =
  /** Text to submit: pasted (bracketed where the program asked for it), then Enter apart from it. */
  | { type: 'send'; text: string }
  | { type: 'type'; text: string }
  /** Bytes of a named key, encoded when it is pressed (cursor keys follow the program's mode). */
  | { type: 'key'; name: string }
  | { type: 'wait'; ms: number }
  | { type: 'wait-for'; state: State; line: number };

/** Enter is the one key `paneflow key` refuses (it would submit); a script is allowed to press it. */
const ENTER = new Set(['enter', 'return']);

export function keyBytes(name: string, applicationCursorKeys: boolean): string {
  return ENTER.has(name.toLowerCase()) ? '\r' : keystrokeBytes(name, applicationCursorKeys);
}

/** A script file's lines as steps; a bad line is a usage error naming its line (nothing runs). */
export function readScript(path: string): Step[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(displayText(`cannot read --input ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`), 2);
  }
  const steps: Step[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/\r$/, '');
    // The file's words are the user's, shown back to a terminal: cleaned.
    const bad = (why: string) => new CliError(displayText(`${path}:${index + 1}: ${why}`), 2);
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    // A step's word, then one blank (space or tab), then its text as written.
    const [, verb, rest = ''] = /^\s*(\S+)(?:\s(.*))?$/.exec(line) ?? [];
    switch (verb) {
      case 'send':
        steps.push({ type: 'send', text: rest });
        return;
      case 'type':
        steps.push({ type: 'type', text: rest });
        return;
      case 'key':
        try {
          keyBytes(rest.trim(), false);
        } catch (error) {
          if (error instanceof KeystrokeError) throw bad(error.message);
          throw error;
        }
        steps.push({ type: 'key', name: rest.trim() });
        return;
      case 'wait':
        if (!/^\d+$/.test(rest.trim())) throw bad(`wait needs milliseconds, not '${rest}'`);
        steps.push({ type: 'wait', ms: Number(rest.trim()) });
        return;
      case 'wait-for':
        if (!(STATES as readonly string[]).includes(rest.trim())) throw bad(`wait-for needs one of ${STATES.join(', ')}, not '${rest}'`);
        steps.push({ type: 'wait-for', state: rest.trim() as State, line: index + 1 });
        return;
      default:
        throw bad(`unknown step '${verb}': send, type, key, wait or wait-for`);
    }
  });
  return steps;
}
