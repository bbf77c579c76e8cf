// agent/elicit (jsclient/tools.js): a server-side MCP server asks the visitor for input during
// a call of its tool (MCP elicitation, form and URL modes); the page shows requestUserInput's
// form through the input handler and answers as MCP's ElicitResult (issue 38, point 3).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ErrorCode, Method } from '../protocol.js';
import { loadCard, ToolHost } from '../tools.js';
import { Peer } from '../wsrpc.js';
import { FakeSocket, quietLogger } from './fakesocket.js';

let nextId = 7000;

// The form's module is loaded once before (the fake socket waits event-loop turns, not a file read).
await loadCard();

function setup() {
  const socket = FakeSocket.opened();
  const logger = quietLogger();
  const host = new ToolHost({ version: '1', logger });
  host.attach(new Peer(socket, { logger }));
  /** @param {unknown} params */
  const elicit = async (params) => {
    const id = nextId++;
    socket.receive({ jsonrpc: '2.0', id, method: Method.AgentElicit, params });
    return socket.next((m) => m.id === id && !('method' in m));
  };
  return { socket, host, elicit };
}

const schema = { type: 'object', required: ['name'], properties: { name: { type: 'string', title: 'Name', minLength: 1 }, seats: { type: 'integer', minimum: 1 } } };
const form = { server: 'asker', message: 'Who is the booking for?', mode: 'form', requestedSchema: schema, _meta: { progressToken: 'byomcp-3' } };

test('agent/elicit shows the form through the input handler and answers accept, decline or cancel, with progress while it asks', async () => {
  for (const answer of [{ action: 'accept', content: { name: 'Jane Doe', seats: 2 } }, { action: 'decline' }, { action: 'cancel' }]) {
    const { socket, host, elicit } = setup();
    /** @type {any[]} */
    const asked = [];
    host.setInputHandler(async (req) => (asked.push(req), answer));
    const reply = await elicit(form);
    assert.deepEqual(reply.result, answer);
    assert.equal(asked.length, 1);
    assert.equal(asked[0].mode, 'form');
    assert.equal(asked[0].message, 'Who is the booking for?');
    assert.deepEqual(asked[0].requestedSchema, schema);
    assert.equal(asked[0].name, 'asker');
    const progress = socket.messages().filter((m) => m.method === Method.Progress).map((m) => m.params);
    assert.equal(progress[0]?.progressToken, 'byomcp-3');
  }
});

test('agent/elicit in URL mode: the link is shown, accept means the visitor went there', async () => {
  const { host, elicit } = setup();
  /** @type {any[]} */
  const asked = [];
  host.setInputHandler(async (req) => (asked.push(req), { action: 'accept' }));
  const reply = await elicit({ server: 'shop', message: 'Sign in', mode: 'url', url: 'https://shop.example/login?x=1', elicitationId: 'e1' });
  assert.deepEqual(reply.result, { action: 'accept' });
  assert.equal(asked[0].mode, 'url');
  assert.equal(asked[0].url, 'https://shop.example/login?x=1');
});

test('agent/elicit without an input handler: MethodNotFound, so the agent tells the server cancel', async () => {
  const { elicit } = setup();
  const reply = await elicit(form);
  assert.equal(reply.error?.code, ErrorCode.MethodNotFound);
});

test('agent/elicit with a request the form cannot show: InvalidParams, nothing shown', async () => {
  const { host, elicit } = setup();
  let shown = 0;
  host.setInputHandler(() => (shown++, { action: 'cancel' }));
  for (const bad of [
    {},
    { server: '', message: 'x', mode: 'form' },
    { server: 's', message: 'x', mode: 'interactive' },
    { server: 's', message: '', mode: 'form', requestedSchema: schema },
    { server: 's', message: 'x', mode: 'url', url: 'javascript:alert(1)' },
    { server: 's', message: 'x', mode: 'form', requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } },
  ]) {
    const reply = await elicit(bad);
    assert.equal(reply.error?.code, ErrorCode.InvalidParams, JSON.stringify(bad));
  }
  assert.equal(shown, 0);
});

test("agent/elicit: a handler's answer that does not fit the schema is not sent as accepted", async () => {
  const { host, elicit } = setup();
  host.setInputHandler(() => ({ action: 'accept', content: { seats: 0 } }));
  const reply = await elicit(form);
  assert.ok(reply.error, `got ${JSON.stringify(reply)}, want an error (the agent tells the server cancel)`);
});

test('agent/elicit: the agent cancelling the request withdraws the form', async () => {
  const { socket, host } = setup();
  /** @type {AbortSignal|undefined} */
  let seen;
  host.setInputHandler((req) => {
    seen = req.signal;
    return new Promise(() => {});
  });
  const id = nextId++;
  socket.receive({ jsonrpc: '2.0', id, method: Method.AgentElicit, params: form });
  for (let i = 0; i < 200 && !seen; i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(seen, 'the form was shown');
  socket.receive({ jsonrpc: '2.0', method: Method.Cancelled, params: { requestId: id, reason: 'timed out' } });
  for (let i = 0; i < 200 && !seen.aborted; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(seen.aborted, true);
});
