/**
 * A violation: something the program meant is lost, or the spec forbids it.
 * A warning: the terminal accepts the report, but something the program sent has no effect.
 */
export type Severity = 'violation' | 'warning';

export interface RuleInfo {
  rule: string;
  /** The section of OSC7501.md the rule rests on. */
  section: string;
  severity: Severity;
  summary: string;
}

// In the order findings of one sequence are listed: framing, then the body, then the stream.
const RULES = [
  { rule: 'framing.too_long', section: '§2.4', severity: 'violation', summary: 'The sequence is over 4096 bytes; it is discarded.' },
  { rule: 'framing.aborted', section: '§2.6', severity: 'violation', summary: 'CAN or SUB inside the sequence aborts it; nothing is applied.' },
  { rule: 'framing.unterminated', section: '§2.1', severity: 'violation', summary: 'The program exited inside a sequence (no BEL or ST); nothing is applied.' },
  { rule: 'framing.c1_terminator', section: '§2.3', severity: 'violation', summary: 'A 0x9C byte outside any UTF-8 character: C1 ST is not a terminator, the sequence runs on.' },
  { rule: 'framing.control_dropped', section: '§2.6', severity: 'warning', summary: 'C0 control bytes inside the sequence are dropped.' },
  { rule: 'framing.esc_terminator', section: '§2.7', severity: 'warning', summary: 'The sequence ends at an ESC not followed by "\\" (taken as ST).' },
  { rule: 'query.malformed', section: '§7.1', severity: 'violation', summary: 'A body that starts with "?" but is not exactly "?": no reply, discarded.' },
  { rule: 'grammar.key_too_long', section: '§3.5', severity: 'violation', summary: 'A key over 16 bytes discards the report.' },
  { rule: 'state.missing', section: '§4', severity: 'violation', summary: 'No visible state, or an empty one: the report is discarded.' },
  { rule: 'state.unknown', section: '§4', severity: 'violation', summary: 'A state other than idle, working, done, blocked, error, clear: discarded.' },
  { rule: 'id.invalid', section: '§4', severity: 'violation', summary: 'An invalid id (any occurrence) discards the report.' },
  { rule: 'app.too_long', section: '§6.3', severity: 'violation', summary: 'An app over 32 bytes (any visible occurrence) discards the report.' },
  { rule: 'text.encoded_too_long', section: '§6.3', severity: 'violation', summary: 'A title over 256 or msg over 2732 bytes (any visible occurrence) discards the report.' },
  { rule: 'text.base64', section: '§5.1', severity: 'violation', summary: 'A title or msg that is not strict standard base64 discards the report.' },
  { rule: 'text.decoded_too_long', section: '§5.3', severity: 'violation', summary: 'A title over 192 or msg over 2048 decoded bytes discards the report.' },
  { rule: 'text.utf8', section: '§5.2', severity: 'violation', summary: 'A title or msg that decodes to malformed UTF-8 discards the report.' },
  { rule: 'text.control', section: '§5.2', severity: 'violation', summary: 'A title or msg with a control character (TAB and LF included) discards the report.' },
  { rule: 'grammar.value_alphabet', section: '§3.7', severity: 'violation', summary: 'The last value of a key has a byte outside the value alphabet: the field is invisible.' },
  { rule: 'kind.unknown', section: '§4', severity: 'violation', summary: 'A kind other than permission, question, auth on blocked reads as absent.' },
  { rule: 'progress.invalid', section: '§4', severity: 'violation', summary: 'A progress that is not digits worth 0-100 reads as absent.' },
  { rule: 'app.invalid', section: '§4', severity: 'violation', summary: 'An empty app or one outside [A-Za-z0-9_.+-] reads as absent.' },
  { rule: 'grammar.empty_field', section: '§3.1', severity: 'warning', summary: 'An empty field (":" doubled or at an end) is skipped.' },
  { rule: 'grammar.no_equals', section: '§3.2', severity: 'warning', summary: 'A field without "=" is skipped.' },
  { rule: 'grammar.whitespace', section: '§3.4', severity: 'warning', summary: 'Whitespace around a key or value is trimmed.' },
  { rule: 'grammar.unknown_key', section: '§3.6', severity: 'warning', summary: 'An unknown key is ignored.' },
  { rule: 'grammar.repeated_key', section: '§3.8', severity: 'warning', summary: 'A repeated key: only its last visible occurrence counts.' },
  { rule: 'kind.ignored', section: '§4', severity: 'warning', summary: 'kind on a state other than blocked is ignored.' },
  { rule: 'kind.missing', section: '§4', severity: 'warning', summary: 'blocked without kind: a terminal cannot tell what the program waits for.' },
  { rule: 'progress.ignored', section: '§4', severity: 'warning', summary: 'progress on a state other than working or blocked is ignored.' },
  { rule: 'clear.extra_keys', section: '§8.4', severity: 'warning', summary: 'Keys other than state and id on a clear are ignored.' },
  { rule: 'text.unpadded', section: '§14', severity: 'warning', summary: 'A title or msg without base64 padding: accepted, but encoders pad.' },
  { rule: 'text.empty', section: '§5.5', severity: 'warning', summary: 'An empty title or msg counts as absent.' },
  { rule: 'order.before_reply', section: '§7.3', severity: 'violation', summary: 'A sequence written after a query in the same read, before the reply could exist.' },
  { rule: 'order.reported_unanswered', section: '§7', severity: 'violation', summary: 'A report after a query that got no reply (the terminal lacks support).' },
  { rule: 'order.done_outside_turn', section: '§8', severity: 'warning', summary: 'done for a record with no turn open (no working or blocked since it ended).' },
  { rule: 'order.blocked_outside_turn', section: '§8', severity: 'warning', summary: 'blocked (not auth) for a record with no turn open.' },
  { rule: 'records.evicted', section: '§9', severity: 'warning', summary: 'More than 256 live record ids: the least recently updated is evicted.' },
  { rule: 'exit.left_in_turn', section: '§10', severity: 'warning', summary: 'A working or blocked record is still there at exit; the program should end or clear it.' },
] as const satisfies ReadonlyArray<RuleInfo>;

export type RuleId = (typeof RULES)[number]['rule'];

/** The rules the checker knows: id, section, severity, one-line summary (for docs and `--json` consumers). */
export const CONFORMANCE_RULES: ReadonlyArray<RuleInfo> = RULES;

const RANK = new Map<string, number>(RULES.map((info, rank) => [info.rule, rank]));
const INFO = new Map<string, RuleInfo>(RULES.map((info) => [info.rule, info]));

export function ruleInfo(rule: RuleId): RuleInfo {
  return INFO.get(rule)!;
}

/** Where a rule's findings go among those of one sequence: the table's order. */
export function ruleRank(rule: string): number {
  return RANK.get(rule)!;
}
