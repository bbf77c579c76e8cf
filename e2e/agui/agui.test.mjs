// POST /v1/agui driven by the real @ag-ui/client HttpAgent against the real byomcp binary and
// a fake OpenAI-compatible model. Every event received is checked against @ag-ui/core's zod
// schemas (EventSchemas), and the client's own checks (event order, open and closed messages
// and calls) run on every stream because HttpAgent applies them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startFakeOpenAI, lastMessage, toolNames } from '../browser/fake-openai.mjs';
import { suiteSetup, startServer, newAgent, checkEvents, waitFor, ROOT, WAIT_MS } from './harness.mjs';

const suite = suiteSetup('byomcp-agui-test-');

/** The frontend tool of these tests, as a page using AG-UI declares it. */
const setColor = {
  name: 'set_color',
  description: 'Sets the color of the page header.',
  parameters: {
    type: 'object',
    properties: { color: { type: 'string', enum: ['red', 'green', 'blue'] } },
    required: ['color'],
    additionalProperties: false,
  },
};

/** The text of a message's content (string or parts). */
const textOf = (m) => (typeof m?.content === 'string' ? m.content : (m?.content ?? []).map((p) => p.text ?? '').join(''));

/** Starts the fake model and the server; returns both and a cleanup. */
async function setup(script, args) {
  const model = await startFakeOpenAI(script);
  const server = await startServer(suite.built.bin, { model: model.url, args });
  return {
    model,
    server,
    close: async () => {
      await server.close();
      await model.close();
    },
  };
}

test('a streamed text run: RUN_STARTED, the text as it streams, RUN_FINISHED', async () => {
  suite.warnings.length = 0;
  const { server, close } = await setup(() => ({ text: 'Hello from byomcp, streamed in pieces.', chunkSize: 5, delayMs: 30 }));
  try {
    const { agent, runs, settled } = newAgent(server.url);
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'Say hello.' });
    const deltas = [];
    const { newMessages } = await agent.runAgent({}, { onTextMessageContentEvent: ({ event }) => void deltas.push(event.delta) });
    await settled();
    const types = checkEvents(runs[0]);
    assert.equal(types[0], 'RUN_STARTED');
    assert.equal(types.at(-1), 'RUN_FINISHED');
    assert.deepEqual([...new Set(types)], ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED']);
    // Chunks that come while the agent stores the previous ones join one delta: several, not one per chunk.
    assert.ok(deltas.length >= 2, `got ${deltas.length} deltas, want the text streamed in several`);
    assert.equal(deltas.join(''), 'Hello from byomcp, streamed in pieces.');
    assert.equal(runs[0][0].threadId, agent.threadId);
    assert.equal(newMessages.length, 1);
    assert.equal(newMessages[0].role, 'assistant');
    assert.equal(newMessages[0].content, 'Hello from byomcp, streamed in pieces.');
    assert.deepEqual(suite.warnings, []);
  } finally {
    await close();
  }
});

