/**
 * What a pane's program is told about its terminal (REFERENCE.md §1.2): agents enable OSC 7501 for
 * terminals they know. The host's panes and `paneflow osc check` say the same.
 */
export const PANE_TERMINAL_ENV = { TERM: 'xterm-256color', TERM_PROGRAM: 'ghostty' } as const;
