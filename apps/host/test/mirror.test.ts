import { readHostSecret } from '@paneflow/instance';
import { HOST_PROTOCOL_VERSION, type HostMethods, type OutputFrame } from '@paneflow/protocol';
import { RpcConnection } from '@paneflow/rpc';
import { Terminal } from '@xterm/headless';
import { startHost, type HostClient, type TestHost } from './helpers';

let host: TestHost;
let client: HostClient;
beforeAll(async () => {
  host = await startHost();
  client = await host.connect();
});
afterAll(() => host.cleanup());

const BASH = ['bash', '--norc', '--noprofile'];

/** A mirror as the desktop builds it: a terminal that is given the checkpoint, then the output. */
function mirror(cols: number, rows: number) {
  const term = new Terminal({ cols, rows, scrollback: 10_000, allowProposedApi: true });
  return {
    write: (data: string | Uint8Array) => new Promise<void>((resolve) => term.write(data, resolve)),
    text() {
      // Logical lines, as session.read gives them: a wrapped row continues the one before.
      const lines: string[] = [];
      for (let i = 0; i < term.buffer.active.length; i++) {
        const line = term.buffer.active.getLine(i)!;
        if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += line.translateToString(true);
        else lines.push(line.translateToString(true));
      }
      return lines.join('\n').trimEnd();
    },
    dispose: () => term.dispose(),
  };
}

async function outputStream(session: string, offset: number, keepalive?: boolean) {
  const connection = await RpcConnection.connect<HostMethods>(host.endpoints.hostSocket);
  await connection.request('host.hello', { client: 'mirror', protocol: HOST_PROTOCOL_VERSION, secret: readHostSecret(host.endpoints.home) ?? undefined });
  const frames: OutputFrame[] = [];
  connection.onFrame((frame) => frames.push(frame as OutputFrame));
  const result = await connection.request('session.output', { session, offset, follow: true, keepalive });
  return { connection, frames, result };
}

