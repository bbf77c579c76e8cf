// A server-side MCP server that asks the visitor something during a tool call
// (@modelcontextprotocol/server-everything's trigger-elicitation-request over stdio, its
// elicitation/create form of a dozen fields), driven with the real @ag-ui/client against the
// real byomcp binary: the run ends with AG-UI 1.0's interrupt outcome (reason input_required,
// the server's form as responseSchema) while the MCP call waits; the next run's resume
// answers it, the server gets the answer, and the model answers from the tool's result.
// Every event is checked against @ag-ui/core's schemas, the outcome and the interrupt against
// their own (RunFinishedInterruptOutcomeSchema, InterruptSchema).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { buildResumeArray } from '@ag-ui/client';
import { InterruptSchema, RunFinishedEventSchema, RunFinishedInterruptOutcomeSchema, RunAgentInputSchema } from '@ag-ui/core/schemas';
import { startFakeOpenAI, lastMessage } from '../browser/fake-openai.mjs';
import { suiteSetup, startServer, newAgent, checkEvents, ROOT } from './harness.mjs';

const suite = suiteSetup('byomcp-agui-elicit-');

/** The text of a message's content (string or parts). */
const textOf = (m) => (typeof m?.content === 'string' ? m.content : (m?.content ?? []).map((p) => p.text ?? '').join(''));

const everything = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** Starts byomcp with server-everything over stdio, exposed to the web, and a model that
 * calls its elicitation tool, then reports what the tool said. */
async function setup(name) {
  const config = path.join(suite.tmp, `mcp-${name}.json`);
  await writeFile(config, JSON.stringify({
    mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'], expose: ['web'] } },
  }));
  const model = await startFakeOpenAI((body) => {
    const last = lastMessage(body);
    if (last.role === 'user') return { toolCalls: [{ name: 'everything__trigger-elicitation-request', arguments: {} }] };
    const said = textOf(last);
    const who = /- Name: (.*)/.exec(said);
    return { text: who ? `Thanks, ${who[1]}.` : `The server said: ${said.includes('declined') ? 'declined' : said.includes('cancel') ? 'cancelled' : 'something else'}.` };
  });
  const server = await startServer(suite.built.bin, { model: model.url, args: ['--store', 'memory', '--mcp-config', config] });
  await server.waitLog(/MCP server ready/);
  return { model, server };
}

/** Runs the first run of a new thread: the model calls the tool, the server asks. */
async function ask(server) {
  const { agent, runs, settled } = newAgent(server.url);
  agent.addMessage({ id: randomUUID(), role: 'user', content: 'Fill in my profile.' });
  let finished;
  await agent.runAgent({}, { onRunFinishedEvent: (p) => void (finished = p) });
  await settled();
  return { agent, runs, settled, finished };
}

