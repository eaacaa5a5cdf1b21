import { processEnvironment, readRegularFileSync } from '@paneflow/proc';
import type { Observation } from '@paneflow/protocol';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Runtime } from './match';
import { configDir } from './paths';

/** The conversation an agent process is in, as its own files say. */
export interface AgentSession {
  id: string;
  transcriptPath: string | null;
}

/** An agent's session file is a line of JSON: a larger one is not the agent's. */
const AGENT_SESSION_FILE_MAX_BYTES = 64 * 1024;

/**
 * Reads the agent's own session files (its runtime's `[sessions]`) for the conversation the
 * observed process is in, or null when the runtime has no reader, or the file is missing, belongs
 * to another process of that pid, or holds no valid id.
 */
export function readAgentSession(runtime: Runtime, observation: Observation): AgentSession | null {
  const sessions = runtime.sessions;
  if (sessions.reader !== 'pid_file') return null;
  const env = processEnvironment(observation.pid);
  if (!env) return null;
  const dir = configDir(runtime, env);
  if (!dir) return null;
  let data: Record<string, unknown>;
  try {
    // Read on the host's thread at each scan: whatever is put in its place (a FIFO) must not wedge it.
    // The agent's file, as its transcript is: a link to a regular file is followed.
    data = JSON.parse(readRegularFileSync(join(dir, sessions.file!.replaceAll('{pid}', String(observation.pid))), { maxBytes: AGENT_SESSION_FILE_MAX_BYTES, follow: true }).toString('utf8'));
  } catch {
    return null;
  }
  if (String(data[sessions.process_start_key!]) !== String(observation.pid_started_at)) return null;
  const id = data[sessions.id_key!];
  if (typeof id !== 'string' || (runtime.resume && !new RegExp(runtime.resume.session_id_pattern).test(id))) return null;
  return { id, transcriptPath: sessions.transcript ? findTranscript(dir, sessions.transcript.replaceAll('{id}', id)) : null };
}

/** `pattern` under `dir`, where one path segment may be `*` (any directory). */
function findTranscript(dir: string, pattern: string): string | null {
  const star = pattern.split('/').indexOf('*');
  if (star === -1) return existsSync(join(dir, pattern)) ? join(dir, pattern) : null;
  const segments = pattern.split('/');
  const parent = join(dir, ...segments.slice(0, star));
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return null;
  }
  for (const entry of entries) {
    const path = join(parent, entry, ...segments.slice(star + 1));
    if (existsSync(path)) return path;
  }
  return null;
}
