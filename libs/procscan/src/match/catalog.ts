import TOML from '@ltd/j-toml';
import { HOOK_TOOLS, type HookTool } from '@paneflow/protocol/hooks';
import { ANSWER_SETTLE_MAX_MS } from '@paneflow/protocol/limits';
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { LIMIT_GROUPS, markerGroups } from './limits';
import { CatalogError, schemaProblems } from './problems';
import { TOKEN_READERS, type TokenReader } from './tokens';

export { CatalogError };

const closed = { additionalProperties: false } as const;
const Platform = Type.Union([Type.Literal('linux'), Type.Literal('macos'), Type.Literal('windows')]);
const Argv = Type.Array(Type.String({ minLength: 1 }), { minItems: 1 });
/**
 * Where a file or directory of the agent's is, as candidates (`resolvePath`, src/paths.ts): the first
 * that resolves wins. `$VAR` or `$VAR/…` while the variable is set, `~/…` under HOME, any other
 * path under `config_dir` (in `config_dir` itself, as it is).
 */
const Candidates = Type.Array(Type.String({ minLength: 1 }), { minItems: 1 });

/**
 * How one kind of prompt is answered from outside the pane (`paneflow answer`): `choices` maps an
 * answer's name to what is typed for it (in the menu's order), `text` says a free-text answer is
 * typed and submitted with Enter, `settle_ms` how long after the prompt is declared it takes keys
 * (an agent may report its menu before the menu listens).
 */
const AnswerTable = Type.Object(
  {
    choices: Type.Optional(Type.Record(Type.String(), Type.String({ minLength: 1, maxLength: 16 }))),
    text: Type.Optional(Type.Boolean()),
    settle_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: ANSWER_SETTLE_MAX_MS })),
  },
  { additionalProperties: false },
);

