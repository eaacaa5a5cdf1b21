import type { KINDS, STATES } from './limits';

/** The five states a program can declare (OSC7501.md §4). */
export type State = (typeof STATES)[number];
/** What a blocked program is waiting for. */
export type Kind = (typeof KINDS)[number];
/** How a sequence ended: `ST` (`ESC \`, or an `ESC` that ended it) or `BEL`. */
export type Terminator = 'st' | 'bel';

export type DiscardReason =
  | 'sequence_too_long'
  | 'too_long'
  | 'invalid_id'
  | 'invalid_text'
  | 'missing_or_unknown_state';

export interface ReportItem {
  type: 'report';
  /** `null` addresses the root record (the program itself). */
  id: string | null;
  state: State;
  kind: Kind | null;
  progress: number | null;
  app: string | null;
  /** Decoded text, exactly as sent (clean it with `sanitizeForDisplay` before showing it). */
  title: string | null;
  msg: string | null;
}

export interface ClearItem {
  type: 'clear';
  /** `null` clears every record. */
  id: string | null;
}

export interface QueryItem {
  type: 'query';
  terminator: Terminator;
}

export interface DiscardedItem {
  type: 'discarded';
  /** Informative only: compare `type`. */
  reason: DiscardReason;
}

/** One OSC 7501 sequence, interpreted (OSC7501.md §12). */
export type Parsed = ReportItem | ClearItem | QueryItem | DiscardedItem;

/** A stored status record (OSC7501.md §8). */
export interface StatusRecord {
  id: string | null;
  state: State;
  kind: Kind | null;
  progress: number | null;
  app: string | null;
  /** The record's own app, else its nearest ancestor's; computed live. */
  effectiveApp: string | null;
  title: string | null;
  msg: string | null;
}

export type Change =
  | { type: 'set'; id: string | null }
  | { type: 'removed'; id: string | null }
  | { type: 'evicted'; id: string | null };
