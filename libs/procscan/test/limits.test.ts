import texts from 'virtual:paneflow-runtimes';
import { findLimitLine, parseCatalog, resetTime, runtimeCatalog } from '../src';

const catalog = runtimeCatalog();
const markers = (slug: string) => catalog.bySlug.get(slug)!.limitMarkers;
/** 2026-12-05 14:10 in Berlin (UTC+1): the moment these lines are read. */
const NOW = Date.UTC(2026, 11, 5, 13, 10);
const at = (iso: string) => Date.parse(iso);

describe('reset times as the agents print them', () => {
  test.each([
    ['3pm, Berlin', { clock: '3pm', zone: 'Europe/Berlin' }, '2026-12-05T14:00:00Z'],
    ['3:30pm, Berlin', { clock: '3:30pm', zone: 'Europe/Berlin' }, '2026-12-05T14:30:00Z'],
    ['3:04 PM with a narrow no-break space, local zone', { clock: '3:04\u202fPM' }, '2026-12-05T14:04:00Z'],
    ['12am is midnight, so tomorrow', { clock: '12am', zone: 'Europe/Berlin' }, '2026-12-05T23:00:00Z'],
    ['12pm is noon, gone by more than an hour: tomorrow', { clock: '12pm', zone: 'Europe/Berlin' }, '2026-12-06T11:00:00Z'],
    ['a clock passed minutes ago is today (the limit is over)', { clock: '2pm', zone: 'Europe/Berlin' }, '2026-12-05T13:00:00Z'],
    ['a 24-hour clock', { clock: '15:00', zone: 'America/New_York' }, '2026-12-05T20:00:00Z'],
    ['another zone than the local one', { clock: '9am', zone: 'Asia/Tokyo' }, '2026-12-06T00:00:00Z'],
    ['a date (Claude Code past a day)', { date: 'Dec 8', clock: '3pm', zone: 'Europe/Berlin' }, '2026-12-08T14:00:00Z'],
    ['a date in January read in December is next year', { date: 'Jan 2', clock: '10am', zone: 'Europe/Berlin' }, '2027-01-02T09:00:00Z'],
    ['a date with a year and an ordinal (Codex)', { date: 'Dec 6th', year: '2026', clock: '3:04 PM' }, '2026-12-06T14:04:00Z'],
    ['an epoch in seconds', { epoch: '1796565600' }, '2026-12-06T14:00:00Z'],
    ['a duration', { in: '2 hours 5 minutes' }, '2026-12-05T15:15:00Z'],
    ['a short duration', { in: '1h 30m' }, '2026-12-05T14:40:00Z'],
  ])('%s', (_name, groups, expected) => {
    expect(resetTime(groups, NOW, 'Europe/Berlin')).toBe(at(expected));
  });

  test('past midnight: a clock after midnight read late in the evening is the next day', () => {
    const late = Date.UTC(2026, 11, 5, 22, 30); // 23:30 in Berlin
    expect(resetTime({ clock: '1am', zone: 'Europe/Berlin' }, late, 'UTC')).toBe(at('2026-12-06T00:00:00Z'));
  });

  test('across a change of daylight saving time the wall clock still holds', () => {
    const beforeChange = Date.UTC(2026, 2, 28, 20, 0); // Saturday 21:00 in Berlin, CET
    expect(resetTime({ clock: '3am', zone: 'Europe/Berlin' }, beforeChange, 'UTC')).toBe(at('2026-03-29T01:00:00Z'));
  });

  test.each([
    ['no group', {}],
    ['no am/pm and no minutes', { clock: '3' }],
    ['13pm', { clock: '13pm' }],
    ['an unknown zone', { clock: '3pm', zone: 'Mars/Olympus' }],
    ['an unknown month', { date: 'Foo 3', clock: '3pm' }],
    ['a duration of words', { in: 'a while' }],
  ])('unreadable: %s', (_name, groups) => {
    expect(resetTime(groups as Record<string, string>, NOW, 'Europe/Berlin')).toBeNull();
  });
});