/** `runtimes/<slug>/runtime.toml` (REFERENCE.md §6.1): data only, checked strictly. */
export const RuntimeDescriptor = Type.Object(
  {
    schema_version: Type.Literal(1),
    id: Type.String({ pattern: '^[a-z0-9-]+(\\.[a-z0-9-]+)+$' }),
    slug: Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }),
    label: Type.String({ minLength: 1 }),
    platforms: Type.Array(Platform, { minItems: 1, uniqueItems: true }),
    display: Type.Object(
      {
        order: Type.Integer({ minimum: 0 }),
        tint: Type.Optional(Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' })),
        icon_asset_path: Type.String({ minLength: 1 }),
        icon_multicolor: Type.Boolean(),
        visibility_config_key: Type.String({ pattern: '^[a-z0-9_]+$' }),
      },
      closed,
    ),
    detection: Type.Object(
      {
        command_aliases: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
        process_aliases: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
        script_path_signatures: Type.Array(Type.String({ minLength: 1 })),
        title_prefix: Type.Optional(Type.String({ minLength: 1 })),
      },
      closed,
    ),
    environment: Type.Object({ strip_inherited: Type.Array(Type.String({ minLength: 1 })) }, closed),
    integration: Type.Object(
      {
        summary: Type.String({ minLength: 1 }),
        post_install_step: Type.Optional(Type.String()),
        /** The hook vocabulary is the protocol's; `none` for an agent Paneflow has no hooks for. */
        hook_adapter: Type.Unsafe<HookTool | 'none'>(Type.Union([...HOOK_TOOLS.map((tool) => Type.Literal(tool)), Type.Literal('none')])),
        /** The format of the agent's MCP server list, which `mcp install` edits in `mcp_file`. */
        mcp_config: Type.Optional(Type.Union([Type.Literal('claude'), Type.Literal('codex'), Type.Literal('gemini'), Type.Literal('opencode')])),
        skills_dir: Type.Optional(Type.String()),
        /** The agent's configuration directory, read in the agent's environment (session files) or the user's (`hooks`, `mcp`). */
        config_dir: Type.Optional(Candidates),
        /** The settings file `hooks setup` puts the hooks in, under `config_dir`. */
        hooks_file: Type.Optional(Type.String({ minLength: 1 })),
        /** The file holding the agent's MCP servers. */
        mcp_file: Type.Optional(Candidates),
      },
      closed,
    ),
    status: Type.Object({ first_version: Type.Optional(Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$' })) }, closed),
    resume: Type.Optional(
      Type.Object(
        {
          session_argv: Argv,
          continue_argv: Type.Optional(Argv),
          fork_argv: Type.Optional(Argv),
          session_id_pattern: Type.String({ minLength: 1 }),
          failure_markers: Type.Array(Type.String({ minLength: 1 })),
        },
        closed,
      ),
    ),
    /**
     * Where the agent keeps its sessions, to learn a pane's conversation id without hooks.
     * `pid_file`: a JSON file per running process (`file` under `integration.config_dir`, with
     * `{pid}`), whose `id_key` holds the id and `process_start_key` the process's kernel start time
     * (so a recycled pid never matches); `transcript` (with `{id}`, one `*` directory allowed) is
     * where the conversation is written. `none`: no reader.
     */
    sessions: Type.Object(
      {
        reader: Type.Union([Type.Literal('none'), Type.Literal('pid_file')]),
        file: Type.Optional(Type.String({ pattern: '\\{pid\\}' })),
        id_key: Type.Optional(Type.String({ minLength: 1 })),
        process_start_key: Type.Optional(Type.String({ minLength: 1 })),
        transcript: Type.Optional(Type.String({ pattern: '\\{id\\}' })),
      },
      closed,
    ),
    /**
     * Where a turn's token counts are read (src/match/tokens.ts): the format of the transcript the
     * `[sessions]` reader or the hooks name. An addition to REFERENCE.md §6.1.
     */
    tokens: Type.Optional(Type.Object({ reader: Type.Unsafe<TokenReader>(Type.Union(TOKEN_READERS.map((reader) => Type.Literal(reader)))) }, closed)),
    /** An addition to REFERENCE.md §6.1, per OSC 7501 `kind`: see AnswerTable. */
    answers: Type.Optional(Type.Object({ permission: Type.Optional(AnswerTable), question: Type.Optional(AnswerTable), auth: Type.Optional(AnswerTable) }, closed)),
    /**
     * The supervisor's nudge for a stalled agent (`supervisor.nudge_stalled`), an addition:
     * keystrokes by name (REFERENCE.md §4.5) pressed in order, then `nudge_prompt` submitted.
     */
    supervisor: Type.Optional(
      Type.Object(
        {
          nudge_keys: Type.Optional(Type.Array(Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 23 }), { maxItems: 8 })),
          nudge_prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
        },
        closed,
      ),
    ),
    /**
     * Usage limits, an addition (src/match/limits.ts): `markers` are regular expressions over one
     * screen line, collected from the agent's own text; their named groups say where the reset
     * time is (`clock`, `date`, `year`, `zone`, or `epoch`, or `in`). `continue_prompt` is what
     * `supervisor.continue_at_reset` submits after the reset.
     */
    limits: Type.Optional(
      Type.Object(
        {
          markers: Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { minItems: 1, maxItems: 16 }),
          continue_prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
        },
        closed,
      ),
    ),
    suggested_presets: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.String({ pattern: '^[a-z0-9_]+$' }),
            command: Type.String({ minLength: 1 }),
            name: Type.Optional(Type.String()),
            platforms: Type.Optional(Type.Array(Platform)),
            tmux_compat: Type.Optional(Type.Boolean()),
            env: Type.Optional(Type.Record(Type.String(), Type.String())),
          },
          closed,
        ),
      ),
    ),
  },
  closed,
);
export type RuntimeDescriptor = Static<typeof RuntimeDescriptor>;

/** A descriptor ready for matching: its names already normalised. */
export interface Runtime extends RuntimeDescriptor {
  /** The agent family shown as `tool`: the first command alias. */
  tool: string;
  /** Normalised process and command aliases. */
  names: ReadonlySet<string>;
  /** `limits.markers`, compiled once. */
  limitMarkers: readonly RegExp[];
}

export interface Catalog {
  /** By display order. */
  runtimes: readonly Runtime[];
  bySlug: ReadonlyMap<string, Runtime>;
}

/** A program name as matching sees it (REFERENCE.md §6.3.3): basename, lowercase, no login dash,
 * no quotes, no `.exe .cmd .bat .ps1 .js`. */
