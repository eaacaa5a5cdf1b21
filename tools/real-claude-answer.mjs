#!/usr/bin/env node
// A manual check (not part of npm test): `paneflow inbox` and `paneflow answer` against the real
// Claude Code, inside an isolated Paneflow instance, with tools/claude-standin.mjs as the Messages API.
// Prints every command with its exit code and the screen lines that matter, then PASS/FAIL per step.
//
//   npm install --prefix /tmp/cc @anthropic-ai/claude-code@2.1.332       # once
//   NX_DAEMON=false NX_NO_CLOUD=true npx nx run-many -t build              # the bundles it runs
//   node tools/real-claude-answer.mjs [--keep]
//
// Env: CLAUDE_BIN (default /tmp/cc/node_modules/.bin/claude), STANDIN_OPTIONS (options in the
// question, 2..4, default 3), ANSWER_AFTER_MS (answer once the wait is this old, default 1000;
// 0 answers as soon as the inbox shows it and shows Claude Code dropping the keys). --keep leaves the temp dir (standin.log, the spec) for a look.
// Exit 0 when every step passed, 1 otherwise. Everything it starts it stops: the instance with
// `paneflow stop --force`, the stand-in by its pid.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(REPO, 'apps/cli/dist/paneflow.cjs');
const CLAUDE = process.env.CLAUDE_BIN || '/tmp/cc/node_modules/.bin/claude';
const OPTIONS = process.env.STANDIN_OPTIONS || '3';
const KEEP = process.argv.includes('--keep');
for (const [what, file] of [['the CLI bundle (build first)', CLI], ['Claude Code (npm install it first)', CLAUDE]]) {
  if (!existsSync(file)) {
    console.error(`missing ${what}: ${file}`);
    process.exit(2);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'pf-real-claude-'));
const user = join(dir, 'user');
const work = join(dir, 'work');
const outside = join(dir, 'outside'); // a path outside the project: Bash touching it asks every time
for (const d of [join(user, '.claude'), work, outside]) mkdirSync(d, { recursive: true });
const probe = join(outside, 'cc-probe-file');

// The instance's env, as libs/testing makeHome sets it up.
const env = {
  ...process.env,
  HOME: user,
  PANEFLOW_HOME: join(dir, 'home'),
  XDG_RUNTIME_DIR: join(dir, 'run'),
  PANEFLOW_CONFIG: join(dir, 'config.json'),
  PANEFLOW_IPC_SCRIPTING: '1',
  NO_COLOR: '1',
};
for (const key of ['PANEFLOW_SOCKET_PATH', 'PANEFLOW_HOST_ENDPOINT', 'PANEFLOW_WORKSPACE_ID', 'PANEFLOW_SESSION_ID', 'PANEFLOW_SURFACE_ID']) delete env[key];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const results = [];
const log = (line) => console.log(line);

