// A run cut by a kill -9 after its server tool answered, on SQLite: the next run on the
// thread (a reloaded page's HttpAgent of @ag-ui/client, against the restarted binary) gets a
// MESSAGES_SNAPSHOT with the call that ran and its result, and the interrupted answer; every
// event matches @ag-ui/core's schemas; the model's next request carries the call and its
// result, every tool_call_id answered, and never two user messages in a row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startFakeOpenAI, lastMessage } from '../browser/fake-openai.mjs';
import { suiteSetup, startServer, newAgent, checkEvents, waitFor, readSSE, WAIT_MS } from './harness.mjs';

const suite = suiteSetup('byomcp-agui-interrupted-');

/** The text of a message's content (string or parts). */
const textOf = (m) => (typeof m?.content === 'string' ? m.content : (m?.content ?? []).map((p) => p.text ?? '').join(''));

/** Starts the fake model and the server on the thread store db. */
async function setup(script, db, config) {
  const model = await startFakeOpenAI(script);
  const server = await startServer(suite.built.bin, { model: model.url, args: ['--store', db, '--mcp-config', config] });
  await server.waitLog(/MCP server ready/);
  return { model, server, close: async () => { await server.close(); await model.close(); } };
}

test('a run killed (-9) after its server tool answered: the next run\'s MESSAGES_SNAPSHOT has the call, its result and the interrupted answer; the model gets the call, no two user messages in a row', async () => {
  const db = `sqlite:${path.join(suite.tmp, 'threads.db')}`;
  const config = path.join(suite.tmp, 'mcp.json');
  await writeFile(config, JSON.stringify({
    mcpServers: { calc: { command: suite.built.bin, args: ['tools'], env: { BYOMCP_NOTES: path.join(suite.tmp, 'notes.db') }, expose: ['web'] } },
  }));
  const threadId = randomUUID();
  const site = 'http://localhost:5173'; // the site's origin stays when the server restarts on another port
  let env = await setup((body) => {
    if (lastMessage(body).role === 'user') return { toolCalls: [{ name: 'calc__calculate', arguments: { expression: '(17 * 23) + 4' } }] };
    return { text: 'The answer is coming, slowly...'.repeat(4), chunkSize: 1, delayMs: 1000 }; // killed meanwhile
  }, db, config);
  try {
    // The first run's client reads the stream itself: the kill cuts it (HttpAgent would
    // reject a promise of its own that nothing awaits).
    /** @type {any[]} */
    const events = [];
    const res = await fetch(`${env.server.url}/v1/agui`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', Origin: site },
      body: JSON.stringify({ threadId, runId: randomUUID(), state: {}, tools: [], context: [], forwardedProps: {},
        messages: [{ id: randomUUID(), role: 'user', content: 'What is (17 * 23) + 4?' }] }),
    });
    assert.equal(res.status, 200);
    const reading = readSSE(res.body, events);
    await waitFor(() => events.some((e) => e.type === 'TOOL_CALL_RESULT'), 'the server tool\'s result');
    await env.model.waitFor((reqs) => reqs.length === 2); // the model is answering after the result
    await env.server.kill9();
    await reading;
    checkEvents(events);
  } finally {
    await env.close();
  }

  env = await setup(() => ({ text: 'It is 395, as the calculator said before the restart.' }), db, config);
  try {
    // A reloaded page that knows only the thread id and its new message. The killed process's
    // claim on the thread lapses first (10 s): until then the run is refused as busy.
    let runs;
    const end = Date.now() + 3 * WAIT_MS;
    for (;;) {
      const fresh = newAgent(env.server.url, { threadId, origin: site });
      fresh.agent.addMessage({ id: randomUUID(), role: 'user', content: 'So, what is it?' });
      try {
        await fresh.agent.runAgent({});
        await fresh.settled();
        runs = fresh.runs;
        break;
      } catch (err) {
        if (!/409/.test(String(err)) || Date.now() > end) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    const types = checkEvents(runs.at(-1));
    assert.equal(types[1], 'MESSAGES_SNAPSHOT', `events ${types}`);
    const snap = runs.at(-1)[1].messages;
    assert.deepEqual(snap.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant', 'user']);
    const call = snap[1].toolCalls?.[0];
    assert.equal(call?.function.name, 'calc__calculate');
    assert.equal(snap[2].toolCallId, call.id, 'the call is answered');
    assert.match(textOf(snap[2]), /395/);
    assert.match(textOf(snap[3]), /interrupted/);
    const sent = env.model.requests[0].body.messages;
    const roles = sent.map((m) => m.role);
    assert.deepEqual(roles, ['system', 'user', 'assistant', 'tool', 'user'], `the model got ${roles}`);
    assert.equal(sent[2].tool_calls?.[0]?.id, call.id);
    assert.equal(sent[3].tool_call_id, call.id);
    assert.match(textOf(sent[3]), /395/);
    assert.ok(env.server.logs.join('').includes('marked an interrupted run'));
    assert.deepEqual(suite.warnings, []);
  } finally {
    await env.close();
  }
});