test('a frontend tool round trip over two runs: the run ends at TOOL_CALL_END, the next goes on from the result', async () => {
  suite.warnings.length = 0;
  const { model, server, close } = await setup((body) => {
    const last = lastMessage(body);
    if (last.role === 'user') return { text: 'Setting it.', toolCalls: [{ name: 'set_color', arguments: { color: 'blue' } }] };
    return { text: `Done: ${last.content.includes('header is blue') ? 'the header is blue' : 'no result'}.` };
  });
  try {
    const { agent, runs, settled } = newAgent(server.url);
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'Make the header blue.' });
    /** @type {any[]} */
    const ended = [];
    await agent.runAgent({ tools: [setColor] }, { onToolCallEndEvent: ({ toolCallName, toolCallArgs }) => void ended.push({ toolCallName, toolCallArgs }) });
    await settled();
    const types = checkEvents(runs[0]);
    assert.deepEqual(types.slice(-4), ['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'RUN_FINISHED']);
    assert.ok(!types.includes('TOOL_CALL_RESULT'), 'a frontend tool has no result from the agent');
    assert.deepEqual(ended, [{ toolCallName: 'set_color', toolCallArgs: { color: 'blue' } }]);
    const fin = runs[0].at(-1);
    const call = agent.messages.at(-1).toolCalls[0];
    assert.deepEqual(fin.outcome, { type: 'success', pendingToolCallIds: [call.id] });
    assert.deepEqual(toolNames(model.requests[0].body), ['set_color']);

    // The application runs the tool and starts the next run with its result.
    agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: call.id, content: 'The header is blue now.' });
    const { newMessages } = await agent.runAgent({ tools: [setColor] });
    await settled();
    const types2 = checkEvents(runs[1]);
    assert.ok(!types2.includes('MESSAGES_SNAPSHOT'), `the histories match: got ${types2}`);
    assert.equal(model.requests.length, 2);
    const toolMsg = model.requests[1].body.messages.find((m) => m.role === 'tool');
    assert.match(textOf(toolMsg), /The header is blue now\./);
    assert.equal(newMessages.at(-1).content, 'Done: the header is blue.');
    assert.deepEqual(suite.warnings, []);
  } finally {
    await close();
  }
});

test('a server-side MCP tool: TOOL_CALL_START, its arguments streamed in several TOOL_CALL_ARGS, TOOL_CALL_END and TOOL_CALL_RESULT, then the answer', async () => {
  suite.warnings.length = 0;
  const config = path.join(suite.tmp, 'mcp.json');
  await writeFile(config, JSON.stringify({
    mcpServers: { calc: { command: suite.built.bin, args: ['tools'], env: { BYOMCP_NOTES: path.join(suite.tmp, 'notes.db') }, expose: ['web'] } },
  }));
  const { model, server, close } = await setup((body) => {
    const last = lastMessage(body);
    if (last.role === 'user') return { toolCalls: [{ name: 'calc__calculate', arguments: { expression: '(17 * 23) + 4' } }] };
    return { text: `It is ${/395/.test(textOf(last)) ? '395' : 'unknown'}.` };
  }, ['--store', 'memory', '--mcp-config', config]);
  try {
    await server.waitLog(/MCP server ready/);
    const { agent, runs, settled } = newAgent(server.url);
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'What is (17 * 23) + 4?' });
    const { newMessages } = await agent.runAgent({ tools: [setColor] });
    await settled();
    const types = checkEvents(runs[0]);
    assert.deepEqual(types.filter((t, i) => t !== types[i - 1]), [
      'RUN_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED',
    ]);
    const start = runs[0].find((e) => e.type === 'TOOL_CALL_START');
    const result = runs[0].find((e) => e.type === 'TOOL_CALL_RESULT');
    assert.equal(start.toolCallName, 'calc__calculate');
    assert.equal(result.toolCallId, start.toolCallId);
    // The fake model splits the arguments into 7-character chunks: the agent's own tool
    // gets them streamed, one TOOL_CALL_ARGS per chunk, joining to the arguments.
    const args = runs[0].filter((e) => e.type === 'TOOL_CALL_ARGS');
    const expression = JSON.stringify({ expression: '(17 * 23) + 4' });
    assert.ok(args.length > 1, `${args.length} TOOL_CALL_ARGS, want the arguments streamed in several`);
    assert.ok(args.every((e) => e.toolCallId === start.toolCallId));
    assert.equal(args.map((e) => e.delta).join(''), expression);
    assert.equal(newMessages[0].toolCalls?.[0]?.function.arguments, expression);
    assert.match(result.content, /395/);
    const offered = toolNames(model.requests[0].body);
    assert.ok(offered.includes('calc__calculate') && offered.includes('set_color'), `offered ${offered}`);
    assert.deepEqual(newMessages.map((m) => m.role), ['assistant', 'tool', 'assistant']);
    assert.equal(newMessages.at(-1).content, 'It is 395.');
    assert.deepEqual(suite.warnings, []);
  } finally {
    await close();
  }
});