test('a server asks the visitor during a call: the run ends with the interrupt, the resume answers it, the model answers from the tool', async () => {
  suite.warnings.length = 0;
  const { model, server } = await setup('answered');
  try {
    const { agent, runs, settled, finished } = await ask(server);
    const types = checkEvents(runs[0]);
    assert.deepEqual(types.filter((t, i) => t !== types[i - 1]), ['RUN_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'RUN_FINISHED']);
    const fin = RunFinishedEventSchema.parse(runs[0].at(-1));
    const outcome = RunFinishedInterruptOutcomeSchema.parse(fin.outcome);
    assert.equal(outcome.interrupts.length, 1);
    const interrupt = InterruptSchema.parse(outcome.interrupts[0]);
    const call = runs[0].find((e) => e.type === 'TOOL_CALL_START');
    assert.equal(call.toolCallName, 'everything__trigger-elicitation-request');
    assert.equal(interrupt.toolCallId, call.toolCallId);
    assert.equal(interrupt.reason, 'input_required');
    assert.equal(interrupt.message, 'Please provide inputs for the following fields:');
    assert.match(interrupt.id, /^int_[0-9a-f]{32}$/);
    assert.ok(Date.parse(interrupt.expiresAt) > Date.now(), `expiresAt ${interrupt.expiresAt} is in the past`);
    assert.deepEqual(interrupt.metadata, { server: 'everything', mode: 'form' });
    // The server's own form is the answer's schema.
    assert.equal(interrupt.responseSchema.type, 'object');
    assert.equal(interrupt.responseSchema.properties.email.format, 'email');
    assert.ok(Object.keys(interrupt.responseSchema.properties).length >= 10);
    assert.equal(finished.outcome, 'interrupt');
    assert.deepEqual(agent.pendingInterrupts.map((i) => i.id), [interrupt.id]);
    assert.ok(!runs[0].some((e) => e.type === 'TOOL_CALL_RESULT'), 'the call has a result before the visitor answered');
    const asked = model.requests.length;

    // The client itself refuses a run that leaves the question unanswered.
    await assert.rejects(agent.runAgent({}), /pending interrupt/);

    // An answer the form refuses: a clear error, the question still open.
    const bad = buildResumeArray(agent.pendingInterrupts, { [interrupt.id]: { status: 'resolved', payload: { name: 'Jane Doe', integer: 1000 } } });
    await assert.rejects(agent.runAgent({ resume: bad }), /400/);
    assert.equal(model.requests.length, asked);

    // Run 2: the visitor answers.
    const payload = { name: 'Jane Doe', check: true, email: 'jane@example.com', integer: 7 };
    const resume = buildResumeArray(agent.pendingInterrupts, { [interrupt.id]: { status: 'resolved', payload } });
    const { newMessages } = await agent.runAgent({ resume });
    await settled();
    const run2 = runs.at(-1);
    const types2 = checkEvents(run2);
    assert.equal(types2[0], 'RUN_STARTED');
    assert.equal(types2.at(-1), 'RUN_FINISHED');
    assert.equal(run2.at(-1).outcome, undefined);
    const result = run2.find((e) => e.type === 'TOOL_CALL_RESULT');
    assert.equal(result.toolCallId, call.toolCallId);
    assert.match(result.content, /User provided the requested information/);
    assert.match(result.content, /- Name: Jane Doe/);
    assert.match(result.content, /- Email: jane@example.com/);
    // The model read the tool's result (the server's words), not the visitor's raw answer.
    const read = lastMessage(model.requests.at(-1).body);
    assert.equal(read.role, 'tool');
    assert.match(textOf(read), /- Favorite Integer: 7/);
    assert.equal(newMessages.at(-1).content, 'Thanks, Jane Doe.');
    assert.deepEqual(agent.pendingInterrupts, []);
    assert.deepEqual(agent.messages.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);

    // What the client sent is a RunAgentInput with the resume, as @ag-ui/core defines it.
    assert.deepEqual(RunAgentInputSchema.parse({ threadId: agent.threadId, runId: 'x', messages: [], resume }).resume, resume);

    // Answered once: the same answer again is refused.
    await assert.rejects(agent.runAgent({ resume }), /409/);
    assert.deepEqual(suite.warnings, []);
  } finally {
    await server.close();
    await model.close();
  }
});

test('a cancelled question: the server hears cancel, the model reads the tool\'s answer to it', async () => {
  suite.warnings.length = 0;
  const { model, server } = await setup('cancelled');
  try {
    const { agent, runs, settled } = await ask(server);
    const [interrupt] = agent.pendingInterrupts;
    assert.equal(interrupt.reason, 'input_required');
    const resume = buildResumeArray(agent.pendingInterrupts, { [interrupt.id]: { status: 'cancelled' } });
    await agent.runAgent({ resume });
    await settled();
    checkEvents(runs.at(-1));
    const result = runs.at(-1).find((e) => e.type === 'TOOL_CALL_RESULT');
    assert.match(result.content, /cancel/i);
    assert.equal(agent.messages.at(-1).content, 'The server said: cancelled.');
    assert.deepEqual(suite.warnings, []);
  } finally {
    await server.close();
    await model.close();
  }
});
