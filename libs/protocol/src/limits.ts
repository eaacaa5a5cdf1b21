/**
 * The numbers of the contract (REFERENCE.md §1.2, §2.1, §2.3, §4.4): one place, read by the
 * servers that enforce them and the clients that check before they send.
 */

/** A request line over this is refused (-32600) and its connection closed. */
export const MAX_REQUEST_LINE_BYTES = 1024 * 1024;
/** A string id longer than this is refused: an answer echoes its id, and a server must not write back whatever it was sent. */
export const MAX_REQUEST_ID_CHARS = 128;
/** Concurrent connections on the public socket; the next gets -32000. */
export const MAX_CONNECTIONS = 64;
/**
 * Of those, how many may hold a stream (`events.subscribe`); the next subscriber gets -32000. The
 * rest stay free for one-shot requests (the CLI, hooks, the MCP bridge).
 */
export const MAX_SUBSCRIBERS = 48;
/**
 * The host's socket (REFERENCE.md §1.2): a control frame (any request but `session.input`) is at
 * most 64 KiB, a data frame (`session.input`) at most 1 MiB, a connection has at most 64 requests
 * waiting for their answers, and a checkpoint is at most 64 MiB (else -32022).
 */
export const HOST_CONTROL_FRAME_BYTES = 64 * 1024;
export const HOST_DATA_FRAME_BYTES = 1024 * 1024;
export const HOST_CONNECTION_QUEUE = 64;
export const HOST_CHECKPOINT_MAX_BYTES = 64 * 1024 * 1024;
/**
 * Serve's follow of the host (§1.3): frames it holds before it drops them all and resubscribes for
 * a fresh snapshot, and how long a silent follow may last before serve reconnects (the host sends
 * a keepalive well within it).
 */
export const FOLLOW_QUEUE_FRAMES = 1024;
/** The most frames the host holds for any follower (its default; a follower may ask fewer). */
export const HOST_FOLLOW_MAX_FRAMES = 4096;
export const FOLLOW_READ_TIMEOUT_MS = 30_000;
/** A follower that asked for keepalives gets one after this long without frames. */
export const FOLLOW_KEEPALIVE_MS = 10_000;
/** The raw output the host keeps per session for mirrors (`session.output`: older offsets are -32021 `offset_evicted`). */
export const OUTPUT_TAIL_BYTES = 8 * 1024 * 1024;
/** One `output_data` frame carries at most this much. */
export const OUTPUT_CHUNK_BYTES = 64 * 1024;
/**
 * A `session.output` stream holds output this long for more, unless it asks its own `gather_ms`
 * (a face that draws less often than a display refreshes: attach draws every 33 ms).
 */
export const OUTPUT_GATHER_MS = 16;
/** The longest gather a stream may ask for. */
export const OUTPUT_GATHER_MAX_MS = 1000;
/** A `session.output` stream that asked for keepalives gets one this often. */
export const OUTPUT_KEEPALIVE_MS = 2000;
/** `session.create`'s `scrollback` when it names none: rows a session keeps. */
export const SESSION_SCROLLBACK_DEFAULT = 100_000;
/** A manifest's `final_output`: at most this much of the last screen's text (REFERENCE.md §1.1). */
export const FINAL_OUTPUT_BYTES = 512 * 1024;
/** A request serve makes of the host that has no answer within this fails with -32010 `host_timeout`. */
export const HOST_REQUEST_TIMEOUT_MS = 10_000;
/** A connection that has not sent a complete line within this is closed. */
export const REQUEST_DEADLINE_MS = 10_000;
/**
 * On the public socket a connection that has not sent its (one) request line within this is
 * closed, and at the connection cap a newcomer takes the place of the oldest connection that has
 * sent none: a client sends its line as it connects, so idle connections cannot keep it out.
 */
export const FIRST_LINE_DEADLINE_MS = 2000;
/** Frames queued per event subscriber before newer ones are counted and dropped. */
export const SUBSCRIBER_QUEUE_FRAMES = 1024;
/** A subscriber that got no frame for this long gets a heartbeat. */
export const HEARTBEAT_MS = 5000;
/** A stream's frames (events, follow frames) wait in the server's queue, not in the socket, once the socket holds this much. */
export const SOCKET_HIGH_WATER = 64 * 1024;
/** Outcome changes serve's activity log keeps (REFERENCE.md §3.4), for the whole home; older ones go. */
export const ACTIVITY_LOG_ENTRIES = 256;
/** `surface_changed` goes out at most once per pane in this window. */
export const SURFACE_CHANGED_MS = 50;

