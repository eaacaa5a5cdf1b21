// The words of many machines that need no schema (issue 32): the CLI's every verb and the
// faces load them without typebox; machines.ts re-exports them beside the schemas.

/** A machine's name: short, printable, and never read as a selector's own prefix (`cmdline:`, `cwd:`). */
export const MACHINE_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$';
export const isMachineName = (name: string): boolean => new RegExp(MACHINE_NAME_PATTERN).test(name);

/**
 * ssh options that run a command on this machine (`ProxyCommand`, `LocalCommand`, …) are refused
 * in a machine's `ssh_options`: a client of the socket must not be able to make serve run one.
 * They belong in ~/.ssh/config, which is the user's alone. Null when `option` may be used.
 */
const RUNS_LOCAL_COMMAND = /^\s*(proxycommand|localcommand|permitlocalcommand|knownhostscommand|match|include|remotecommand)\b/i;
export function sshOptionFault(option: string): string | null {
  return RUNS_LOCAL_COMMAND.test(option) ? `'${option.split(/[\s=]/)[0]}' runs commands on this machine; put it in ~/.ssh/config instead` : null;
}

/**
 * The compact form of a selector on another machine: `@NAME:SELECTOR` (a pane name may not start
 * so; see `nameFault`). Null when `selector` names no machine.
 */
export function splitMachineSelector(selector: string): { machine: string; selector: string } | null {
  const match = /^@([^:]*):(.*)$/s.exec(selector);
  if (!match || !isMachineName(match[1]) || match[2] === '') return null;
  return { machine: match[1], selector: match[2] };
}
