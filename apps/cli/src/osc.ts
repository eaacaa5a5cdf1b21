import { encode, Scanner, type ReportInput } from '@paneflow/osc7501';
import { openSync, writeSync, closeSync } from 'node:fs';
import { CliError } from './errors';
import { printJson } from './output';

/** `paneflow emit`: one OSC 7501 report to the controlling terminal, for scripts and hooks. */
export function emit(report: ReportInput): void {
  let sequence: string;
  try {
    sequence = encode(report);
  } catch (error) {
    throw new CliError((error as Error).message, 2);
  }
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'w');
  } catch (error) {
    throw new CliError(`no controlling terminal to write to (${(error as NodeJS.ErrnoException).code})`, 1);
  }
  writeSync(fd, sequence);
  closeSync(fd);
}

/** `paneflow decode`: each OSC 7501 sequence of stdin as one JSON line. */
export async function decode(): Promise<void> {
  const scanner = new Scanner();
  for await (const chunk of process.stdin) {
    for (const piece of scanner.split(chunk as Uint8Array)) if (!(piece instanceof Uint8Array)) printJson(piece);
  }
}

/** `paneflow strip`: stdin without its OSC 7501 sequences, every other byte unchanged. */
export async function strip(): Promise<void> {
  const scanner = new Scanner();
  for await (const chunk of process.stdin) {
    for (const piece of scanner.split(chunk as Uint8Array)) if (piece instanceof Uint8Array) process.stdout.write(piece);
  }
  process.stdout.write(scanner.flush());
}
