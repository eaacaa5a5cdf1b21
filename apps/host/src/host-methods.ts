import { isSameProcess } from '@paneflow/proc';
import { runtimeCatalog, sessionCpuMs, stopTree } from '@paneflow/procscan';
import { CHECKPOINT_REPLAY_BYTES, ErrorCode, FOLLOW_KEEPALIVE_MS, HOST_CHECKPOINT_MAX_BYTES, HOST_PROTOCOL_VERSION, RpcError, type HostMethods } from '@paneflow/protocol';
import { StreamReply, type Handlers } from '@paneflow/rpc';
import { timingSafeEqual } from 'node:crypto';
import { Follower } from './follower';
import type { Host } from './host';
import type { Session } from './session';
import { followOutput } from './output';
import { planRestart } from './resume';
import { LostScreens } from './lost-screens';
import { historyPreamble } from './saved-screens';

const notFound = (session: string) => new RpcError(ErrorCode.NotFound, `no session ${session}`, { reason: 'session_not_found' });

/** The texts kept at exit made, also for a session that exited while they were being made. */
async function finalOutputsMade(sessions: Session[]): Promise<void> {
  while (sessions.some((s) => s.finalOutputDue)) await Promise.all(sessions.map((s) => s.makeFinalOutput()));
}

/**
 * The largest checkpoint `session.attach` sends: HOST_CHECKPOINT_MAX_BYTES, or a smaller positive
 * integer in `PANEFLOW_HOST_CHECKPOINT_MAX_BYTES` (read at start, so a test need not fill 64 MiB).
 */
export function checkpointMaxBytes(env: NodeJS.ProcessEnv): number {
  const given = Number(env.PANEFLOW_HOST_CHECKPOINT_MAX_BYTES);
  return Number.isSafeInteger(given) && given > 0 ? Math.min(given, HOST_CHECKPOINT_MAX_BYTES) : HOST_CHECKPOINT_MAX_BYTES;
}

