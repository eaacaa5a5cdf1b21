import { readRegularFile, readRegularFileSync, RefusedFileError } from '@paneflow/proc';
import { CONFIG_FILE_MAX_BYTES, CONFIG_SETTINGS, SUBMIT_PASTE_DELAY_MAX_MS, SUBMIT_PASTE_DELAY_MIN_MS, SUBMIT_PASTE_DELAY_MS, validate, VISIBILITY_SETTING, SUPERVISOR_DEFAULTS, AnswerRule, isMachineName, MachineSpec, sshOptionFault, type ConfigSetting, type ConfigSettingName, type Presentation } from '@paneflow/protocol';
import { statSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** REFERENCE.md §10. */
export interface Config {
  ai_unrestricted: boolean;
  ai_injection_fence: boolean;
  submit_paste_delay_ms: number;
  /** `terminal.env`: variables injected into new terminals. */
  terminal_env: Record<string, string>;
  agent_stall_threshold_secs: number;
  reduce_motion: boolean;
  /** A runtime's `visibility_config_key` → shown in the desktop. */
  visibility: Record<string, boolean>;
  /** `paneflow attach`: its prefix key, and whether it rings and notifies for agents out of view. */
  attach: { prefix: string; notifications: boolean };
  /** Resume the agents a host crash or a reboot lost when serve starts (two at a time). */
  restore_on_start: boolean;
  /** The supervisor's rules (libs/protocol/src/supervisor.ts): each pattern compiled once, here. */
  answer_rules: Array<AnswerRule & { regex: RegExp }>;
  supervisor: { answer_delay_ms: number; nudge_stalled: boolean; continue_at_reset: boolean; continue_margin_secs: number };
  /** Other machines reached over ssh (issue 32), by name. */
  machines: Record<string, MachineSpec>;
}

export const DEFAULT_CONFIG: Config = {
  ai_unrestricted: false,
  ai_injection_fence: true,
  submit_paste_delay_ms: SUBMIT_PASTE_DELAY_MS,
  terminal_env: {},
  agent_stall_threshold_secs: SUPERVISOR_DEFAULTS.stall_threshold_secs,
  reduce_motion: false,
  visibility: {},
  attach: { prefix: 'ctrl-b', notifications: true },
  restore_on_start: false,
  answer_rules: [],
  supervisor: { answer_delay_ms: SUPERVISOR_DEFAULTS.answer_delay_ms, nudge_stalled: false, continue_at_reset: false, continue_margin_secs: SUPERVISOR_DEFAULTS.continue_margin_secs },
  machines: {},
};

export function configPath(env: Record<string, string | undefined> = process.env): string {
  if (env.PANEFLOW_CONFIG) return env.PANEFLOW_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'paneflow', 'config.json');
}

/**
 * Reads a config file tolerantly, setting by setting against libs/protocol's CONFIG_SETTINGS: what
 * is valid is taken, anything else is reported in `ignored` with its path and its default kept. A
 * config can never stop serve from starting.
 */
export function parseConfig(text: string, visibilityKeys: ReadonlySet<string>): { config: Config; ignored: string[] } {
  const config: Config = { ...DEFAULT_CONFIG, terminal_env: {}, visibility: {}, attach: { ...DEFAULT_CONFIG.attach }, answer_rules: [], supervisor: { ...DEFAULT_CONFIG.supervisor }, machines: {} };
  const ignored: string[] = [];
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { config, ignored: [`not valid JSON (${(error as Error).message}); every key at its default`] };
  }
  if (!isObject(data)) return { config, ignored: ['not a JSON object; every key at its default'] };
  /** The value if the setting takes it; else null, and said. */
  const checked = <T>(path: string, setting: ConfigSetting, value: unknown): T | null => {
    if (validate(setting.schema, value) === null) return value as T;
    ignored.push(`${path}: expected ${setting.expected}, got ${JSON.stringify(value)}`);
    return null;
  };
  const take = (path: string, value: unknown): void => {
    if (!(path in CONFIG_SETTINGS)) {
      const shown = visibilityKeys.has(path) ? checked<boolean>(path, VISIBILITY_SETTING, value) : (ignored.push(`${path}: unknown key`), null);
      if (shown !== null) config.visibility[path] = shown;
      return;
    }
    const name = path as ConfigSettingName;
    const valid = name === 'answer_rules' ? validRules(path, value, ignored) : name === 'machines' ? validMachines(path, value, ignored) : value;
    const taken = checked<never>(path, CONFIG_SETTINGS[name], valid);
    if (taken === null) return;
    APPLY[name](config, taken, (note) => ignored.push(`${path}: ${note}`));
  };
  for (const [key, value] of Object.entries(data)) {
    if (!SECTIONS.has(key)) take(key, value);
    else if (!isObject(value)) ignored.push(`${key}: expected an object`);
    else for (const [name, setting] of Object.entries(value)) take(`${key}.${name}`, setting);
  }
  return { config, ignored };
}

