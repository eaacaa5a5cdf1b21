// `attach`: the workspace in the terminal the command runs in. Its own bundle: it carries the
// terminal mirrors (@xterm/headless), which no other verb needs.
import { attach } from '../attach/attach';
import type { Run } from './common';

export const run: Record<string, Run> = {
  attach: (p) => attach(p.args.workspace as string | undefined, p.flags.machine as string | undefined),
};