test('invalid frontend-tool arguments go back to the model, which corrects them; the client sees only the valid call', async () => {
  suite.warnings.length = 0;
  const { model, server, close } = await setup((body) => {
    const last = lastMessage(body);
    if (last.role === 'user') return { toolCalls: [{ name: 'set_color', arguments: { color: 'purple' } }] };
    return { toolCalls: [{ name: 'set_color', arguments: { color: 'green' } }] };
  });
  try {
    const { agent, runs, settled } = newAgent(server.url);
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'Purple header please.' });
    /** @type {any[]} */
    const ended = [];
    await agent.runAgent({ tools: [setColor] }, { onToolCallEndEvent: ({ toolCallArgs }) => void ended.push(toolCallArgs) });
    await settled();
    checkEvents(runs[0]);
    assert.deepEqual(ended, [{ color: 'green' }]);
    assert.equal(model.requests.length, 2);
    const refusal = lastMessage(model.requests[1].body);
    assert.equal(refusal.role, 'tool');
    assert.match(textOf(refusal), /invalid arguments/);
    assert.match(textOf(refusal), /purple|enum|green/);
    assert.deepEqual(suite.warnings, []);
  } finally {
    await close();
  }
});

test('a client that disconnects cancels its run: the model call is abandoned', async () => {
  suite.warnings.length = 0;
  const long = 'word '.repeat(400);
  const { model, server, close } = await setup(() => ({ text: long, chunkSize: 5, delayMs: 20 }));
  try {
    const { agent, settled } = newAgent(server.url);
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'Talk for a long time.' });
    let contents = 0;
    const run = agent.runAgent({}, {
      onTextMessageContentEvent: () => {
        if (++contents === 3) agent.abortRun();
      },
    }).catch((err) => err);
    await model.waitFor((reqs) => reqs.length === 1 && reqs[0].aborted, 15000);
    await run;
    await settled();
    assert.equal(model.requests[0].finished, false, 'the model stream was cut before its end');
    assert.ok(model.requests[0].sent.length < long.length);
    // The thread is free again: a new run on it is accepted, not refused as busy.
    model.setScript(() => ({ text: 'Back.' }));
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'Are you there?' });
    let ok = false;
    for (let i = 0; i < 50 && !ok; i++) {
      try {
        await agent.runAgent({});
        ok = true;
      } catch (err) {
        if (!/HTTP 409/.test(String(err))) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    assert.ok(ok, 'the thread stayed busy after the client went away');
    assert.equal(agent.messages.at(-1).content, 'Back.');
  } finally {
    await close();
  }
});

test('a thread resumes after a restart on SQLite: a client sending only its new message gets the history to the model and a MESSAGES_SNAPSHOT', async () => {
  suite.warnings.length = 0;
  const db = `sqlite:${path.join(suite.tmp, 'threads.db')}`;
  const script = (body) => ({ text: body.messages.some((m) => textOf(m).includes('My name is Ada')) ? 'Your name is Ada.' : 'Nice to meet you.' });
  const threadId = randomUUID();
  const site = 'http://localhost:5173'; // the site's origin stays when the server restarts on another port
  let env = await setup(script, ['--store', db]);
  try {
    const { agent } = newAgent(env.server.url, { threadId, origin: site });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'My name is Ada.' });
    await agent.runAgent({});
    assert.equal(agent.messages.at(-1).content, 'Your name is Ada.');
  } finally {
    await env.close();
  }
  env = await setup(script, ['--store', db]);
  try {
    // A fresh client (a reloaded page) that knows only the thread id.
    const { agent, runs, settled } = newAgent(env.server.url, { threadId, origin: site });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'What is my name?' });
    await agent.runAgent({});
    await settled();
    const types = checkEvents(runs[0]);
    assert.equal(types[1], 'MESSAGES_SNAPSHOT');
    const snap = runs[0][1].messages;
    assert.deepEqual(snap.map((m) => m.role), ['user', 'assistant', 'user']);
    assert.equal(snap[0].content, 'My name is Ada.');
    const sent = env.model.requests[0].body.messages.map((m) => `${m.role}:${textOf(m)}`);
    assert.ok(sent.includes('user:My name is Ada.'), `the model got ${sent}`);
    assert.ok(sent.includes('assistant:Your name is Ada.'));
    assert.ok(sent.includes('user:What is my name?'));
    // @ag-ui/client keeps its own messages where they are and appends the snapshot's others.
    assert.deepEqual(agent.messages.map((m) => `${m.role}:${m.content}`).sort(), [
      'assistant:Your name is Ada.', 'assistant:Your name is Ada.', 'user:My name is Ada.', 'user:What is my name?',
    ]);
    assert.deepEqual(suite.warnings, []);
  } finally {
    await env.close();
  }
});

