#!/usr/bin/env node
// A tiny local stand-in for the Anthropic Messages API, enough to drive the real Claude Code
// (ANTHROPIC_BASE_URL=http://127.0.0.1:<port>) to its permission menu with no network.
// See tools/claude-code-answers.md for how it is used, and libs/procscan/README.md ("Token usage")
// for the transcripts it helped write.
//
//   node tools/claude-standin.mjs [port]      (port 0 or none: any free port; printed on stdout)
//
// Behaviour, per POST /v1/messages:
//   - a request that offers tools (the main conversation), last user turn is plain text:
//       one assistant message with a tool_use block calling Bash (STANDIN_COMMAND, default
//       `touch /tmp/cc-probe-file`), stop_reason tool_use. If the prompt contains the word
//       "ask", it calls AskUserQuestion instead (when that tool is offered; STANDIN_OPTIONS=2..4
//       options, default 2); if it contains
//       "write", it calls Write (STANDIN_WRITE_PATH, default ./cc-probe-write.txt).
//   - the last user turn carries a tool_result and no new prompt: a short text answer, stop_reason
//     end_turn (the log shows the tool_result's text, e.g. the answer picked in a question menu).
//   - a request without tools (titles, summaries, topic checks on the small model): a short text;
//     JSON if the system prompt asks for JSON.
//   - STANDIN_PREAMBLE=<text>: a tool call is preceded by a text block with that text, so one API
//     message has two content blocks (Claude Code writes a transcript line for each).
// Both `stream: true` (server-sent events) and plain JSON answers are served.
// Usage differs per answer, so a reader of Claude Code's transcript can tell which answers it
// counted: the n-th answer (1-based, over all POST /v1/messages) of the main conversation reports
// input_tokens 2+n, cache_creation_input_tokens 400+37n, cache_read_input_tokens 18000+1000n,
// output_tokens 40+9n; a side request input_tokens 300+11n, output_tokens 6+n, no cache. In a
// stream, message_start carries the input and cache counts with output_tokens 1, message_delta the
// final output_tokens, as the real API does. STANDIN_BLOCK_MS=<ms> pauses that long after each
// content block of a stream, so Claude Code sees a block end before the message's final usage.
// POST /v1/messages/count_tokens answers a rough count; anything else answers 200 `{}`.
// Every request is logged to stderr (method, path, model, stream, what was answered);
// STANDIN_DUMP=<dir> also writes each request body there as JSON.

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const COMMAND = process.env.STANDIN_COMMAND || 'touch /tmp/cc-probe-file';
const WRITE_PATH = process.env.STANDIN_WRITE_PATH || path.resolve('cc-probe-write.txt');
const DUMP = process.env.STANDIN_DUMP || '';
// How many options the AskUserQuestion call offers (the tool takes 2 to 4): Red, Blue, Yellow, Purple.
const COLOURS = ['Red', 'Blue', 'Yellow', 'Purple'];
const OPTIONS = Math.min(4, Math.max(2, Number(process.env.STANDIN_OPTIONS) || 2));
const PREAMBLE = process.env.STANDIN_PREAMBLE || '';
const BLOCK_MS = Number(process.env.STANDIN_BLOCK_MS) || 0;
let seq = 0;
let answers = 0;

const log = (...a) => process.stderr.write(`[standin] ${a.join(' ')}\n`);

// Text of a message's content (string or array of blocks).
function textOf(content) {
  if (typeof content === 'string') return content;
  return (content || []).filter((b) => b.type === 'text').map((b) => b.text).join('\n');
}

const preamble = () => (PREAMBLE ? [{ type: 'text', text: PREAMBLE }] : []);