/**
 * The rules a list holds that are rules, each checked on its own: one that is not (a `kind` other
 * than permission, a field unknown or missing) is left out and named by its place, the others kept.
 */
function validRules(path: string, value: unknown, ignored: string[]): unknown {
  if (!Array.isArray(value)) return value;
  return value.filter((rule: unknown, i) => {
    const problem = validate(AnswerRule, rule);
    if (problem === null) return true;
    const where = `${path}[${i}]${problem.field ? `.${problem.field.replaceAll('/', '.')}` : ''}`;
    const why = problem.field === 'kind' ? `a rule answers only "permission" prompts, never a question; got ${JSON.stringify((rule as { kind?: unknown }).kind)}` : problem.message;
    ignored.push(`${where}: ${why}; the rule is left out`);
    return false;
  });
}

/** The machines an object holds that are machines, each checked on its own: a bad one is named and left out. */
function validMachines(path: string, value: unknown, ignored: string[]): unknown {
  if (!isObject(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(value)) {
    const unsafe = (spec as MachineSpec | null)?.ssh_options?.map?.(sshOptionFault).find(Boolean);
    const problem = !isMachineName(name)
      ? { field: '', message: 'a machine name is 1-32 letters, digits, dots, dashes or underscores, starting with a letter or digit' }
      : (validate(MachineSpec, spec) ?? (unsafe ? { field: 'ssh_options', message: unsafe } : null));
    if (problem === null) kept[name] = spec;
    else ignored.push(`${path}.${name}${problem.field ? `.${problem.field.replaceAll('/', '.')}` : ''}: ${problem.message}; the machine is left out`);
  }
  return kept;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Sections of the file whose keys are settings of their own (`attach.prefix`). */
const SECTIONS = new Set(Object.keys(CONFIG_SETTINGS).filter((name) => name.includes('.')).map((name) => name.split('.')[0]));

/** Where each setting goes in `Config`, once its schema has taken the value. */
const APPLY: { [N in ConfigSettingName]: (config: Config, value: never, note: (text: string) => void) => void } = {
  ai_unrestricted: (config, value: boolean) => (config.ai_unrestricted = value),
  ai_injection_fence: (config, value: boolean) => (config.ai_injection_fence = value),
  reduce_motion: (config, value: boolean) => (config.reduce_motion = value),
  restore_on_start: (config, value: boolean) => (config.restore_on_start = value),
  submit_paste_delay_ms: (config, value: number, note) => {
    // Clamped as REFERENCE.md §4.4 says, and said: a delay of -100 is not kept silently.
    config.submit_paste_delay_ms = Math.min(SUBMIT_PASTE_DELAY_MAX_MS, Math.max(SUBMIT_PASTE_DELAY_MIN_MS, Math.round(value)));
    const used = config.submit_paste_delay_ms;
    if (value < SUBMIT_PASTE_DELAY_MIN_MS || value > SUBMIT_PASTE_DELAY_MAX_MS) note(`${value} is outside ${SUBMIT_PASTE_DELAY_MIN_MS}-${SUBMIT_PASTE_DELAY_MAX_MS} ms; ${used} is used`);
    else if (used !== value) note(`${value} is not a whole number of milliseconds; ${used} is used`);
  },
  agent_stall_threshold_secs: (config, value: number) => (config.agent_stall_threshold_secs = value),
  'terminal.env': (config, value: Record<string, string>) => (config.terminal_env = { ...value }),
  'attach.prefix': (config, value: string) => (config.attach.prefix = value),
  'attach.notifications': (config, value: boolean) => (config.attach.notifications = value),
  machines: (config, value: Record<string, MachineSpec>) => (config.machines = { ...value }),
  answer_rules: (config, value: AnswerRule[], note) => {
    const seen = new Set<string>();
    for (const rule of value) {
      if (seen.has(rule.name)) {
        note(`rule '${rule.name}' is named twice; only the first is kept`);
        continue;
      }
      seen.add(rule.name);
      try {
        config.answer_rules.push({ ...rule, regex: new RegExp(rule.pattern, 'u') });
      } catch (error) {
        note(`rule '${rule.name}': pattern is not a regular expression (${(error as Error).message}); the rule is left out`);
      }
    }
  },
  'supervisor.answer_delay_ms': (config, value: number) => (config.supervisor.answer_delay_ms = value),
  'supervisor.nudge_stalled': (config, value: boolean) => (config.supervisor.nudge_stalled = value),
  'supervisor.continue_at_reset': (config, value: boolean) => (config.supervisor.continue_at_reset = value),
  'supervisor.continue_margin_secs': (config, value: number) => (config.supervisor.continue_margin_secs = value),
};

/** What the faces need of the config (`serve.status`'s `presentation`, `presentation_changed`). */
export function presentationOf(config: Config): Presentation {
  return { reduce_motion: config.reduce_motion, attach: config.attach };
}

/** The config is the user's to place: a link to a regular file is fine. */
const READ = { maxBytes: CONFIG_FILE_MAX_BYTES, follow: true };

/** A file that has not changed since it was read keeps this. */
const identity = (info: Stats) => `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;

/**
 * The live config: read again when the file changes (checked at most once a second, on use, and
 * when its directory reports a change, so a shown or hidden agent reaches the faces at once). The
 * first read is done before serve listens; the others off the event loop, so whatever is put in
 * the file's place (`/dev/zero`, a FIFO, a huge file) is refused (`readRegularFile`) and serve
 * answers on. A file refused or gone is logged once, not at each check.
 */
export class ConfigSource {
  private config: Config = DEFAULT_CONFIG;
  /** The file last read or refused (`identity`), null when there was none. */
  private seen: string | null = null;
  private checkedAt = 0;
  /** The problem last logged, until a file is read again. */
  private said: string | null = null;
  private reloading: Promise<void> | null = null;
  private again = false;
  private watcher: FSWatcher | null = null;
  /** Called (on a later turn) when a reload changed which agents are shown. */
  onVisibilityChange: () => void = () => undefined;
  /** Called (on a later turn) when a reload changed what the faces show (`presentationOf`). */
  onPresentationChange: () => void = () => undefined;
  /** Called (on a later turn) when a reload changed the machines (issue 32). */
  onMachinesChange: () => void = () => undefined;

  constructor(
    readonly path: string,
    private readonly visibilityKeys: ReadonlySet<string>,
    private readonly log: (message: string) => void,
  ) {
    this.checkedAt = Date.now();
    let seen: string | null = null;
    try {
      seen = identity(statSync(this.path));
      this.use(readRegularFileSync(this.path, READ));
    } catch (error) {
      this.failed(error as NodeJS.ErrnoException);
    }
    this.seen = seen;
  }

  /** The config in effect; a check for a change, when one is due, takes effect for a later use. */
  get current(): Config {
    if (Date.now() - this.checkedAt >= 1000) void this.reload();
    return this.config;
  }

  /** Watches the file's directory (inotify: no wake-ups while nothing changes); none when it does not exist. */
  watch(): void {
    try {
      this.watcher = watch(dirname(this.path), { persistent: false }, (_event, name) => {
        if (name === null || name === basename(this.path)) void this.reload();
      });
      this.watcher.on('error', () => this.unwatch());
    } catch {
      // No directory yet: the check on use still sees a new file.
    }
  }

  unwatch(): void {
    this.watcher?.close();
    this.watcher = null;
  }

  /** One read at a time; a reload asked for meanwhile runs once after it. */
  reload(): Promise<void> {
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    const run = async () => {
      do {
        this.again = false;
        await this.load();
      } while (this.again);
    };
    this.reloading = run().finally(() => (this.reloading = null));
    return this.reloading;
  }

  private async load(): Promise<void> {
    this.checkedAt = Date.now();
    let seen: string | null = null;
    try {
      seen = identity(await stat(this.path));
      if (seen === this.seen) return;
      this.use(await readRegularFile(this.path, READ));
    } catch (error) {
      this.failed(error as NodeJS.ErrnoException);
    }
    this.seen = seen;
  }

  private use(bytes: Buffer): void {
    const { config, ignored } = parseConfig(bytes.toString('utf8'), this.visibilityKeys);
    for (const problem of ignored) this.log(`config ${this.path}: ignored ${problem}`);
    this.said = null;
    this.set(config);
  }

  /** Defaults in effect; said once (no file at all, before there was one, is no news). */
  private failed(error: NodeJS.ErrnoException): void {
    const gone = error.code === 'ENOENT';
    const message = gone
      ? `config ${this.path} is gone; defaults in effect`
      : error instanceof RefusedFileError
        ? `config ${this.path} refused: ${error.why}; defaults in effect`
        : `config ${this.path} unreadable (${error.message}); defaults in effect`;
    if (message !== this.said && !(gone && this.seen === null)) this.log(message);
    this.said = message;
    this.set(DEFAULT_CONFIG);
  }

  private set(config: Config): void {
    const visibility = JSON.stringify(this.config.visibility);
    const presentation = JSON.stringify(presentationOf(this.config));
    const machines = JSON.stringify(this.config.machines);
    this.config = config;
    if (JSON.stringify(config.machines) !== machines) setImmediate(() => this.onMachinesChange());
    if (JSON.stringify(config.visibility) !== visibility) setImmediate(() => this.onVisibilityChange());
    if (JSON.stringify(presentationOf(config)) !== presentation) setImmediate(() => this.onPresentationChange());
  }
}