/** Runs the CLI, prints the command line, its exit code and output. */
function pf(args, { quiet = false } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  if (!quiet) {
    log(`$ paneflow ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}   # exit ${r.status}`);
    for (const [name, text] of [['stdout', r.stdout], ['stderr', r.stderr]]) if (text.trim()) log(text.trimEnd().split('\n').map((l) => `  ${name}| ${l}`).join('\n'));
  }
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}
const screen = () => pf(['read', 'cc', '--raw', '--scope', 'all', '--lines', '60'], { quiet: true }).stdout;
const status = () => {
  const r = pf(['status', 'cc', '--json'], { quiet: true });
  return r.code === 0 ? r.json() : null;
};
const inbox = () => {
  const r = pf(['inbox', '--json'], { quiet: true });
  return r.code === 0 ? r.json().items.map((item) => ({ ...item, seen_at: Date.now() })) : [];
};
// Claude Code 2.1.332 drops keys for ~0.5 s after it declares a menu (see
// tools/claude-code-answers.md): answer only once the wait is ANSWER_AFTER_MS old.
const ANSWER_AFTER_MS = Number(process.env.ANSWER_AFTER_MS ?? 1000);
const aged = (item) => sleep(Math.max(0, ANSWER_AFTER_MS - item.waiting_ms - (Date.now() - item.seen_at)));
async function until(probeFn, what, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probeFn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n--- screen ---\n${screen()}`);
    await sleep(250);
  }
}
function check(step, ok, detail = '') {
  results.push({ step, ok });
  log(`${ok ? 'PASS' : 'FAIL'} ${step}${detail ? ` — ${detail}` : ''}`);
}
const shown = (re) => screen().split('\n').filter((l) => re.test(l)).map((l) => `  screen| ${l.trimEnd()}`).join('\n');
const standinLog = () => readFileSync(join(dir, 'standin.log'), 'utf8');

// The stand-in for the Messages API, and the Claude Code profile (onboarded, trusted, default mode).
const standin = spawn(process.execPath, [join(REPO, 'tools/claude-standin.mjs'), '0'], {
  cwd: work,
  env: { ...process.env, STANDIN_COMMAND: `touch ${probe}`, STANDIN_OPTIONS: OPTIONS },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const logFile = join(dir, 'standin.log');
standin.stderr.on('data', (d) => writeFileSync(logFile, d, { flag: 'a' }));
const port = await new Promise((res, rej) => {
  standin.stdout.once('data', (d) => res(String(d).trim()));
  standin.once('exit', (c) => rej(new Error(`stand-in exited ${c}`)));
});
writeFileSync(
  join(user, '.claude.json'),
  JSON.stringify({ hasCompletedOnboarding: true, hasSeenAutoDefaultNudge: true, customApiKeyResponses: { approved: ['sk-test'], rejected: [] }, projects: { [work]: { hasTrustDialogAccepted: true } } }),
);
writeFileSync(join(user, '.claude/settings.json'), JSON.stringify({ tui: 'default', permissions: { defaultMode: 'default' } }));
const runSh = join(dir, 'run-claude.sh');
writeFileSync(
  runSh,
  [
    '#!/bin/sh',
    `export HOME=${user} ANTHROPIC_BASE_URL=http://127.0.0.1:${port} ANTHROPIC_API_KEY=sk-test`,
    'export DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 TERM=xterm-256color',
    `cd ${work} && exec ${CLAUDE}`,
    '',
  ].join('\n'),
);
chmodSync(runSh, 0o755);
writeFileSync(join(dir, 'real-claude.toml'), `name = "real-claude"\n\n[[panes]]\nname = "cc"\ncommand = ${JSON.stringify(runSh)}\ncwd = ${JSON.stringify(work)}\n`);