describe('mirrors: session.attach and session.output', () => {
  test('a checkpoint plus the output that follows it rebuilds exactly the host’s screen, colours and scrollback included', async () => {
    const { session } = await client.create({ argv: BASH, cols: 60, rows: 10 });
    await client.request('session.input', { session, text: 'for i in $(seq 1 40); do printf "\\033[1;3%dmline-%d\\033[0m\\n" $((i % 7)) $i; done\r', origin: 'automation' });
    await client.screenMatching(session, /line-40/);
    const attached = await client.request('session.attach', { session });
    expect(attached).toMatchObject({ generation: 1, cols: 60, rows: 10, instance: expect.any(String) });
    expect(attached.checkpoint).toContain('\x1b['); // escape sequences, not plain text

    const stream = await outputStream(session, attached.output_offset);
    expect(stream.result).toMatchObject({ following: true });
    await client.request('session.input', { session, text: 'echo after-$((6*7))\r', origin: 'automation' });
    await client.screenMatching(session, /^after-42$/m);

    const view = mirror(60, 10);
    await view.write(attached.checkpoint);
    const deadline = Date.now() + 10_000;
    let expected: string;
    for (let next = attached.output_offset; ; ) {
      for (const frame of stream.frames.splice(0)) {
        if (frame.type !== 'output_data') continue;
        expect(frame.offset).toBe(next); // contiguous, in order
        await view.write(Buffer.from(frame.data, 'base64'));
        next += Buffer.from(frame.data, 'base64').length;
      }
      expected = (await client.request('session.read', { session, lines: 4000 })).text.trimEnd();
      if (view.text() === expected || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(view.text()).toBe(expected);
    expect(view.text()).toMatch(/line-1\n[\s\S]*line-40[\s\S]*after-42/);
    view.dispose();
    stream.connection.close();
  });

  test('without follow, the output from an offset comes back whole and contiguous', async () => {
    const { session } = await client.create({ argv: ['sh', '-c', 'printf "one\\ntwo\\nthree\\n"; sleep 30'] });
    await client.screenMatching(session, /three/);
    const { chunks, end_offset, following } = await client.request('session.output', { session, offset: 0 });
    expect(following).toBe(false);
    const bytes = Buffer.concat(chunks.map((c) => Buffer.from(c.data, 'base64')));
    expect(bytes.length).toBe(end_offset);
    expect(bytes.toString('utf8')).toContain('one\r\ntwo\r\nthree');
    const tail = await client.request('session.output', { session, offset: end_offset - 7 });
    expect(Buffer.from(tail.chunks[0].data, 'base64').toString()).toBe('three\r\n');
    await expect(client.request('session.output', { session, offset: end_offset + 1 })).rejects.toMatchObject({ code: -32602, data: { reason: 'offset_ahead' } });
  });

  test('output older than the 8 MiB tail is evicted: -32021, for a read and for a stream from there', async () => {
    // Lines, not one 9 MiB line: every poll of the screen reads whole logical lines.
    const { session } = await client.create({ argv: ['sh', '-c', 'yes 0123456789abcdef0123456789abcdef | head -c 9437184; echo end-of-flood; sleep 30'], cols: 200, rows: 5 });
    await client.screenMatching(session, /end-of-flood/, 60_000);
    await expect(client.request('session.output', { session, offset: 0 })).rejects.toMatchObject({ code: -32021 });
    const { end_offset } = await client.request('session.output', { session, offset: 9 * 1024 * 1024 });
    expect(end_offset).toBeGreaterThan(9437184);
    const stream = await outputStream(session, end_offset - 100);
    for (let i = 0; i < 50 && stream.frames.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(stream.frames[0]).toMatchObject({ type: 'output_data', offset: end_offset - 100 });
    stream.connection.close();
    const connection = await RpcConnection.connect<HostMethods>(host.endpoints.hostSocket);
    await connection.request('host.hello', { client: 'late', protocol: HOST_PROTOCOL_VERSION, secret: readHostSecret(host.endpoints.home) ?? undefined });
    await expect(connection.request('session.output', { session, offset: 10, follow: true })).rejects.toMatchObject({ code: -32021 });
    connection.close();
  }, 90_000);

  test('a stream on a session that is restarted ends with output_end, and the next generation attaches afresh', async () => {
    const { session } = await client.create({ argv: ['sh', '-c', 'echo first-run; sleep 0.3'] });
    const { end_offset } = await client.request('session.output', { session, offset: 0 });
    const stream = await outputStream(session, end_offset);
    await client.frame((f) => f.type === 'lifecycle' && f.session === session && f.lifecycle === 'exited');
    await client.request('session.restart', { session });
    for (let i = 0; i < 100 && !stream.frames.some((f) => f.type === 'output_end'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(stream.frames.at(-1)).toMatchObject({ type: 'output_end', session });
    await client.screenMatching(session, /first-run/);
    expect(await client.request('session.attach', { session })).toMatchObject({ generation: 2 });
    stream.connection.close();
  });

  test('a following stream sends keepalives while the pane is quiet, unless it asked for none', async () => {
    const { session } = await client.create({ argv: BASH });
    await client.screenMatching(session, /^bash-[\d.]+[$#] $/m);
    const { end_offset } = await client.request('session.output', { session, offset: 0 });
    const stream = await outputStream(session, end_offset);
    const silent = await outputStream(session, end_offset, false);
    await new Promise((r) => setTimeout(r, 2300));
    expect(stream.frames).toContainEqual({ type: 'keepalive', session, offset: end_offset });
    expect(silent.frames).toEqual([]);
    // The silent stream still carries output.
    await client.request('session.input', { session, text: 'echo after-quiet\r', origin: 'automation' });
    for (let i = 0; i < 100 && !silent.frames.some((f) => f.type === 'output_data'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(silent.frames[0]).toMatchObject({ type: 'output_data', offset: end_offset });
    stream.connection.close();
    silent.connection.close();
  });
});
