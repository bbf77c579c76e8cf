// The golden wire transcripts (agentsvc/testdata/transcripts/*.txtar) replayed against the browser
// client: AgentClient, ToolHost and Peer on a fake socket. The agent's frames are delivered as
// recorded; every frame the page sends must equal the transcript's next page frame byte for
// byte, once the page's own random ids are replaced the documented way (clientTurnId →
// <clientTurnId1>, …; the agent's ids arrive as placeholders and are echoed as such). The Go
// side (agentsvc/transcript_test.go) replays the same files against the agent and validates every
// frame against docs/protocol.schema.json, so both sides are pinned to the same, valid bytes.
// What the visitor does is read from the page's frames: an agent/chat request is client.chat(),
// a notifications/cancelled of that request is an abort, and "drop" ends the connection.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

import { AgentClient } from '../agent.js';
import { Method } from '../protocol.js';
import { ToolHost } from '../tools.js';
import { FakeSocket, quietLogger, settle } from './fakesocket.js';

const DIR = new URL('../../agentsvc/testdata/transcripts/', import.meta.url);
const PAGE = { url: 'https://shop.example/cars', title: 'Cars' };

/**
 * Reads a transcript: its tools.json and its frames ("page <json>", "agent <json>", "drop").
 * @param {string} text
 */
export function parseTranscript(text) {
  /** @type {Record<string, string>} */
  const files = {};
  const parts = text.split(/^-- (\S+) --$/m);
  for (let i = 1; i < parts.length; i += 2) files[parts[i]] = parts[i + 1].replace(/^\n/, '');
  const tools = JSON.parse(files['tools.json']);
  const frames = files.frames
    .trim()
    .split('\n')
    .map((line) => {
      if (line === 'drop') return { from: 'drop', json: '' };
      const sp = line.indexOf(' ');
      const from = line.slice(0, sp);
      if (from !== 'page' && from !== 'agent') throw new Error(`cannot read ${line}`);
      return { from, json: line.slice(sp + 1) };
    });
  return { tools, frames };
}

/**
 * The page's random client turn ids and their names in the transcripts: normalise replaces them by
 * <clientTurnId1>, … in order of first use in the page's frames; restore puts them back into the
 * agent's frames that echo them (the agent writes < and > as \u003c and \u003e).
 */
function clientTurnIds() {
  /** @type {Map<string, string>} */
  const names = new Map();
  /** @type {Map<string, string>} */
  const values = new Map();
  return {
    normalise: (/** @type {string} */ frame) =>
      frame.replace(/"clientTurnId":"([^"]*)"/g, (_, v) => {
        if (!names.has(v)) {
          const name = `<clientTurnId${names.size + 1}>`;
          names.set(v, name);
          values.set(name, v);
        }
        return `"clientTurnId":"${names.get(v)}"`;
      }),
    restore: (/** @type {string} */ frame) =>
      frame.replace(/(?:<|\\u003c)(clientTurnId\d+)(?:>|\\u003e)/g, (m, n) => values.get(`<${n}>`) ?? m),
  };
}

/** @param {{name: string, description: string, inputSchema: object, result: string|null}[]} tools */
function pageHost(tools) {
  const host = new ToolHost({ logger: quietLogger() });
  for (const t of tools) {
    host.registerTool({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      // A tool without a result runs until the agent cancels it or the page goes away.
      execute: (_args, { signal }) =>
        t.result !== null
          ? t.result
          : new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
    });
  }
  return host;
}

/** Resolves with the socket the client opens after `count` sockets, without any wall clock. */
async function nextSocket(count) {
  for (let i = 0; i < 200 && FakeSocket.instances.length <= count; i++) await settle(1);
  assert.ok(FakeSocket.instances.length > count, 'the client did not connect again');
  return FakeSocket.instances[count];
}

/**
 * Replays one transcript; returns what the visitor's chat() ended with.
 * @param {ReturnType<typeof parseTranscript>} tr
 */
