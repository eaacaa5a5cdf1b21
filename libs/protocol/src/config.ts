import Type, { type TSchema } from 'typebox';
import { SUBMIT_PASTE_DELAY_MAX_MS, SUBMIT_PASTE_DELAY_MIN_MS } from './limits';

/** One setting of config.json: its schema, and what it takes in a person's words (said when a value is not). */
export interface ConfigSetting {
  schema: TSchema;
  expected: string;
}

const BOOLEAN: ConfigSetting = { schema: Type.Boolean(), expected: 'true or false' };

/**
 * config.json (REFERENCE.md §10), setting by setting: a section's settings (`terminal.env`,
 * `attach.prefix`) are named by their dotted path. Serve reads the file leaf by leaf against these
 * schemas, so a wrong value keeps its default, is named with its path, and the rest is taken. A
 * runtime's `visibility_config_key` is a boolean setting of its own (`VISIBILITY_SETTING`).
 */
export const CONFIG_SETTINGS = {
  ai_unrestricted: BOOLEAN,
  ai_injection_fence: BOOLEAN,
  reduce_motion: BOOLEAN,
  restore_on_start: BOOLEAN,
  // Outside its range it is clamped, and said (REFERENCE.md §4.4).
  submit_paste_delay_ms: { schema: Type.Number(), expected: `a number of milliseconds (${SUBMIT_PASTE_DELAY_MIN_MS}-${SUBMIT_PASTE_DELAY_MAX_MS})` },
  agent_stall_threshold_secs: { schema: Type.Number({ minimum: 0 }), expected: 'a number of seconds >= 0' },
  'terminal.env': { schema: Type.Record(Type.String(), Type.String()), expected: 'an object of strings' },
  'attach.prefix': { schema: Type.String({ pattern: '^(ctrl|alt)-[a-z]$' }), expected: 'ctrl-<letter> or alt-<letter>' },
  'attach.notifications': BOOLEAN,
} as const satisfies Record<string, ConfigSetting>;

export type ConfigSettingName = keyof typeof CONFIG_SETTINGS;

/** A runtime's visibility key (`show_agent_codex`): shown in the faces or not. */
export const VISIBILITY_SETTING: ConfigSetting = BOOLEAN;
