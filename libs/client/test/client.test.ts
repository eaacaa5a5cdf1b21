import { resolveEndpoints } from '@paneflow/instance';
import { makeHome, until, type Home } from '@paneflow/testing';
import { InstanceClient, type MirrorSink } from '../src';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let home: Home;
let client: InstanceClient;
let other: InstanceClient;
beforeAll(() => {
  home = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1' });
  expect(home.run(['start']).code).toBe(0);
  client = new InstanceClient(resolveEndpoints(home.env));
  other = new InstanceClient(resolveEndpoints(home.env));
});
afterAll(() => {
  client.close();
  other.close();
  home.cleanup();
});

/** A mirror's view: what it was told, in order. */
function recorder() {
  const events: Array<{ kind: string; text?: string; size?: { cols: number; rows: number } }> = [];
  const sink: MirrorSink = {
    reset: (start) => events.push({ kind: 'reset', text: start.checkpoint, size: { cols: start.cols, rows: start.rows } }),
    data: (base64) => events.push({ kind: 'data', text: Buffer.from(base64, 'base64').toString('utf8') }),
    resized: (size) => events.push({ kind: 'resized', size }),
    state: (state) => events.push({ kind: state }),
  };
  const output = () => events.filter((e) => e.kind === 'data' || e.kind === 'reset').map((e) => e.text).join('');
  return { events, sink, output };
}

async function shellPane(command: string) {
  const up = await home.rpc('workspace.up', { name: 'client', layout: 'even_h', panes: [{ cwd: home.dir, command, focus: true, env: {} }] });
  return up.surfaces[0].session;
}

test('a mirror starts from the checkpoint, follows the output, and types as the user', async () => {
  const session = await shellPane('PS1="ready$ " exec bash --norc --noprofile -i');
  const mirror = recorder();
  client.attach(session, mirror.sink);
  await until(() => mirror.events.some((e) => e.kind === 'attached'), 'attached');
  await until(() => /ready\$ /.test(mirror.output()), 'the prompt');
  await client.input(session, 'echo from-$((6*7))\r');
  await until(() => /^from-42\r?$/m.test(mirror.output()), 'the command ran');
  client.detach(session);
});

test("a client that asks its own gather gets output that long in one frame; another client the host's 16 ms", async () => {
  // Two writes 400 ms apart, after the key that starts them and its echo (which goes at once).
  const session = await shellPane(`printf 'ready\\n'; read go; sleep 0.1; printf first; sleep 0.4; printf second; exec cat`);
  const slow = new InstanceClient(resolveEndpoints(home.env), 'test', null, 1000);
  try {
    const gathered = recorder();
    const plain = recorder();
    slow.attach(session, gathered.sink);
    other.attach(session, plain.sink);
    await until(() => /ready/.test(gathered.output()) && /ready/.test(plain.output()), 'both mirrors attached');
    await slow.input(session, 'go\r');
    await until(() => /second/.test(gathered.output()) && /second/.test(plain.output()), 'both writes in both mirrors');
    const frameOf = (events: typeof gathered.events, text: string) => events.find((e) => e.kind === 'data' && e.text!.includes(text));
    expect(frameOf(gathered.events, 'first')?.text).toContain('firstsecond');
    expect(frameOf(plain.events, 'first')?.text).not.toContain('second');
  } finally {
    slow.close();
    other.detach(session);
  }
});

test('a resize by another face reaches the mirror before what the program wrote for the new size', async () => {
  const session = await shellPane('PS1="ready$ " exec bash --norc --noprofile -i');
  const mirror = recorder();
  client.attach(session, mirror.sink);
  await until(() => /ready\$ /.test(mirror.output()), 'the prompt');
  await other.resize(session, 100, 30);
  await client.input(session, 'stty size\r');
  await until(() => /^30 100\r?$/m.test(mirror.output()), 'stty reports the new size');
  const resized = mirror.events.findIndex((e) => e.kind === 'resized');
  const answer = mirror.events.findIndex((e) => e.kind === 'data' && /30 100/.test(e.text!));
  expect(mirror.events[resized]).toEqual({ kind: 'resized', size: { cols: 100, rows: 30 } });
  expect(resized).toBeLessThan(answer);
  client.detach(session);
});