log(`# ${new Date().toISOString()} · ${spawnSync(CLAUDE, ['--version'], { encoding: 'utf8' }).stdout.trim()} · dir ${dir} · stand-in on ${port}, ${OPTIONS} options`);
let failed = false;
try {
  check('start an isolated instance', pf(['start']).code === 0);
  check('serve has scripting on', /scripting/.test(pf(['serve', 'status']).stdout));
  check('up: a pane running claude', pf(['up', join(dir, 'real-claude.toml')]).code === 0);
  await until(() => /for shortcuts|for agents/.test(screen()), 'the claude prompt');
  // Out of the start-up dialog, if any: the agent is declared and not waiting.
  const idle = await until(() => {
    const s = status();
    return s && s.reason === 'declared' && s.state !== 'waiting_for_input' && s;
  }, 'claude declaring idle');
  check('claude declares itself (OSC 7501)', idle.runtime_id === 'claude-code', `state ${idle.state}, reason ${idle.reason}, runtime ${idle.runtime_id}`);
  pf(['status', 'cc']);

  // 1. Permission, answered yes.
  rmSync(probe, { force: true });
  pf(['send', 'cc', 'create the probe file', '--submit']);
  let items = await until(() => (inbox().length ? inbox() : null), 'the permission prompt in the inbox');
  pf(['inbox']);
  pf(['inbox', '--json']);
  const perm = items[0];
  check(
    'inbox shows the permission prompt',
    items.length === 1 && perm.kind === 'permission' && perm.runtime_id === 'claude-code' && perm.answers.choices.join(',') === 'yes,always,no',
    `kind ${perm.kind}, runtime ${perm.runtime_id}, answers ${JSON.stringify(perm.answers)}, message ${JSON.stringify(perm.message)}`,
  );
  await aged(perm);
  log(shown(/Do you want|❯ \d\.|^\s+\d\. /));
  let r = pf(['answer', 'cc', 'yes']);
  check('answer yes: exit 0, left the wait', r.code === 0 && r.json().left_waiting === true);
  await until(() => existsSync(probe) && status()?.state !== 'thinking' && status(), 'the tool to run and the turn to end', 15_000).catch(() => null);
  check('yes: the tool ran', existsSync(probe), probe);
  log(shown(/Bash\(|⎿|Done:/));
  pf(['status', 'cc']);

  // 2. Permission, answered no (Esc).
  rmSync(probe, { force: true });
  await until(() => status()?.state !== 'thinking', 'the first turn to end');
  pf(['send', 'cc', 'create the probe file again', '--submit']);
  items = await until(() => (inbox().length ? inbox() : null), 'the second permission prompt');
  pf(['inbox']);
  await aged(items[0]);
  r = pf(['answer', 'cc', 'no']);
  check('answer no: exit 0, left the wait', r.code === 0 && r.json().left_waiting === true);
  await until(() => /Interrupted/.test(screen()), 'the rejection', 10_000).catch(() => null);
  await sleep(1000);
  check('no: the tool did not run, the turn ended', !existsSync(probe) && /Interrupted/.test(screen()) && status()?.state !== 'thinking', `state ${status()?.state}`);
  log(shown(/Interrupted|What should Claude/));
  pf(['status', 'cc']);

  // 3. A question, answered with free text.
  pf(['send', 'cc', 'please ask me', '--submit']);
  items = await until(() => (inbox().length ? inbox() : null), 'the question in the inbox');
  pf(['inbox', '--json']);
  const q = items[0];
  check('inbox shows the question', q.kind === 'question' && q.answers.text === true, `kind ${q.kind}, answers ${JSON.stringify(q.answers)}, message ${JSON.stringify(q.message)}`);
  const text = 'Green, the sea one';
  await aged(q);
  log(shown(/☐|Which colour|^\s*❯? ?\d\. /));
  r = pf(['answer', 'cc', text]);
  check('answer <text>: exit 0, left the wait', r.code === 0 && r.json().left_waiting === true);
  await until(() => /after-tool .*Green, the sea one/.test(standinLog()), 'the answer to reach the API', 10_000).catch(() => null);
  // The stand-in logs the tool_result JSON-quoted: …="Green, the sea one"… appears as =\"…\".
  check('text: the question was answered with the text', standinLog().includes(`=\\"${text}\\"`) && /→ Green, the sea one/.test(screen()));
  log(shown(/Answered|→|Done:|Green/));
  log(standinLog().split('\n').filter((l) => /after-tool/.test(l)).map((l) => `  api| ${l.slice(0, 200)}`).join('\n'));

  // 4. Nothing waits now: answer refuses and types nothing.
  await until(() => status()?.state !== 'thinking', 'the question turn to end');
  if (inbox().length) throw new Error('still waiting after the text answer (keys dropped?): step 4 skipped, it would answer the question');
  r = pf(['answer', 'cc', 'yes']);
  check('answer with nothing waiting: exit 1 (not_waiting)', r.code === 1 && /not_waiting/.test(r.stderr));
} catch (error) {
  failed = true;
  check('the remaining steps', false, error.message);
} finally {
  pf(['send', 'cc', '/exit', '--submit', '--force'], { quiet: true });
  await sleep(1500);
  pf(['stop', '--force']);
  standin.kill();
  if (KEEP) log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
const bad = results.filter((x) => !x.ok).length;
log(`${failed || bad ? 'FAIL' : 'PASS'}: ${results.length - bad}/${results.length} steps passed`);
process.exit(failed || bad ? 1 : 0);