async function replay(tr) {
  FakeSocket.instances = [];
  const m = new Map();
  const client = new AgentClient({
    url: 'ws://agent.test/v1/ws',
    host: pageHost(tr.tools),
    WebSocketImpl: FakeSocket,
    storage: { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v), removeItem: (k) => void m.delete(k) },
    page: () => PAGE,
    random: () => 0,
    logger: quietLogger(),
    keepAliveMs: 0,
    fetchJSON: async () => ({ allowed: true }),
  });
  const ids = clientTurnIds();
  client.start();
  let socket = await nextSocket(0);
  socket.open();
  /** @type {Promise<any>|null} */
  let chat = null;
  let chatRequestId = null;
  const abort = new AbortController();
  for (const [i, f] of tr.frames.entries()) {
    const where = `frame ${i + 1}`;
    if (f.from === 'agent') {
      socket.receive(ids.restore(f.json));
      continue;
    }
    if (f.from === 'drop') {
      const count = FakeSocket.instances.length;
      socket.drop(1006);
      socket = await nextSocket(count);
      socket.open();
      continue;
    }
    const want = JSON.parse(f.json);
    if (want.method === Method.AgentChat) {
      chat = client.chat(want.params.text, { signal: abort.signal }).then(
        (r) => ({ result: r }),
        (e) => ({ error: e }),
      );
      chatRequestId = want.id;
    } else if (want.method === Method.Cancelled && want.params.requestId === chatRequestId) {
      abort.abort(want.params.reason);
    }
    try {
      await socket.next();
    } catch {
      assert.fail(`${where}: the page sent nothing, want ${f.json}`);
    }
    const raw = socket.sent[socket.cursor - 1]; // the frame as written, not re-encoded
    assert.equal(ids.normalise(raw), f.json, `${where}: the page's frame differs`);
  }
  await settle(5);
  assert.deepEqual(socket.drain(), [], 'the page sent more than the transcript says');
  const ended = chat ? await chat : null;
  client.stop();
  return ended;
}

/** The last agent/chat result of a transcript's frames (null when none). */
function lastChatResult(tr) {
  let result = null;
  for (const f of tr.frames) {
    if (f.from !== 'agent') continue;
    const msg = JSON.parse(f.json);
    if (msg.method === Method.AgentEvent && msg.params.type === 'turn_end') result = { turnId: msg.params.turnId, text: msg.params.text, stopReason: msg.params.stopReason };
  }
  return result;
}

const files = readdirSync(DIR).filter((n) => n.endsWith('.txtar'));

describe('golden wire transcripts', () => {
  test('there are transcripts to replay', () => {
    for (const want of ['turn-parallel-calls', 'validation-error', 'cancel', 'resume']) assert.ok(files.includes(`${want}.txtar`), want);
  });

  for (const name of files) {
    test(name, async () => {
      const tr = parseTranscript(readFileSync(new URL(name, DIR), 'utf8'));
      const ended = await replay(tr);
      const end = lastChatResult(tr);
      assert.ok(ended, 'the visitor sent a message');
      if (end.stopReason === 'cancelled') {
        assert.equal(ended.error, 'stopped by the visitor', 'a stopped chat() rejects with the abort reason');
      } else {
        assert.ok(!ended.error, `chat() failed: ${ended.error}`);
        assert.equal(ended.result.turnId, end.turnId);
        assert.equal(ended.result.text, end.text);
        assert.equal(ended.result.stopReason, end.stopReason);
      }
    });
  }

  test('a page frame that differs from the transcript fails the replay', async () => {
    const tr = parseTranscript(readFileSync(new URL('validation-error.txtar', DIR), 'utf8'));
    const i = tr.frames.findIndex((f) => f.from === 'page' && f.json.includes('"agent/chat"'));
    tr.frames[i] = { from: 'page', json: tr.frames[i].json.replace('"text":"Weather?"', '"text":"Weather?","extra":1') };
    await assert.rejects(replay(tr), /frame \d+: the page's frame differs/);
  });
});
