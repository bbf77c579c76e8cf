// A fake OpenAI-compatible model server for the browser end-to-end tests: POST
// /v1/chat/completions streams SSE chunks shaped like the real API's (role chunk, content
// deltas, tool_calls deltas with the arguments split across chunks, finish_reason, a usage
// chunk, `data: [DONE]`), scripted per scenario by a function of the request body. Every
// request is recorded so tests can assert what the agent sent (messages, offered tools).
import http from 'node:http';

/**
 * What the script answers for one request.
 * @typedef {object} Reply
 * @property {string} [text] assistant text, streamed in chunks
 * @property {{name: string, arguments: object|string, id?: string}[]} [toolCalls]
 * @property {number} [chunkSize] characters per content chunk (default 6)
 * @property {number} [delayMs] pause between chunks (default 5)
 * @property {number} [status] answer with this HTTP error instead (e.g. 429, 500)
 */

/**
 * One recorded request.
 * @typedef {object} Recorded
 * @property {any} body the parsed JSON body
 * @property {boolean} finished the whole reply was written
 * @property {boolean} aborted the client went away before the reply ended
 * @property {string} sent the assistant text written to the socket so far
 */

/**
 * @param {(body: any, ctx: {n: number, requests: Recorded[]}) => Reply | Promise<Reply>} script
 * @returns {Promise<{url: string, requests: Recorded[], setScript: (s: typeof script) => void, close: () => Promise<void>, waitFor: (pred: (r: Recorded[]) => boolean, ms?: number) => Promise<void>}>}
 */
export async function startFakeOpenAI(script) {
  /** @type {Recorded[]} */
  const requests = [];
  let current = script;
  let n = 0;
  /** @type {Set<() => void>} */
  const watchers = new Set();
  const notify = () => {
    for (const w of [...watchers]) w();
  };
  const sockets = new Set();

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      json(res, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'e2e' }] });
      return;
    }
    if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
      json(res, 404, { error: { message: `no route ${req.method} ${url.pathname}`, type: 'invalid_request_error' } });
      return;
    }
    let body;
    try {
      body = JSON.parse(await readBody(req));
    } catch (err) {
      json(res, 400, { error: { message: `bad JSON: ${err}`, type: 'invalid_request_error' } });
      return;
    }
    /** @type {Recorded} */
    const rec = { body, finished: false, aborted: false, sent: '' };
    requests.push(rec);
    n++;
    notify();
    let reply;
    try {
      reply = await current(body, { n, requests });
    } catch (err) {
      json(res, 500, { error: { message: `fake model script failed: ${err}`, type: 'server_error' } });
      return;
    }
    if (reply.status) {
      json(res, reply.status, { error: { message: `scripted ${reply.status}`, type: 'server_error' } });
      rec.finished = true;
      notify();
      return;
    }
    res.on('close', () => {
      if (!rec.finished) {
        rec.aborted = true;
        notify();
      }
    });
    if (body.stream) await stream(res, body, reply, rec);
    else whole(res, body, reply);
    rec.finished = !rec.aborted;
    notify();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    setScript: (s) => {
      current = s;
    },
    /** Resolves when pred(requests) holds; rejects after ms. */
    waitFor: (pred, ms = 15000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!pred(requests)) return;
          watchers.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`fake model: condition not met within ${ms} ms (${requests.length} requests)`));
        }, ms);
        watchers.add(check);
        check();
      }),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** @param {http.IncomingMessage} req */
function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * @param {http.ServerResponse} res
 * @param {number} status
 * @param {unknown} value
 */
function json(res, status, value) {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

let callSeq = 0;

/** Normalised tool calls with ids and JSON-text arguments. */
function toolCallsOf(reply) {
  return (reply.toolCalls ?? []).map((c) => ({
    id: c.id ?? `call_${++callSeq}`,
    name: c.name,
    arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
  }));
}

/** Splits s into pieces of at most size characters. */
function pieces(s, size) {
  const out = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

/**
 * Writes the reply as an SSE stream of chat.completion.chunk objects.
 * @param {http.ServerResponse} res
 * @param {any} body
 * @param {Reply} reply
 * @param {Recorded} rec
 */
async function stream(res, body, reply, rec) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const id = `chatcmpl-${Date.now().toString(36)}`;
  const created = Math.floor(Date.now() / 1000);
  const model = body.model ?? 'fake-model';
  const delay = reply.delayMs ?? 5;
  const send = async (choices, extra = {}, text = '') => {
    if (rec.aborted || res.destroyed) return false;
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`);
    rec.sent += text;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    return !rec.aborted && !res.destroyed;
  };
  if (!(await send([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]))) return;
  for (const p of pieces(reply.text ?? '', reply.chunkSize ?? 6)) {
    if (!(await send([{ index: 0, delta: { content: p }, finish_reason: null }], {}, p))) return;
  }
  const calls = toolCallsOf(reply);
  for (const [index, c] of calls.entries()) {
    const first = { index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } };
    if (!(await send([{ index: 0, delta: { tool_calls: [first] }, finish_reason: null }]))) return;
    // Split the arguments at odd places, as real streams do.
    for (const p of pieces(c.arguments, 7)) {
      if (!(await send([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: p } }] }, finish_reason: null }]))) return;
    }
  }
  const finish = calls.length ? 'tool_calls' : 'stop';
  if (!(await send([{ index: 0, delta: {}, finish_reason: finish }]))) return;
  if (body.stream_options?.include_usage) {
    if (!(await send([], { usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } }))) return;
  }
  res.write('data: [DONE]\n\n');
  res.end();
}

/**
 * Writes the reply as one chat.completion object (for non-streaming requests).
 * @param {http.ServerResponse} res
 * @param {any} body
 * @param {Reply} reply
 */
function whole(res, body, reply) {
  const calls = toolCallsOf(reply);
  const message = { role: 'assistant', content: reply.text ?? null };
  if (calls.length) message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  json(res, 200, {
    id: `chatcmpl-${Date.now().toString(36)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'fake-model',
    choices: [{ index: 0, message, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  });
}

// ---- helpers for scripts ------------------------------------------------------------------

/** The last message of a request body. */
export function lastMessage(body) {
  return body.messages?.[body.messages.length - 1];
}

/** The text of the last user message. */
export function lastUserText(body) {
  const m = [...(body.messages ?? [])].reverse().find((x) => x.role === 'user');
  if (!m) return '';
  return typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join('');
}

/** Names of the tools offered to the model. */
export function toolNames(body) {
  return (body.tools ?? []).map((t) => t.function?.name ?? t.name);
}

/**
 * The tool results since the last user message, with the name of the call they answer.
 * @returns {{name: string, content: string}[]}
 */
export function toolResultsSinceUser(body) {
  const msgs = body.messages ?? [];
  let i = msgs.length - 1;
  while (i >= 0 && msgs[i].role !== 'user') i--;
  const names = new Map();
  const out = [];
  for (const m of msgs.slice(i + 1)) {
    for (const c of m.tool_calls ?? []) names.set(c.id, c.function?.name);
    if (m.role === 'tool') {
      const content = typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join('');
      out.push({ name: names.get(m.tool_call_id) ?? '', content });
    }
  }
  return out;
}