test('a paste is bracketed when the program asked for it, and goes in as typed when it did not', async () => {
  // cat -v shows the paste markers as text; the printf turns bracketed paste on.
  const session = await shellPane(`printf 'go\\n'; printf '\\033[?2004h'; exec cat -v`);
  const mirror = recorder();
  client.attach(session, mirror.sink);
  await until(() => /go/.test(mirror.output()), 'cat runs');
  await client.input(session, 'one\ntwo', { paste: true });
  await client.input(session, '\r');
  await until(() => mirror.output().includes('^[[200~one'), 'the bracketed paste');
  expect(mirror.output()).toContain('two^[[201~');
  client.detach(session);

  const plain = await shellPane(`printf 'go\n'; exec cat -v`);
  const typed = recorder();
  client.attach(plain, typed.sink);
  await until(() => /go/.test(typed.output()), 'cat runs');
  await client.input(plain, 'three\nfour\n', { paste: true });
  await until(() => /^four\r?$/m.test(typed.output()), 'the paste as typed lines');
  expect(typed.output()).not.toContain('^[[200~');
  client.detach(plain);
});

test('a mirror across a host crash: lost, then the screen the dead host saved, from the new host, until it is restarted there and attached again', async () => {
  const session = await shellPane('PS1="ready$ " exec bash --norc --noprofile -i');
  const mirror = recorder();
  client.attach(session, mirror.sink);
  await until(() => /ready\$ /.test(mirror.output()), 'the prompt');
  await client.input(session, 'echo saved-$((6*7))\r');
  const saved = join(home.env.PANEFLOW_HOME!, 'host/sessions', `${session}.screen`);
  await until(() => existsSync(saved) && readFileSync(saved, 'utf8').includes('saved-42'), 'the screen saved');
  const host = home.run(['host', 'status']).json<{ pid: number }>().pid;
  process.kill(host, 'SIGKILL');
  const lost = await until(() => mirror.events.findIndex((e) => e.kind === 'lost') + 1 || null, 'the stream lost with its host');
  // The new host holds the lost session as what its host saved: the mirror starts over from it.
  await until(() => mirror.events.slice(lost).some((e) => e.kind === 'reset' && /saved-42/.test(e.text ?? '')) || null, 'the saved screen, from the new host');
  await until(() => mirror.events.slice(lost).some((e) => e.kind === 'attached') || null, 'attached to it');
  expect(mirror.events.some((e) => e.kind === 'host_replaced')).toBe(false);
  const { surfaces } = await home.rpc('surface.list', { scope: 'all' });
  const surface_id = surfaces.find((s) => s.session === session)!.surface_id;
  // The mirror hears from the new host directly; serve learns of the loss when it follows that host.
  await until(async () => (await home.rpc('surface.status', { surface_id })).lifecycle === 'lost' || null, 'serve sees the session lost');
  await home.rpc('surface.restart', { surface_id });
  const mark = mirror.events.length;
  await until(() => mirror.events.slice(mark).some((e) => e.kind === 'attached'), 'attached to the restarted session');
  await until(() => /ready\$ /.test(mirror.events.slice(mark).map((e) => e.text ?? '').join('')), 'the new prompt');
  await client.input(session, 'echo back-$((6*7))\r');
  await until(() => /^back-42\r?$/m.test(mirror.output()), 'it takes input');
  client.detach(session);
});

test("a screen whose checkpoint passes the host's cap (-32022) is mirrored without its scrollback", async () => {
  // A small cap (the real one is 64 MiB): a few thousand lines of scrollback pass it.
  const small = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1', PANEFLOW_HOST_CHECKPOINT_MAX_BYTES: '8000' });
  const capped = new InstanceClient(resolveEndpoints(small.env));
  try {
    expect(small.run(['start']).code).toBe(0);
    const up = await small.rpc('workspace.up', { name: 'capped', layout: 'even_h', panes: [{ cwd: small.dir, command: 'seq 1 3000; PS1="ready$ " exec bash --norc --noprofile -i', focus: true, env: {} }] });
    const session = up.surfaces[0].session;
    await until(async () => /ready\$/.test((await small.rpc('surface.read', { surface_id: up.surfaces[0].surface_id, fenced: false })).text) || null, 'the prompt');
    const mirror = recorder();
    capped.attach(session, mirror.sink);
    await until(() => mirror.events.some((e) => e.kind === 'attached'), 'attached');
    const reset = mirror.events.find((e) => e.kind === 'reset')!.text!;
    expect(reset).toMatch(/3000/);
    expect(reset).not.toMatch(/^1\r?$/m);
    capped.detach(session);
  } finally {
    capped.close();
    small.cleanup();
  }
});
