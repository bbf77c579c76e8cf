// A server-side tool that needs the visitor's confirmation (destructiveHint: true), driven
// with the real @ag-ui/client against the real byomcp binary: the run ends with AG-UI 1.0's
// interrupt outcome, the client answers it in the next run's resume, and the tool runs once.
// Every event is checked against @ag-ui/core's schemas, the interrupt outcome and each
// interrupt against their own (RunFinishedInterruptOutcomeSchema, InterruptSchema).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { buildResumeArray } from '@ag-ui/client';
import { InterruptSchema, RunFinishedEventSchema, RunFinishedInterruptOutcomeSchema, RunAgentInputSchema } from '@ag-ui/core/schemas';
import { startFakeOpenAI, lastMessage } from '../browser/fake-openai.mjs';
import { suiteSetup, startServer, newAgent, checkEvents, ROOT } from './harness.mjs';

const suite = suiteSetup('byomcp-agui-confirm-');

/** The text of a message's content (string or parts). */
const textOf = (m) => (typeof m?.content === 'string' ? m.content : (m?.content ?? []).map((p) => p.text ?? '').join(''));

/** How many times the destructive tool ran (lines of its log). */
async function runsOf(log) {
  try {
    return (await readFile(log, 'utf8')).split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

test('a destructive server tool: the run ends with the interrupt outcome, the resume runs the tool once, the model answers', async () => {
  suite.warnings.length = 0;
  const ranLog = path.join(suite.tmp, 'wiped.log');
  const config = path.join(suite.tmp, 'mcp.json');
  await writeFile(config, JSON.stringify({
    mcpServers: { admin: { command: process.execPath, args: [path.join(ROOT, 'e2e/browser/destructive-mcp.mjs'), ranLog], expose: ['web'] } },
  }));
  const model = await startFakeOpenAI((body) => {
    const last = lastMessage(body);
    if (last.role === 'user') return { toolCalls: [{ name: 'admin__wipe', arguments: {} }] };
    return { text: `The tool said: ${textOf(last).includes('all orders deleted') ? 'deleted' : 'not run'}.` };
  });
  const server = await startServer(suite.built.bin, { model: model.url, args: ['--store', 'memory', '--mcp-config', config] });
  try {
    await server.waitLog(/MCP server ready/);
    const { agent, runs, settled } = newAgent(server.url);
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'Delete every order.' });

    // Run 1: the call is shown, not run; the run ends asking for the confirmation.
    let finished;
    await agent.runAgent({}, { onRunFinishedEvent: (p) => void (finished = p) });
    await settled();
    const types = checkEvents(runs[0]);
    assert.deepEqual(types.filter((t, i) => t !== types[i - 1]), ['RUN_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'RUN_FINISHED']);
    const fin = runs[0].at(-1);
    RunFinishedEventSchema.parse(fin);
    const outcome = RunFinishedInterruptOutcomeSchema.parse(fin.outcome);
    assert.equal(outcome.interrupts.length, 1);
    const interrupt = InterruptSchema.parse(outcome.interrupts[0]);
    const call = runs[0].find((e) => e.type === 'TOOL_CALL_START');
    assert.equal(call.toolCallName, 'admin__wipe');
    assert.equal(interrupt.toolCallId, call.toolCallId);
    assert.equal(interrupt.reason, 'confirmation');
    assert.match(interrupt.id, /^int_[0-9a-f]{32}$/);
    assert.ok(Date.parse(interrupt.expiresAt) > Date.now(), `expiresAt ${interrupt.expiresAt} is in the past`);
    assert.deepEqual(interrupt.responseSchema.required, ['approved']);
    assert.equal(finished.outcome, 'interrupt');
    assert.deepEqual(agent.pendingInterrupts.map((i) => i.id), [interrupt.id]);
    assert.equal(await runsOf(ranLog), 0, 'the tool ran before the visitor confirmed it');
    // The client's view: the call is pending (no result yet).
    assert.ok(agent.messages.some((m) => m.toolCalls?.some((c) => c.id === call.toolCallId)));
    assert.ok(!agent.messages.some((m) => m.role === 'tool'));

    // The client itself refuses a run that leaves the interrupt unanswered.
    await assert.rejects(agent.runAgent({}), /pending interrupt/);
    assert.equal(runs.length, 1, 'a run was sent with the interrupt unanswered');

    // Run 2: the visitor approves.
    const resume = buildResumeArray(agent.pendingInterrupts, { [interrupt.id]: { status: 'resolved', payload: { approved: true } } });
    const { newMessages } = await agent.runAgent({ resume });
    await settled();
    const types2 = checkEvents(runs[1]);
    assert.equal(types2[0], 'RUN_STARTED');
    assert.equal(types2.at(-1), 'RUN_FINISHED');
    assert.ok(!types2.includes('MESSAGES_SNAPSHOT'), `events ${types2}: the client was in step, no snapshot`);
    const result = runs[1].find((e) => e.type === 'TOOL_CALL_RESULT');
    assert.equal(result.toolCallId, call.toolCallId);
    assert.match(result.content, /all orders deleted/);
    assert.equal(runs[1].at(-1).outcome, undefined);
    assert.equal(await runsOf(ranLog), 1);
    assert.deepEqual(agent.pendingInterrupts, []);
    assert.equal(newMessages.at(-1).content, 'The tool said: deleted.');
    // What the client sent is a RunAgentInput with the resume, as @ag-ui/core defines it.
    assert.deepEqual(RunAgentInputSchema.parse({ threadId: agent.threadId, runId: 'x', messages: [], resume }).resume, resume);
    // The thread's order: the call, its result, the answer.
    const roles = agent.messages.map((m) => m.role);
    assert.deepEqual(roles, ['user', 'assistant', 'tool', 'assistant']);

    // The same answer again: refused, the tool not run twice.
    await assert.rejects(agent.runAgent({ resume }), /409/);
    assert.equal(await runsOf(ranLog), 1);
    assert.deepEqual(suite.warnings, []);
  } finally {
    await server.close();
    await model.close();
  }
});

test('a declined confirmation: the model reads the visitor\'s reason, the tool never runs', async () => {
  suite.warnings.length = 0;
  const ranLog = path.join(suite.tmp, 'declined.log');
  const config = path.join(suite.tmp, 'mcp-declined.json');
  await writeFile(config, JSON.stringify({
    mcpServers: { admin: { command: process.execPath, args: [path.join(ROOT, 'e2e/browser/destructive-mcp.mjs'), ranLog], expose: ['web'] } },
  }));
  const model = await startFakeOpenAI((body) => {
    const last = lastMessage(body);
    if (last.role === 'user') return { toolCalls: [{ name: 'admin__wipe', arguments: {} }] };
    return { text: 'I did not delete them.' };
  });
  const server = await startServer(suite.built.bin, { model: model.url, args: ['--store', 'memory', '--mcp-config', config] });
  try {
    await server.waitLog(/MCP server ready/);
    const { agent, runs, settled } = newAgent(server.url);
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'Delete every order.' });
    await agent.runAgent({});
    const [interrupt] = agent.pendingInterrupts;
    const resume = buildResumeArray(agent.pendingInterrupts, { [interrupt.id]: { status: 'resolved', payload: { approved: false, reason: 'we need them for the audit' } } });
    await agent.runAgent({ resume });
    await settled();
    checkEvents(runs[1]);
    const read = lastMessage(model.requests.at(-1).body);
    assert.equal(read.role, 'tool');
    assert.match(textOf(read), /declined this call, saying: "we need them for the audit"/);
    assert.match(runs[1].find((e) => e.type === 'TOOL_CALL_RESULT').content, /declined/);
    assert.equal(await runsOf(ranLog), 0);
    assert.equal(agent.messages.at(-1).content, 'I did not delete them.');
    assert.deepEqual(suite.warnings, []);
  } finally {
    await server.close();
    await model.close();
  }
});