test('the site of the Origin (--sites) applies: its instructions and locale reach the model, its server tools filter, and over its token budget a run gets RUN_ERROR and is counted', async () => {
  suite.warnings.length = 0;
  const sitesFile = path.join(suite.tmp, 'sites.json');
  const config = path.join(suite.tmp, 'mcp-sites.json');
  await writeFile(config, JSON.stringify({
    mcpServers: { calc: { command: suite.built.bin, args: ['tools'], env: { BYOMCP_NOTES: path.join(suite.tmp, 'notes-sites.db') }, expose: ['web'] } },
  }));
  // The fake model reports 120 tokens per call: one run uses up the thread's hour.
  await writeFile(sitesFile, JSON.stringify({ sites: [{
    name: 'shop', origins: ['https://shop.example'], systemPrompt: "You are the shop's assistant.", locale: 'de-CH',
    mcpServers: [], budget: { sessionTokensPerHour: 100 },
  }] }));
  const { model, server, close } = await setup(() => ({ text: 'Grüezi.' }), ['--store', 'memory', '--sites', sitesFile, '--mcp-config', config, '--allowed-origins', 'http://localhost:5173']);
  try {
    await server.waitLog(/MCP server ready/);
    const { agent, runs, settled } = newAgent(server.url, { origin: 'https://shop.example' });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'Hallo' });
    await agent.runAgent({ tools: [setColor] });
    assert.equal(agent.messages.at(-1).content, 'Grüezi.');
    const system = model.requests[0].body.messages[0];
    assert.equal(system.role, 'system');
    assert.match(textOf(system), /^You are the shop's assistant\./);
    assert.match(textOf(system), /de-CH/);
    assert.deepEqual(toolNames(model.requests[0].body), ['set_color'], 'the site allows no server MCP server');

    agent.addMessage({ id: randomUUID(), role: 'user', content: 'Noch etwas?' });
    await agent.runAgent({ tools: [setColor] }).catch(() => {}); // the client may reject a run that ends in RUN_ERROR
    await settled();
    const types = checkEvents(runs[1]);
    assert.deepEqual(types, ['RUN_STARTED', 'RUN_ERROR']);
    assert.equal(runs[1][1].code, 'token_budget');
    assert.match(runs[1][1].message, /usage limit/);
    assert.equal(model.requests.length, 1, 'the refused run called the model');
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /byomcp_refused_total\{reason="token_budget"\} 1\b/);

    // An allowed origin of no site keeps the server's settings.
    const other = newAgent(server.url, { origin: 'http://localhost:5173' });
    other.agent.addMessage({ id: randomUUID(), role: 'user', content: 'hi' });
    await other.agent.runAgent({ tools: [setColor] });
    assert.doesNotMatch(textOf(model.requests[1].body.messages[0]), /shop's assistant/);
    assert.ok(toolNames(model.requests[1].body).includes('calc__calculate'), 'no site: the server tools are offered');
    assert.deepEqual(suite.warnings, []);
  } finally {
    await close();
  }
});

