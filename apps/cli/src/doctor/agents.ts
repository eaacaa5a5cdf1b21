// `paneflow doctor`, the agents: each one of the runtimes catalog on PATH, whether it can declare its
// turns, whether Paneflow's hooks and MCP server are wired and current, whether resume will find its
// conversations, and whether `paneflow answer` knows its keys.
import { runtimeCatalog, type Runtime } from '@paneflow/procscan';
import type { SessionRow } from '@paneflow/protocol/status';
import { spawnSync } from 'node:child_process';
import { wiringOf, type WiringState } from '../integrations';
import { which } from '../path';
import { check, type Check } from './report';

const group = 'agents' as const;

type Version = [number, number, number];
const parseVersion = (text: string): Version | null => {
  const found = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  return found ? [Number(found[1]), Number(found[2]), Number(found[3])] : null;
};
const older = (a: Version, b: Version) => a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2];

/** `<agent> --version`, bounded: an agent that starts its interface instead is stopped. */
function versionOf(path: string): string | null {
  const result = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'pipe'] });
  const version = parseVersion(result.stdout ?? '');
  return version ? version.join('.') : null;
}

function versionCheck(runtime: Runtime, path: string): Check {
  const name = runtime.slug;
  const version = versionOf(path);
  const first = runtime.status.first_version;
  if (version === null) return check(group, name, 'warn', `${path}: \`--version\` gave no version`, first ? `turn status needs ${first} or later` : null);
  if (!first) return check(group, name, 'info', `${version} at ${path}; not known to declare OSC 7501 yet: its panes show "No status" until it does`);
  if (older(parseVersion(version)!, parseVersion(first)!)) {
    return check(group, name, 'fail', `${version} at ${path} is too old to declare its turns (OSC 7501 since ${first}): its panes show "No status"`, `upgrade ${runtime.label} to ${first} or later`);
  }
  return check(group, name, 'ok', `${version} at ${path} (declares its turns since ${first})`);
}

/** Hooks or MCP registration: installed and current, stale, or absent, with the one command that mends it. */
function wiringCheck(runtime: Runtime, what: 'hooks' | 'MCP server', wiring: WiringState): Check {
  const name = `${runtime.slug} ${what === 'hooks' ? 'hooks' : 'mcp'}`;
  const mend = what === 'hooks' ? 'paneflow hooks setup' : 'paneflow mcp install';
  if (wiring.problem) return check(group, name, 'fail', wiring.problem, `mend the file by hand, then ${mend}`);
  switch (wiring.state) {
    case 'installed':
      return check(group, name, 'ok', `installed in ${wiring.file}`);
    case 'outdated':
      return check(group, name, 'fail', `stale in ${wiring.file}: it runs another paneflow's ${what === 'hooks' ? 'paneflow-ai-hook' : 'paneflow-mcp'} (moved or reinstalled)`, mend);
    case 'partial':
      return check(group, name, 'fail', `only some of it in ${wiring.file}`, mend);
    default:
      return check(
        group,
        name,
        'warn',
        what === 'hooks' ? `not installed: no prompts, tools or results from its hooks (turn status still comes from OSC 7501)` : `not registered: it cannot read other panes`,
        mend,
      );
  }
}

/** Resume needs the agent's conversation id: its session reader (or hooks) must have found one for each running pane. */
function resumeCheck(runtime: Runtime, sessions: SessionRow[] | null): Check {
  const name = `${runtime.slug} resume`;
  if (!runtime.resume) return check(group, name, 'info', 'Paneflow cannot resume it (no resume command known)');
  const reader = runtime.sessions.reader === 'none' ? 'its hooks' : `its ${runtime.sessions.reader} reader`;
  const running = (sessions ?? []).filter((s) => s.live && s.runtime_id === runtime.id);
  if (running.length === 0) return check(group, name, 'info', `ids come from ${reader}; no running pane of it to check`);
  const missing = running.filter((s) => s.provider_session_id === null);
  if (missing.length === 0) return check(group, name, 'ok', `${running.length} running pane(s), each with its conversation id (from ${reader})`);
  return check(group, name, 'warn', `${missing.length} of ${running.length} running pane(s) without a conversation id: a restart starts them afresh`, runtime.sessions.reader === 'none' ? 'paneflow hooks setup' : null);
}

function answersCheck(runtime: Runtime): Check {
  const kinds = Object.keys(runtime.answers ?? {});
  const name = `${runtime.slug} answers`;
  if (kinds.length === 0) return check(group, name, 'info', '`paneflow answer` knows no keys for it: answer in its pane');
  return check(group, name, 'ok', `\`paneflow answer\` knows its ${kinds.join(' and ')} prompts`);
}

export function agentChecks(sessions: SessionRow[] | null): Check[] {
  const checks: Check[] = [];
  const absent: string[] = [];
  for (const runtime of runtimeCatalog().runtimes) {
    const path = runtime.detection.command_aliases.map(which).find((p) => p !== null) ?? null;
    if (path === null) {
      absent.push(runtime.slug);
      continue;
    }
    checks.push(versionCheck(runtime, path));
    const wiring = wiringOf(runtime);
    if (wiring.hooks) checks.push(wiringCheck(runtime, 'hooks', wiring.hooks));
    if (wiring.mcp) checks.push(wiringCheck(runtime, 'MCP server', wiring.mcp));
    checks.push(resumeCheck(runtime, sessions), answersCheck(runtime));
  }
  if (checks.length === 0) checks.push(check(group, 'agents', 'warn', 'no known agent on PATH', 'install one: paneflow integrations list names them'));
  if (absent.length > 0) checks.push(check(group, 'not on PATH', 'info', absent.join(', ')));
  return checks;
}