export function normalizeName(name: string): string {
  return name
    .replace(/["']/g, '')
    .split(/[\\/]/)
    .pop()!
    .toLowerCase()
    .replace(/^-+/, '')
    .replace(/\.(exe|cmd|bat|ps1|js|mjs|cjs)$/, '');
}

const check = Compile(RuntimeDescriptor);

/**
 * Parses and checks every descriptor: `files` maps each directory name under runtimes/ to its
 * runtime.toml. Unknown keys, a slug that is not its directory, duplicate ids, orders or aliases
 * and invalid regexes are all reported together, each with the file it is in.
 */
export function parseCatalog(files: Record<string, string>): Catalog {
  const problems: string[] = [];
  const runtimes: Runtime[] = [];
  for (const [dir, text] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const file = `runtimes/${dir}/runtime.toml`;
    let data: unknown;
    try {
      data = JSON.parse(JSON.stringify(TOML.parse(text, { bigint: false })));
    } catch (error) {
      problems.push(`${file}: ${(error as Error).message}`);
      continue;
    }
    if (!check.Check(data)) {
      problems.push(...schemaProblems(check, data).map((problem) => `${file}: ${problem}`));
      continue;
    }
    const descriptor = data as RuntimeDescriptor;
    if (descriptor.slug !== dir) problems.push(`${file}: slug '${descriptor.slug}' is not its directory '${dir}'`);
    const { integration, sessions } = descriptor;
    if (sessions.reader === 'pid_file') {
      for (const key of ['file', 'id_key', 'process_start_key'] as const) {
        if (sessions[key] === undefined) problems.push(`${file}: sessions: reader 'pid_file' needs '${key}'`);
      }
      if (!integration.config_dir) problems.push(`${file}: sessions: reader 'pid_file' needs 'integration.config_dir'`);
    }
    // What `hooks` and `mcp` write needs a place to write it.
    if (integration.hook_adapter !== 'none' && (!integration.config_dir || !integration.hooks_file)) {
      problems.push(`${file}: integration: hook_adapter '${integration.hook_adapter}' needs 'config_dir' and 'hooks_file'`);
    }
    if (integration.mcp_file && (!integration.config_dir || !integration.mcp_config)) problems.push(`${file}: integration: mcp_file needs 'config_dir' and 'mcp_config'`);
    if (descriptor.resume) {
      try {
        new RegExp(descriptor.resume.session_id_pattern);
      } catch (error) {
        problems.push(`${file}: resume.session_id_pattern: ${(error as Error).message}`);
      }
    }
    for (const marker of descriptor.limits?.markers ?? []) {
      try {
        new RegExp(marker, 'u');
      } catch (error) {
        problems.push(`${file}: limits.markers: ${(error as Error).message}`);
        continue;
      }
      const unknown = markerGroups(marker).filter((group) => !(LIMIT_GROUPS as readonly string[]).includes(group));
      if (unknown.length) problems.push(`${file}: limits.markers: unknown group ${unknown.map((g) => `'${g}'`).join(', ')} (known: ${LIMIT_GROUPS.join(', ')})`);
    }
    for (const [kind, table] of Object.entries(descriptor.answers ?? {})) {
      if (!table.text && Object.keys(table.choices ?? {}).length === 0) problems.push(`${file}: answers.${kind}: needs 'choices' or 'text = true'`);
      // A name is typed on a command line (`paneflow answer api yes`): a lowercase word.
      for (const name of Object.keys(table.choices ?? {})) if (!/^[a-z][a-z_]*$/.test(name)) problems.push(`${file}: answers.${kind}.choices: '${name}' is not a lowercase word`);
    }
    const names = new Set([...descriptor.detection.process_aliases, ...descriptor.detection.command_aliases].map(normalizeName));
    runtimes.push({ ...descriptor, tool: descriptor.detection.command_aliases[0], names, limitMarkers: compileMarkers(descriptor.limits?.markers ?? []) });
  }
  const seen = new Map<string, string>();
  const once = (kind: string, value: string, slug: string) => {
    const key = `${kind}\0${value}`;
    const other = seen.get(key);
    if (other && other !== slug) problems.push(`runtimes/${slug}/runtime.toml: duplicate ${kind} '${value}' (also in ${other})`);
    else seen.set(key, slug);
  };
  for (const runtime of runtimes) {
    once('id', runtime.id, runtime.slug);
    once('order', String(runtime.display.order), runtime.slug);
    for (const name of runtime.names) once('alias', name, runtime.slug);
    for (const preset of runtime.suggested_presets ?? []) once('preset id', preset.id, runtime.slug);
  }
  if (problems.length > 0) throw new CatalogError(problems);
  runtimes.sort((a, b) => a.display.order - b.display.order);
  return { runtimes, bySlug: new Map(runtimes.map((r) => [r.slug, r])) };
}

/** The markers that compile (one that does not is a problem reported above, and the catalog is refused). */
const compileMarkers = (markers: string[]) =>
  markers.flatMap((marker) => {
    try {
      return [new RegExp(marker, 'u')];
    } catch {
      return [];
    }
  });

export type Platform = Static<typeof Platform>;

/** The platform a Node `process.platform` (`darwin`, `win32`, `linux`) or a browser's `navigator.platform` (`MacIntel`, `Win32`, `Linux x86_64`) names. */
export function platformOf(name: string): Platform {
  if (/^(darwin|mac)/i.test(name)) return 'macos';
  return /^win/i.test(name) ? 'windows' : 'linux';
}

/** A launcher preset (`[[suggested_presets]]`) with the agent it starts. */
export type Preset = NonNullable<RuntimeDescriptor['suggested_presets']>[number] & { runtime: Runtime };

/** The presets that run on `platform` (theirs and their agent's), in the agents' display order. */
export function suggestedPresets(catalog: Catalog, platform: Platform): Preset[] {
  return catalog.runtimes
    .filter((runtime) => runtime.platforms.includes(platform))
    .flatMap((runtime) => (runtime.suggested_presets ?? []).filter((p) => !p.platforms || p.platforms.includes(platform)).map((p) => ({ ...p, runtime })));
}

/** The preset with this id on `platform`, or null. */
export function findPreset(catalog: Catalog, id: string, platform: Platform): Preset | null {
  return suggestedPresets(catalog, platform).find((p) => p.id === id) ?? null;
}

/**
 * The runtime an agent name in a spec means (REFERENCE.md §5.2): lowercase, `-` and `_` alike,
 * matched against slugs and command aliases (`claude`, `claude-code`, `claude_code`).
 */
export function resolveAgent(catalog: Catalog, name: string): Runtime | null {
  const wanted = name.toLowerCase().replaceAll('-', '_');
  const norm = (s: string) => s.toLowerCase().replaceAll('-', '_');
  return catalog.runtimes.find((r) => norm(r.slug) === wanted || r.detection.command_aliases.some((a) => norm(a) === wanted)) ?? null;
}

type AnswerKind = keyof NonNullable<RuntimeDescriptor['answers']>;
const answerTable = (runtime: Runtime | undefined, kind: string | null) => (kind ? runtime?.answers?.[kind as AnswerKind] : undefined);

/** What a prompt of `kind` accepts as an answer, by the runtime's `[answers]`; null where it has none. */
export function answersFor(runtime: Runtime | undefined, kind: string | null): { choices: string[]; text: boolean } | null {
  const table = answerTable(runtime, kind);
  return table ? { choices: Object.keys(table.choices ?? {}), text: table.text === true } : null;
}

/** How long a prompt of `kind` must have been declared before it takes an answer's keys. */
export function answerSettleMs(runtime: Runtime | undefined, kind: string | null): number {
  return answerTable(runtime, kind)?.settle_ms ?? 0;
}

/** What to type for `answer`: a choice's keys, else the text itself where free text is accepted; null when neither. */
export function answerInput(runtime: Runtime | undefined, kind: string | null, answer: string): { keys: string } | { text: string } | null {
  const table = answerTable(runtime, kind);
  // Own keys only: `constructor` is no answer.
  if (table?.choices && Object.hasOwn(table.choices, answer)) return { keys: table.choices[answer] };
  return table?.text ? { text: answer } : null;
}