test('a refused or missing Origin gets 403 and no run; an allowed one gets CORS headers', async () => {
  const { model, server, close } = await setup(() => ({ text: 'should not run' }));
  try {
    for (const origin of ['https://evil.example', null]) {
      const { agent } = newAgent(server.url, { origin });
      agent.addMessage({ id: randomUUID(), role: 'user', content: 'hi' });
      await assert.rejects(agent.runAgent({}), /HTTP 403/);
    }
    assert.equal(model.requests.length, 0);
    const pre = await fetch(`${server.url}/v1/agui`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), 'http://localhost:5173');
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /content-type/i);
    const bad = await fetch(`${server.url}/v1/agui`, { method: 'OPTIONS', headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' } });
    assert.equal(bad.status, 403);
    assert.equal(bad.headers.get('access-control-allow-origin'), null);
    await waitFor(() => /refused origin/.test(server.logs.join('')), 'the refusal in the log');
  } finally {
    await close();
  }
});

/** The calc server of `byomcp tools`, exposed to the web, as an --mcp-config file. */
async function calcConfig(name) {
  const config = path.join(suite.tmp, `${name}.json`);
  await writeFile(config, JSON.stringify({
    mcpServers: { calc: { command: suite.built.bin, args: ['tools'], env: { BYOMCP_NOTES: path.join(suite.tmp, `${name}.db`) }, expose: ['web'] } },
  }));
  return config;
}

test('the calls of one response reach HttpAgent in the model\'s order, and its pendingToolCallIds too', async () => {
  suite.warnings.length = 0;
  const config = await calcConfig('mcp-order');
  const order = ['fA', 's1', 'fB', 'fC', 'fD'];
  const { server, close } = await setup((body) => {
    if (lastMessage(body).role !== 'user') return { text: 'done' };
    return { toolCalls: order.map((id, i) => (id.startsWith('s')
      ? { id, name: 'calc__calculate', arguments: { expression: '1 + 1' } }
      : { id, name: 'set_color', arguments: { color: ['red', 'green', 'blue'][i % 3] } })) };
  }, ['--store', 'memory', '--mcp-config', config]);
  try {
    await server.waitLog(/MCP server ready/);
    for (let run = 0; run < 3; run++) {
      const { agent, runs, settled } = newAgent(server.url);
      agent.addMessage({ id: randomUUID(), role: 'user', content: 'Four colours and a sum.' });
      /** @type {string[]} */
      const started = [];
      let pending;
      await agent.runAgent({ tools: [setColor] }, {
        onToolCallStartEvent: ({ event }) => void started.push(event.toolCallId),
        onRunFinishedEvent: ({ pendingToolCallIds }) => { pending = pendingToolCallIds; },
      });
      await settled();
      checkEvents(runs[0]);
      assert.deepEqual(started.filter((id) => id.startsWith('f')), ['fA', 'fB', 'fC', 'fD']);
      assert.deepEqual(pending, ['fA', 'fB', 'fC', 'fD']);
      assert.deepEqual(runs[0].at(-1).outcome, { type: 'success', pendingToolCallIds: ['fA', 'fB', 'fC', 'fD'] });
    }
    assert.deepEqual(suite.warnings, []);
  } finally {
    await close();
  }
});

test('server calls past the limit of 25 tool calls get a TOOL_CALL_RESULT saying so: HttpAgent has no call pending, or only the frontend one', async () => {
  suite.warnings.length = 0;
  const config = await calcConfig('mcp-limit');
  const { server, close } = await setup((body) => {
    const last = lastMessage(body);
    if (last.role !== 'user') return { text: 'done' };
    const colour = /colour/.test(textOf(last));
    const calls = colour ? [{ id: 'f1', name: 'set_color', arguments: { color: 'red' } }] : [];
    for (let i = 1; i <= 27; i++) calls.push({ id: `s${i}`, name: 'calc__calculate', arguments: { expression: `${i} + 1` } });
    if (colour) calls.push({ id: 'f2', name: 'set_color', arguments: { color: 'blue' } });
    return { toolCalls: calls, delayMs: 0 };
  }, ['--store', 'memory', '--mcp-config', config]);
  try {
    await server.waitLog(/MCP server ready/);
    for (const [content, pending, ran] of [['Many sums.', [], 25], ['Many sums and a colour.', ['f1'], 24]]) {
      const { agent, runs, settled } = newAgent(server.url);
      agent.addMessage({ id: randomUUID(), role: 'user', content });
      let fin;
      await agent.runAgent({ tools: [setColor] }, { onRunFinishedEvent: (e) => { fin = e; } });
      await settled();
      checkEvents(runs[0]);
      assert.deepEqual(fin.pendingToolCallIds, pending, content);
      assert.deepEqual(fin.result, { stopReason: 'max_iterations' });
      const results = new Map(runs[0].filter((e) => e.type === 'TOOL_CALL_RESULT').map((e) => [e.toolCallId, e.content]));
      for (let i = 1; i <= 27; i++) {
        if (i <= ran) assert.match(results.get(`s${i}`) ?? '', new RegExp(`= ${i + 1}\\b`), `s${i} ran`);
        else assert.equal(results.get(`s${i}`), 'not run: this turn reached its limit of 25 tool calls');
      }
      assert.ok(!runs[0].some((e) => e.toolCallId === 'f2'), 'a frontend call past the limit is not shown');
    }
    assert.deepEqual(suite.warnings, []);
  } finally {
    await close();
  }
});

