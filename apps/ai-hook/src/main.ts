// paneflow-ai-hook [--tool <tool>] <Event>: an agent's hook event on stdin, one ai.* frame
// to serve (REFERENCE.md §7.1). Agents run hooks synchronously, so it must be quick, print
// nothing, and exit 0 whatever happens; only node built-ins are loaded.
import { checkSocketPath } from '@paneflow/instance/endpoints';
import { appendLog } from '@paneflow/instance/files';
import { readProcStat } from '@paneflow/proc';
import { DEFAULT_HOOK_TOOL, HOOK_TOOLS, isHookTool } from '@paneflow/protocol/hooks';
import { requestLine } from '@paneflow/protocol/line';
import { SHELL_NAMES } from '@paneflow/protocol/shells';
import { createConnection } from 'node:net';
import { isAbsolute } from 'node:path';
import { hookRequest } from './events';

const CONNECT_BUDGET_MS = 350;
const REQUEST_BUDGET_MS = 350;
const MAX_INPUT_BYTES = 16 * 1024 * 1024;
/** Whatever holds it up (an agent that never closes stdin, a slow disk), the hook ends by then. */
const TOTAL_BUDGET_MS = CONNECT_BUDGET_MS + REQUEST_BUDGET_MS;

const env = process.env;

function log(message: string): void {
  if (!env.PANEFLOW_HOOK_LOG) return;
  try {
    appendLog(env.PANEFLOW_HOOK_LOG, `${new Date().toISOString()} paneflow-ai-hook[${process.pid}] ${message}`);
  } catch {
    // A log that cannot be written is not the agent's problem.
  }
}

/** Notes why nothing is posted; main() then ends the process. */
function skip(message: string): false {
  log(message);
  return false;
}

function done(): never {
  process.exit(0);
}

/** The agent's pid: PANEFLOW_AI_PID, else the nearest ancestor that is not a shell (hooks run under `sh -c`). */
function agentPid(): number | null {
  const given = Number(env.PANEFLOW_AI_PID);
  if (env.PANEFLOW_AI_PID && Number.isSafeInteger(given) && given > 0) return given;
  let pid = process.ppid;
  for (let depth = 0; depth < 16 && pid > 1; depth++) {
    const stat = readProcStat(pid);
    if (!stat) return null;
    if (!SHELL_NAMES.has(stat.comm)) return pid;
    pid = stat.ppid;
  }
  return null;
}

function readInput(): Promise<Buffer | null> {
  if (process.stdin.isTTY) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    process.stdin.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_INPUT_BYTES) {
        process.stdin.destroy();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    process.stdin.once('end', () => resolve(Buffer.concat(chunks)));
    process.stdin.once('error', () => resolve(null));
  });
}

function post(socketPath: string, line: string): void {
  const socket = createConnection(socketPath);
  let timer = setTimeout(() => {
    log(`no connection within ${CONNECT_BUDGET_MS} ms`);
    done();
  }, CONNECT_BUDGET_MS);
  socket.once('connect', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      log(`no answer within ${REQUEST_BUDGET_MS} ms`);
      done();
    }, REQUEST_BUDGET_MS);
    socket.write(line);
  });
  let answer = '';
  socket.on('data', (chunk: Buffer) => {
    answer += chunk.toString('utf8');
    if (answer.includes('\n')) {
      log(`answer ${answer.trim().slice(0, 500)}`);
      done();
    }
  });
  socket.once('error', (error) => {
    log(`socket ${socketPath}: ${error.message}`);
    done();
  });
  socket.once('close', () => done());
}

/** Resolves true when a post is under way (it ends the process), false when there is nothing to do. */
async function main(): Promise<boolean> {
  const args = process.argv.slice(2);
  let tool: string = env.PANEFLOW_AI_TOOL || DEFAULT_HOOK_TOOL;
  if (args[0] === '--tool') {
    tool = args[1];
    args.splice(0, 2);
  }
  if (!env.PANEFLOW_SESSION_ID) {
    // Outside Paneflow: drain what the agent writes (so it sees no broken pipe) and end.
    if (process.stdin.isTTY) done();
    setTimeout(done, CONNECT_BUDGET_MS);
    process.stdin.resume().once('end', done).once('error', done);
    return true;
  }
  const event = args[0];
  if (args.length !== 1 || !event) return skip(`usage: paneflow-ai-hook [--tool ${HOOK_TOOLS.join('|')}] <Event>, got ${JSON.stringify(process.argv.slice(2))}`);
  if (!isHookTool(tool)) return skip(`unknown tool ${JSON.stringify(tool)}`);
  const socketPath = env.PANEFLOW_SOCKET_PATH;
  if (!socketPath || !isAbsolute(socketPath)) return skip(`PANEFLOW_SOCKET_PATH must be an absolute path, got ${JSON.stringify(socketPath)}`);

  const raw = await readInput();
  if (raw === null) return skip(`event input over ${MAX_INPUT_BYTES} bytes or unreadable`);
  let input: unknown = {};
  const text = raw.toString('utf8').trim();
  if (text) {
    try {
      input = JSON.parse(text);
    } catch {
      return skip(`${event}: input is not JSON`);
    }
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return skip(`${event}: input is not a JSON object`);
  const request = hookRequest(event, tool, input as Record<string, unknown>, env, agentPid(), Date.now());
  if (!request) return skip(`${event}: nothing to post`);
  try {
    // Another user's socket (a squatted runtime dir) must not receive what the agent reports.
    checkSocketPath(socketPath);
  } catch (error) {
    return skip((error as Error).message);
  }
  post(socketPath, requestLine(1, request.method, request.params));
  return true;
}

setTimeout(() => {
  log(`gave up after ${TOTAL_BUDGET_MS} ms`);
  done();
}, TOTAL_BUDGET_MS).unref();

main().then(
  (posting) => {
    if (!posting) done();
  },
  (error: Error) => {
    log(`failed: ${error.stack ?? error.message}`);
    done();
  },
);
