import TOML from '@ltd/j-toml';
import type { Problem } from './problems';

/** TOML to plain objects (j-toml's tables have null prototypes), or the parse problem with its line. */
export function parseToml(text: string): { data: unknown } | { problem: Problem } {
  try {
    return { data: JSON.parse(JSON.stringify(TOML.parse(text, { bigint: false }))) };
  } catch (error) {
    const message = (error as Error).message;
    const line = /at line (\d+)/.exec(message)?.[1];
    return { problem: { prefix: '', field: '', message: `not valid TOML: ${message.split('\n')[0]}`, line: line ? Number(line) : undefined } };
  }
}
