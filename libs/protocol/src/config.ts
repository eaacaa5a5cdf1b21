import Type, { type TSchema } from 'typebox';
import { SUBMIT_PASTE_DELAY_MAX_MS, SUBMIT_PASTE_DELAY_MIN_MS } from './limits';
import { MachineSpec } from './machines';
import { AnswerRule } from './supervisor';

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
  // The supervisor (libs/protocol/src/supervisor.ts): every action off unless asked for.
  answer_rules: { schema: Type.Array(AnswerRule, { maxItems: 100 }), expected: 'a list of rules {name, runtime?, kind: "permission", pattern, answer, per_hour?}' },
  'supervisor.answer_delay_ms': { schema: Type.Integer({ minimum: 0, maximum: 600000 }), expected: 'a whole number of milliseconds (0-600000)' },
  'supervisor.nudge_stalled': BOOLEAN,
  'supervisor.continue_at_reset': BOOLEAN,
  'supervisor.continue_margin_secs': { schema: Type.Integer({ minimum: 0, maximum: 3600 }), expected: 'a whole number of seconds (0-3600)' },
  // Other machines reached over ssh (issue 32), by name: each bad one named and left out.
  machines: { schema: Type.Record(Type.String(), MachineSpec), expected: 'an object of machines {NAME: {destination, ssh_options?, remote_command?}}' },
} as const satisfies Record<string, ConfigSetting>;

export type ConfigSettingName = keyof typeof CONFIG_SETTINGS;

/** A runtime's visibility key (`show_agent_codex`): shown in the faces or not. */
export const VISIBILITY_SETTING: ConfigSetting = BOOLEAN;