/**
 * The hello.mjs of docs/agui.md, taken from the guide as it is, pointed at url, with its import of
 * @ag-ui/client resolved here (the temporary directory has no node_modules).
 * @param {string} url the server's base URL
 */
async function guideExample(url) {
  const guide = await readFile(path.join(ROOT, 'docs', 'agui.md'), 'utf8');
  const m = /```js\n(\/\/ hello\.mjs[^\n]*\n[\s\S]*?)```/.exec(guide);
  assert.ok(m, 'docs/agui.md has hello.mjs');
  let code = m[1];
  for (const [from, to] of [
    ["'http://127.0.0.1:8080/v1/agui'", JSON.stringify(`${url}/v1/agui`)],
    ["from '@ag-ui/client'", `from ${JSON.stringify(import.meta.resolve('@ag-ui/client'))}`],
  ]) {
    assert.ok(code.includes(from), `the example of docs/agui.md has ${from}`);
    code = code.replace(from, to);
  }
  const file = path.join(suite.tmp, `hello-${randomUUID()}.mjs`);
  await writeFile(file, code);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hello.mjs did not end within ${WAIT_MS} ms:\n${out}\n${err}`));
    }, WAIT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

test('the hello.mjs of docs/agui.md runs: the server tool runs on the server, the frontend call is answered by the script, the agent answers', async () => {
  const config = await calcConfig('mcp-hello');
  const { model, server, close } = await setup((body) => {
    const last = lastMessage(body);
    if (last.role === 'user') {
      return { text: 'On it.', toolCalls: [{ name: 'calc__calculate', arguments: { expression: '6 * 7' } }, { name: 'set_color', arguments: { color: 'green' } }] };
    }
    return { text: `Done: ${body.messages.filter((m) => m.role === 'tool').map(textOf).join(' | ')}` };
  }, ['--store', 'memory', '--mcp-config', config]);
  try {
    await server.waitLog(/MCP server ready/);
    const { code, out, err } = await guideExample(server.url);
    assert.equal(code, 0, `hello.mjs failed:\n${out}\n${err}`);
    assert.equal(out.split('[set_color] {"color":"green"}').length - 1, 1, `the frontend call once in:\n${out}`);
    assert.doesNotMatch(out, /\[calc__calculate\]/, 'a server tool is not run by the script');
    assert.match(out, /On it\./);
    assert.match(out, /Done: .*42.*The header is green now\./s);
    assert.equal(model.requests.length, 2);
  } finally {
    await close();
  }
});

test('the hello.mjs of docs/agui.md runs without a model key (the offline planner)', async () => {
  const server = await startServer(suite.built.bin, { model: null });
  try {
    const { code, out, err } = await guideExample(server.url);
    assert.equal(code, 0, `hello.mjs failed:\n${out}\n${err}`);
    assert.equal(out.split('[set_color] {"color":"green"}').length - 1, 1, `the frontend call once in:\n${out}`);
    assert.match(out, /The header is green now\.[\s\S]*offline planner/i);
  } finally {
    await server.close();
  }
});
