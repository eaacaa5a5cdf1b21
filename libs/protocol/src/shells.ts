/**
 * Shells by their program name (`comm`): what runs a command for something else. An agent launched
 * through one (`sh -c 'claude …'`) is matched by the command it runs, and a hook run under one
 * (`sh -c paneflow-ai-hook`) belongs to the nearest ancestor that is not one.
 */
export const SHELL_NAMES: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'fish', 'ksh', 'mksh', 'ash', 'busybox']);
