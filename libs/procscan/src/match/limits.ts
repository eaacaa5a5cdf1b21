/**
 * Usage-limit lines (a runtime's `[limits]`): which screen line says the agent hit its limit, and
 * when the limit resets, read the way the agent printed it. Pure: the clock and the local time
 * zone are given; zones are read through Intl.
 */

/** The named groups a marker may use to say where the reset time is in its line. */
export const LIMIT_GROUPS = ['clock', 'date', 'year', 'zone', 'epoch', 'in'] as const;

/** A marker's line, where it is among the lines given, and the reset it names (null: the line does not say, or not readably). */
export interface LimitLine {
  line: string;
  index: number;
  resetsAtMs: number | null;
}

/** The named groups a marker's source declares, for the catalog's check. */
export function markerGroups(source: string): string[] {
  return [...source.matchAll(/\(\?<([A-Za-z_][A-Za-z0-9_]*)>/g)].map((m) => m[1]);
}

/** The last of `lines` that one of `markers` matches (the newest limit on the screen), with its reset. */
export function findLimitLine(markers: readonly RegExp[], lines: readonly string[], nowMs: number, localZone: string): LimitLine | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    for (const marker of markers) {
      const match = marker.exec(lines[i]);
      if (match) return { line: lines[i].trim(), index: i, resetsAtMs: resetTime(match.groups ?? {}, nowMs, localZone) };
    }
  }
  return null;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };
/** A clock time already past by more than this is the same time tomorrow (a reset is never long gone). */
const PAST_GRACE_MS = 60 * 60 * 1000;

/**
 * When a limit resets, from a marker's groups: `epoch` (seconds, or milliseconds past 1e12); `in`
 * (a duration: `2 hours 5 minutes`, `2h 5m`, `30s`); or `clock` (`3pm`, `3:30pm`, `3:04 PM`, `15:00`)
 * with an optional `date` (`Dec 6`, `Dec 6th`), `year` and `zone` (an IANA name such as
 * `Europe/Berlin`; else `localZone`). A clock without a date is its next occurrence, unless it
 * passed less than an hour ago. Null when the groups say nothing readable.
 */
export function resetTime(groups: Record<string, string | undefined>, nowMs: number, localZone: string): number | null {
  if (groups.epoch !== undefined) {
    const value = Number(groups.epoch);
    if (!Number.isFinite(value) || value <= 0) return null;
    return value < 1e12 ? value * 1000 : value;
  }
  if (groups.in !== undefined) {
    const duration = durationMs(groups.in);
    return duration === null ? null : nowMs + duration;
  }
  if (groups.clock === undefined) return null;
  const clock = parseClock(groups.clock);
  const zone = groups.zone?.trim() || localZone;
  if (!clock || !validZone(zone)) return null;
  const today = wallClock(nowMs, zone);
  if (groups.date !== undefined) {
    const date = /^([A-Za-z]{3})[a-z]*\.? +(\d{1,2})(?:st|nd|rd|th)?$/.exec(groups.date.trim());
    const month = date ? MONTHS.indexOf(date[1].toLowerCase()) : -1;
    if (!date || month === -1) return null;
    const day = Number(date[2]);
    if (groups.year !== undefined) return zonedTime(Number(groups.year), month, day, clock.hour, clock.minute, zone);
    const at = zonedTime(today.year, month, day, clock.hour, clock.minute, zone);
    // A date without a year more than half a year back is next year's (December printing January).
    return at < nowMs - 183 * 86_400_000 ? zonedTime(today.year + 1, month, day, clock.hour, clock.minute, zone) : at;
  }
  const at = zonedTime(today.year, today.month, today.day, clock.hour, clock.minute, zone);
  return at < nowMs - PAST_GRACE_MS ? zonedTime(today.year, today.month, today.day + 1, clock.hour, clock.minute, zone) : at;
}

/** `3pm`, `3:30pm`, `3:04 PM`, `15:00` as 24-hour hour and minute; null when it is none of them. */
function parseClock(text: string): { hour: number; minute: number } | null {
  const m = /^(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?$/i.exec(text.trim());
  if (!m || (m[2] === undefined && m[3] === undefined)) return null;
  let hour = Number(m[1]);
  const minute = Number(m[2] ?? 0);
  if (minute > 59) return null;
  if (m[3]) {
    if (hour < 1 || hour > 12) return null;
    const pm = m[3][0].toLowerCase() === 'p';
    hour = (hour % 12) + (pm ? 12 : 0);
  } else if (hour > 23) return null;
  return { hour, minute };
}

/** `2 hours 5 minutes`, `2h 5m`, `1 day`, `30s` in milliseconds; null when no part is a duration. */
function durationMs(text: string): number | null {
  let total = 0;
  let parts = 0;
  const rest = text.replace(/(\d+(?:\.\d+)?)\s*(d(?:ays?)?|h(?:ours?|rs?)?|m(?:in(?:ute)?s?)?|s(?:ec(?:ond)?s?)?)\b/gi, (_, n: string, unit: string) => {
    total += Number(n) * UNIT_MS[unit[0].toLowerCase()];
    parts++;
    return '';
  });
  return parts > 0 && /^[\s,and]*$/i.test(rest) ? Math.round(total) : null;
}

function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** The wall clock in `zone` at `ms`. */
function wallClock(ms: number, zone: string): { year: number; month: number; day: number; hour: number; minute: number } {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formats.set(zone, format);
  }
  const part = (type: string) => Number(format.formatToParts(ms).find((p) => p.type === type)?.value);
  return { year: part('year'), month: part('month') - 1, day: part('day'), hour: part('hour'), minute: part('minute') };
}

/** How far `zone`'s wall clock is ahead of UTC at `ms`. */
function zoneOffsetMs(ms: number, zone: string): number {
  const w = wallClock(ms, zone);
  return Date.UTC(w.year, w.month, w.day, w.hour, w.minute) - Math.floor(ms / 60_000) * 60_000;
}

/** The moment `zone`'s wall clock shows that time (month 0-based; a day past the month's end rolls over). */
function zonedTime(year: number, month: number, day: number, hour: number, minute: number, zone: string): number {
  const wall = Date.UTC(year, month, day, hour, minute);
  const first = wall - zoneOffsetMs(wall, zone);
  // Across a DST change the offset at the answer may differ from the offset at the guess.
  return wall - zoneOffsetMs(first, zone);
}