// Decide the assistant's content blocks and stop reason for one request body.
function reply(body) {
  const tools = (body.tools || []).map((t) => t.name);
  // The last user-role message (Claude Code may append other roles after it). Its text without
  // the <system-reminder> blocks Claude Code adds is the prompt.
  const last = (body.messages || []).findLast((m) => m.role === 'user') || { content: '' };
  const blocks = Array.isArray(last.content) ? last.content : [];
  const prompt = typeof last.content === 'string' ? last.content
    : blocks.filter((b) => b.type === 'text' && !b.text.startsWith('<system-reminder>') && !b.text.startsWith('[Request interrupted')).map((b) => b.text).join('\n');
  const system = typeof body.system === 'string' ? body.system : textOf(body.system);

  const result = blocks.find((b) => b.type === 'tool_result');
  // After a rejected tool call Claude Code sends the next prompt in the same user turn as the
  // rejection's tool_result: a prompt there is a new request.
  if (result && !prompt.trim()) {
    // The log shows what the tool answered (e.g. the user's answer to a question), on one line.
    const said = JSON.stringify(textOf(result.content)).slice(0, 300);
    return { kind: `after-tool ${said}`, content: [{ type: 'text', text: 'Done: the probe command ran.' }], stop: 'end_turn' };
  }
  if (tools.includes('Bash')) {
    if (/\bask\b/i.test(prompt) && tools.includes('AskUserQuestion')) {
      const input = {
        questions: [{
          question: 'Which colour should the probe use?',
          header: 'Colour',
          multiSelect: false,
          options: COLOURS.slice(0, OPTIONS).map((label) => ({ label, description: `the ${label.toLowerCase()} one` })),
        }],
      };
      return { kind: 'ask', content: [...preamble(), { type: 'tool_use', id: `toolu_ask${++seq}`, name: 'AskUserQuestion', input }], stop: 'tool_use' };
    }
    if (/\bwrite\b/i.test(prompt) && tools.includes('Write')) {
      const input = { file_path: WRITE_PATH, content: 'probe\n' };
      return { kind: 'write', content: [...preamble(), { type: 'tool_use', id: `toolu_write${++seq}`, name: 'Write', input }], stop: 'tool_use' };
    }
    const input = { command: COMMAND, description: 'create a probe file' };
    return { kind: 'tool-use', content: [...preamble(), { type: 'tool_use', id: `toolu_probe${++seq}`, name: 'Bash', input }], stop: 'tool_use' };
  }
  // Side request on the small model (title, summary, topic): keep it short and parseable.
  const text = /json/i.test(system) ? '{"isNewTopic": false, "title": "Probe"}' : 'Probe';
  return { kind: 'side', content: [{ type: 'text', text }], stop: 'end_turn' };
}

// The usage of the n-th answer (see the header): the main conversation is the request that offers tools.
function usageOf(body, n) {
  if ((body.tools || []).length > 0) {
    return { input_tokens: 2 + n, cache_creation_input_tokens: 400 + 37 * n, cache_read_input_tokens: 18000 + 1000 * n, output_tokens: 40 + 9 * n };
  }
  return { input_tokens: 300 + 11 * n, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 6 + n };
}

function message(body, r) {
  return {
    id: `msg_standin${++seq}`,
    type: 'message',
    role: 'assistant',
    model: body.model || 'claude-standin',
    content: r.content,
    stop_reason: r.stop,
    stop_sequence: null,
    usage: usageOf(body, ++answers),
  };
}

// Stream a finished message as the API's event sequence:
// message_start, per block (content_block_start, content_block_delta…, content_block_stop),
// message_delta (stop_reason, usage), message_stop.
async function stream(res, msg) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send('message_start', { message: { ...msg, content: [], stop_reason: null, usage: { ...msg.usage, output_tokens: 1 } } });
  for (const [index, block] of msg.content.entries()) {
    if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      send('content_block_start', { index, content_block: { ...block, input: {} } });
      // Tool input arrives as JSON text in pieces (input_json_delta), as from the real API.
      const json = JSON.stringify(block.input);
      const cut = Math.floor(json.length / 2);
      for (const partial_json of [json.slice(0, cut), json.slice(cut)]) {
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
      }
    }
    send('content_block_stop', { index });
    if (BLOCK_MS) await new Promise((r) => setTimeout(r, BLOCK_MS));
  }
  send('message_delta', { delta: { stop_reason: msg.stop_reason, stop_sequence: null }, usage: { output_tokens: msg.usage.output_tokens } });
  send('message_stop', {});
  res.end();
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const url = new URL(req.url, 'http://x');
    let body = {};
    try { body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {}; } catch { /* not JSON */ }
    if (DUMP && chunks.length) {
      fs.mkdirSync(DUMP, { recursive: true });
      fs.writeFileSync(path.join(DUMP, `${String(++seq).padStart(4, '0')}${url.pathname.replaceAll('/', '_')}.json`), JSON.stringify(body, null, 1));
    }
    const json = (status, obj) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(obj)); };

    if (req.method === 'POST' && url.pathname === '/v1/messages/count_tokens') {
      log(req.method, req.url, '-> count_tokens');
      return json(200, { input_tokens: Math.ceil(chunks.reduce((n, c) => n + c.length, 0) / 4) });
    }
    if (req.method === 'POST' && url.pathname === '/v1/messages') {
      const r = reply(body);
      log(req.method, req.url, `model=${body.model} stream=${!!body.stream} tools=${(body.tools || []).length} -> ${r.kind}`);
      const msg = message(body, r);
      return body.stream ? stream(res, msg) : json(200, msg);
    }
    log(req.method, req.url, '-> 200 {}');
    return json(200, {});
  });
});

server.listen(Number(process.argv[2] || process.env.PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
  log(`listening on 127.0.0.1:${server.address().port}`);
});
