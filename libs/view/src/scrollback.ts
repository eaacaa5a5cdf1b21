// How deep a face's terminals go, the same in every face (the desktop, the web face, attach).

/** Rows of scrollback a pane's live mirror keeps, and all its checkpoint asks the host for. */
export const MIRROR_SCROLLBACK = 10_000;
/**
 * Rows a face reads from the host when the user scrolls past its mirror's top (the host keeps
 * 100,000 by default): a terminal of their own, held only while the user reads them.
 */
export const HISTORY_ROWS = 100_000;