/** `surface.read` / `session.read` window. */
export const READ_LINES_DEFAULT = 200;
export const READ_LINES_MAX = 4000;
export const SEARCH_MATCHES_DEFAULT = 50;
export const SEARCH_MATCHES_MAX = 1000;

/** A keystroke's name (`ctrl-alt-shift-pagedown` is 23): a longer one is no key, and is not echoed back whole. */
export const MAX_KEYSTROKE_CHARS = 64;
/** Text one `surface.send_text` may carry (UTF-8). */
export const MAX_SEND_TEXT_BYTES = 64 * 1024;
/** A submit to a declaring agent is confirmed by its state within this. */
export const SUBMIT_CONFIRM_MS = 3000;
/**
 * How long serve waits for a restarted agent's resume to be judged (resumed or failed) before it
 * answers `pending`, and how many agents a restore starts at once (each starts its own model
 * session, its own I/O).
 */
export const RESUME_WAIT_MS = 15_000;
export const RESTORE_CONCURRENCY = 2;
/** How long serve lets the host stop a closed pane's session (TERM, then KILL after the host's 5 s). */
export const SESSION_STOP_WAIT_MS = 15_000;
/** An agent is ready for input once it declares idle, or its output has been quiet this long… */
export const READY_QUIET_MS = 1000;
/** …and at the latest this long after it started. */
export const READY_DEADLINE_MS = 30_000;

/**
 * The replay of deep scrollback rows (their text with SGR) a checkpoint carries at most: the
 * newest rows that fit, so a mirror re-attaching gets the stored depth (100,000 coloured agent-like
 * rows take about 8 MiB) without the cap (HOST_CHECKPOINT_MAX_BYTES) refusing it.
 */
export const CHECKPOINT_REPLAY_BYTES = 16 * 1024 * 1024;

/**
 * Files Paneflow reads (`readRegularFile` of @paneflow/proc): only regular files, and a larger
 * one is refused unread. The config is a few hundred bytes; a file of the home (workspaces.json,
 * a manifest with its ≤ 512 KiB of text kept at exit, a turn record) stays far below its cap.
 */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;
export const HOME_FILE_MAX_BYTES = 64 * 1024 * 1024;
/** An agent's transcript grows for good: at most this much of its end is read for one turn. */
export const TRANSCRIPT_READ_BYTES = 16 * 1024 * 1024;

/** The largest pid Linux hands out (`pid_max` can be at most 2^22). */
export const PID_MAX = 4_194_304;

/**
 * The turn ledger: what one record keeps (a turn's prompt, each message and answer clipped to
 * TURN_TEXT_BYTES; at most this many messages, questions and files), untracked files a snapshot
 * leaves out for their size, how much of git's diff one `turn.diff` carries, and how many records
 * (with their git refs) are kept per session and in the whole home, oldest pruned first.
 */
export const TURN_TEXT_BYTES = 512;
export const TURN_MESSAGES_KEPT = 64;
export const TURN_QUESTIONS_KEPT = 32;
export const TURN_FILES_KEPT = 100;
export const TURN_SNAPSHOT_FILE_BYTES = 16 * 1024 * 1024;
export const TURN_DIFF_MAX_BYTES = 4 * 1024 * 1024;
export const TURNS_KEPT_PER_SESSION = 100;
export const TURNS_KEPT = 2000;

/**
 * How long after a paste its Enter goes (REFERENCE.md §4.4, `submit_paste_delay_ms` in the
 * config): an agent's input box takes text and Enter that arrive together as one paste.
 */
export const SUBMIT_PASTE_DELAY_MS = 70;
/**
 * The range of `submit_paste_delay_ms` in the config (REFERENCE.md §10): a value outside it is
 * said in serve.log and the nearest bound used, never taken silently.
 */
export const SUBMIT_PASTE_DELAY_MIN_MS = 10;
/** The longest `submit_paste_delay_ms` the config may set. */
export const SUBMIT_PASTE_DELAY_MAX_MS = 5000;
/** The longest `settle_ms` a runtime's `[answers]` may ask before an answer is typed. */
export const ANSWER_SETTLE_MAX_MS = 5000;