describe("the runtimes' markers over the agents' own lines", () => {
  test('Claude Code: the limit line with its reset, the newest on the screen', () => {
    const lines = ['> fix the tests', "  ⎿  You've hit your session limit · resets 3pm (Europe/Berlin)", '> continue', "  ⎿  You've hit your weekly limit · resets Dec 8, 3:30pm (Europe/Berlin)", ''];
    expect(findLimitLine(markers('claude-code'), lines, NOW, 'UTC')).toEqual({ line: "⎿  You've hit your weekly limit · resets Dec 8, 3:30pm (Europe/Berlin)", index: 3, resetsAtMs: at('2026-12-08T14:30:00Z') });
  });

  test('Claude Code: another year, and a limit that names no reset', () => {
    expect(findLimitLine(markers('claude-code'), ["You've hit your Opus limit · resets Jan 3, 2027, 9am (UTC)"], NOW, 'UTC')?.resetsAtMs).toBe(at('2027-01-03T09:00:00Z'));
    expect(findLimitLine(markers('claude-code'), ["You've hit your monthly spend limit. /model to switch models."], NOW, 'UTC')).toMatchObject({ resetsAtMs: null });
  });

  test('Codex: the same day, another day, and the workspace limit without a reset', () => {
    const same = '■ You’ve hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at 3:04 PM.';
    expect(findLimitLine(markers('codex'), [same], NOW, 'Europe/Berlin')?.resetsAtMs).toBe(at('2026-12-05T14:04:00Z'));
    const later = 'You’ve hit your usage limit. Visit https://chatgpt.com/settings/usage to purchase more credits or try again at Dec 7th, 2026 9:15 AM.';
    expect(findLimitLine(markers('codex'), [later], NOW, 'Europe/Berlin')?.resetsAtMs).toBe(at('2026-12-07T08:15:00Z'));
    expect(findLimitLine(markers('codex'), ['You’ve reached your usage limit. Increase your limits to continue using codex.'], NOW, 'UTC')).toMatchObject({ resetsAtMs: null });
  });

  test('a line that only talks about limits is none', () => {
    expect(findLimitLine(markers('claude-code'), ['Approaching usage limit · resets 3pm', 'the limit of the loop'], NOW, 'UTC')).toBeNull();
  });
});

describe('the catalog checks [limits] and [supervisor]', () => {
  const withLimits = (limits: string) => () => parseCatalog({ ...texts, pi: `${texts.pi}\n[limits]\n${limits}\n` });

  test('a marker that is no regular expression', () => {
    expect(withLimits("markers = ['(unclosed']")).toThrow(/runtimes\/pi\/runtime.toml: limits.markers: .*Unterminated group/);
  });

  test('a group the parser does not know', () => {
    expect(withLimits("markers = ['resets (?<when>\\d+)']")).toThrow(/runtimes\/pi\/runtime.toml: limits.markers: unknown group 'when'/);
  });

  test('no markers, or an unknown key', () => {
    expect(withLimits('markers = []')).toThrow(/runtimes\/pi\/runtime.toml: limits.markers/);
    expect(withLimits("markers = ['x']\nreset_format = 'x'")).toThrow(/runtimes\/pi\/runtime.toml: limits: unknown key 'reset_format'/);
  });

  test('a nudge key that is no key name', () => {
    expect(() => parseCatalog({ ...texts, pi: `${texts.pi}\n[supervisor]\nnudge_keys = ["Esc Esc"]\n` })).toThrow(/runtimes\/pi\/runtime.toml: supervisor.nudge_keys/);
  });

  test('the markers compile once, with the runtimes that have them', () => {
    expect(catalog.runtimes.filter((r) => r.limitMarkers.length > 0).map((r) => r.slug)).toEqual(['claude-code', 'codex']);
    expect(catalog.bySlug.get('claude-code')!.supervisor).toEqual({ nudge_keys: ['escape'], nudge_prompt: 'continue' });
    expect(catalog.bySlug.get('codex')!.limits?.continue_prompt).toBe('continue');
  });
});