/** The host's methods (REFERENCE.md §1.2), over the host's sessions. */
export function hostMethods(host: Host): Handlers<HostMethods> {
  const { sessions, manifests } = host;
  const maxCheckpointBytes = checkpointMaxBytes(process.env);
  /** The name each connection gave in its hello: a face's input says which face carried it. */
  const clients = new WeakMap<object, string>();
  const lostScreens = new LostScreens(host);
  return {
    'host.hello': ({ client, protocol, secret }, { connection }) => {
      const given = Buffer.from(secret ?? '');
      const expected = Buffer.from(host.secret);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        // The error is written by this turn's promise jobs, before setImmediate: the connection
        // closes behind it and gets no second guess.
        setImmediate(() => connection.close());
        throw new RpcError(ErrorCode.Permission, 'host.hello refused: the secret is missing or wrong', { reason: 'bad_secret' });
      }
      if (protocol !== HOST_PROTOCOL_VERSION) {
        throw new RpcError(ErrorCode.ProtocolMismatch, `host protocol ${HOST_PROTOCOL_VERSION}, client ${protocol}`, { reason: 'protocol_mismatch', host: HOST_PROTOCOL_VERSION });
      }
      clients.set(connection, client);
      return host.hello();
    },
    'host.status': () => {
      const counts = { live: 0, exited: 0, failed: 0, lost: 0 };
      for (const m of host.allManifests()) counts[m.lifecycle === 'starting' ? 'live' : m.lifecycle]++;
      const scans = [...sessions.values()].reduce((sum, s) => sum + s.foreground.scans, 0);
      // The most any connected follower has held at once: what a lagging client costs.
      const followers = [...host.followers];
      const peaks = {
        follower_queued_frames_peak: Math.max(0, ...followers.map((f) => f.peakQueuedFrames)),
        follower_held_bytes_peak: Math.max(0, ...followers.map((f) => f.peakHeldBytes)),
        // Manifests held in memory because the home refused them: serve reports the home degraded.
        manifests_unwritten: manifests.unwrittenCount,
      };
      const counters = {
        ...host.counters,
        manifests_written: manifests.written,
        scans,
        // Sessions with a scan on a timer: a quiet pane has none, so nothing scans it until something happens.
        scans_waiting: [...sessions.values()].filter((s) => s.foreground.scanWaiting).length,
        followers: host.followers.size,
        // The most frames a connected follower may have held for it now (its `max_frames`).
        follower_max_frames: Math.max(0, ...followers.map((f) => f.maxFrames)),
        ...peaks,
      };
      return { ...host.hello(), pid: process.pid, sessions: counts, counters };
    },
    'host.shutdown': async ({ force }) => {
      const live = [...sessions.values()].filter((s) => s.lifecycle === 'live').map((s) => s.id);
      if (live.length > 0 && !force) throw new RpcError(ErrorCode.SessionLive, `${live.length} session(s) live`, { reason: 'sessions_live', live });
      await host.stopSessions();
      setImmediate(() => void host.shutdown());
      return {};
    },
    'session.create': (params) => {
      const session = host.create(params);
      return { session: session.id, generation: session.generation, pid: session.pid ?? 0 };
    },
    'session.ensure': (params) => {
      const existing = sessions.get(params.session);
      if (existing && existing.lifecycle === 'live') return { session: existing.id, generation: existing.generation, pid: existing.pid ?? 0, created: false };
      if (existing || manifests.inherited.has(params.session)) {
        throw new RpcError(ErrorCode.SessionLive, `session ${params.session} exists and is not live; restart it`, { reason: 'session_not_live' });
      }
      const session = host.create(params);
      return { session: session.id, generation: session.generation, pid: session.pid ?? 0, created: true };
    },
    'session.list': async () => {
      await finalOutputsMade([...sessions.values()]);
      return { sessions: host.allManifests() };
    },
    'session.inspect': async ({ session }) => {
      const found = sessions.get(session);
      if (found) await finalOutputsMade([found]);
      const manifest = found?.manifest() ?? manifests.inherited.get(session);
      if (!manifest) throw notFound(session);
      return { ...manifest, frame_seq: host.sentFrames };
    },
    'session.attach': async ({ session, scrollback }) => {
      const shown = lostScreens.attach(session);
      if (shown) return shown;
      const found = host.find(session);
      const checkpoint = await found.terminal.checkpoint(scrollback ?? Infinity, CHECKPOINT_REPLAY_BYTES);
      const bytes = Buffer.byteLength(checkpoint.checkpoint);
      // A mirror can ask again with less scrollback.
      if (bytes > maxCheckpointBytes) throw new RpcError(ErrorCode.CheckpointTooLarge, `the checkpoint is ${bytes} bytes, over ${maxCheckpointBytes}`, { reason: 'checkpoint_too_large', bytes, max: maxCheckpointBytes });
      return { ...checkpoint, instance: host.instance, generation: found.generation };
    },
    'session.output': ({ session, offset, follow, keepalive, gather_ms }, { connection }) => {
      if (lostScreens.shown(session)) return lostScreens.output(session, offset, follow ?? false, connection);
      const found = host.find(session);
      if (offset > found.output.end) {
        throw new RpcError(ErrorCode.InvalidParams, `offset ${offset} is past the end of the output (${found.output.end})`, { reason: 'offset_ahead', field: 'offset' });
      }
      if (found.output.read(offset, 0) === null) throw new RpcError(ErrorCode.OffsetEvicted, `output before ${offset} is no longer kept`, { reason: 'offset_evicted' });
      if (follow) return new StreamReply({ chunks: [], end_offset: found.output.end, following: true }, () => followOutput(connection, found, offset, { keepalive, gatherMs: gather_ms }));
      const chunks: Array<{ offset: number; data: string }> = [];
      for (let at = offset; at < found.output.end; ) {
        const data = found.output.read(at)!;
        chunks.push({ offset: at, data: data.toString('base64') });
        at += data.length;
      }
      return { chunks, end_offset: found.output.end, following: false };
    },
    'session.input': ({ session, text, origin, paste }, { connection }) => host.find(session).input(text, origin, paste, clients.get(connection)),
    'session.key': ({ session, keystroke, origin }) => host.find(session).key(keystroke, origin),
    'session.resize': ({ session, cols, rows }) => {
      // A saved screen keeps the size it was saved at: the restarted process gets the face's.
      if (lostScreens.shown(session)) return {};
      const found = host.find(session);
      found.resize(cols, rows);
      host.screens.changed(found);
      return {};
    },
    // A lost session reads as the screen it last showed (its saved screen), until it runs again.
    'session.read': async ({ session, lines, offset }) => (await lostScreens.read(session, lines, offset)) ?? host.find(session).read(lines, offset),
    'session.search': async ({ session, pattern, max_matches }) => (await lostScreens.search(session, pattern, max_matches)) ?? host.find(session).terminal.search(pattern, max_matches),
    'session.cpu': ({ session }) => {
      const { lifecycle, pid } = host.find(session);
      return lifecycle === 'live' && pid !== null ? sessionCpuMs(pid) : { cpu_ms: 0, processes: 0 };
    },
    'session.stop': async ({ session }) => {
      const inherited = manifests.inherited.get(session);
      if (inherited) {
        // Only a process proven to be the recorded one, by its start time, is ever signalled.
        if (inherited.process && isSameProcess(inherited.process.pid, inherited.process.started_at)) await stopTree(inherited.process.pid);
        return {};
      }
      await host.find(session).stop();
      return {};
    },
    'session.restart': async ({ session, fresh }) => {
      const ended = () => {
        host.refuseIfShuttingDown(); // before the old generation is let go
        const old = sessions.get(session);
        const manifest = old?.manifest() ?? manifests.inherited.get(session);
        if (!manifest) throw notFound(session);
        if (manifest.lifecycle !== 'exited' && manifest.lifecycle !== 'lost' && manifest.lifecycle !== 'failed') {
          throw new RpcError(ErrorCode.SessionLive, `session ${session} is ${manifest.lifecycle}`, { reason: 'session_live' });
        }
        return { old, manifest };
      };
      const lost = ended().manifest;
      // A lost session's process may have outlived its host (deaf to the hangup): two agents on one
      // conversation must never run, so the recorded one, proven by its start time, is ended first.
      if (lost.lifecycle === 'lost' && lost.process && isSameProcess(lost.process.pid, lost.process.started_at)) await stopTree(lost.process.pid);
      // Asked again after the wait: another restart may have come first.
      const { old, manifest } = ended();
      old?.dispose();
      sessions.delete(session);
      manifests.inherited.delete(session);
      const { launch } = manifest;
      const plan = planRestart(manifest, runtimeCatalog(), fresh ?? false);
      // A session the host lost shows what it last showed, above what runs now.
      const saved = manifest.lifecycle === 'lost' ? host.screens.read(session) : null;
      const restarted = host.create(
        {
          workspace_id: manifest.workspace_id,
          surface_id: manifest.surface_id,
          name: manifest.name,
          cwd: manifest.cwd,
          argv: [launch.shell, ...launch.args],
          env: launch.env,
          env_remove: launch.env_remove,
          cols: launch.cols,
          rows: launch.rows,
        },
        manifest.generation + 1,
        session,
        { resume: manifest.resume ?? null, plan, history: saved && historyPreamble(saved, manifest.lost ?? null, launch.cols) },
      );
      lostScreens.ended(session);
      return { session, generation: restarted.generation, pid: restarted.pid ?? 0, mode: plan.restart.mode, restart: restarted.resume.restart ?? plan.restart };
    },
    'session.remove': ({ session }) => {
      const live = sessions.get(session);
      if (live && (live.lifecycle === 'live' || live.lifecycle === 'starting')) {
        throw new RpcError(ErrorCode.SessionLive, `session ${session} is live; stop it first`, { reason: 'session_live', live: [session] });
      }
      if (!live && !manifests.inherited.has(session)) throw notFound(session);
      lostScreens.ended(session);
      host.remove(session);
      return {};
    },
    'agent.event': ({ session, generation, hook }) => {
      const found = host.find(session);
      if (found.generation !== generation) return { stored: false, hook_revision: found.hook?.revision ?? 0 };
      found.hook = hook;
      found.resume.hooked(hook, found.foreground.observation?.id ?? found.foreground.lastRuntimeId);
      manifests.schedule(found, false);
      return { stored: true, hook_revision: hook.revision };
    },
    'agent.snapshot': ({ session }) => ({ sessions: session ? [host.find(session).state()] : [...sessions.values()].map((s) => s.state()) }),
    'agent.follow': ({ max_frames, keepalive }, { connection }) =>
      new StreamReply({ following: true as const }, () => {
        const follower = new Follower(connection, { snapshot: () => host.snapshotFrame(), statusFrame: (id) => host.statusFrame(id) }, max_frames);
        host.followers.add(follower);
        // Checked every 10 s, and sent only after 10 s of silence: a busy follow gets none.
        const ticker = keepalive
          ? setInterval(() => {
              if (Date.now() - follower.lastPushAt >= FOLLOW_KEEPALIVE_MS) follower.push({ type: 'keepalive', at_ms: Date.now(), seq: host.sentFrames });
            }, FOLLOW_KEEPALIVE_MS)
          : null;
        connection.onClose(() => {
          host.followers.delete(follower);
          if (ticker) clearInterval(ticker);
        });
        follower.push(host.snapshotFrame());
      }),
  };
}
