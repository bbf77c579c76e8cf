// agent/confirm (jsclient/tools.js): the agent asks the page to have the visitor confirm a
// call of a server-side tool before it runs it (issue 36, item 5).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ErrorCode, Method } from '../protocol.js';
import { ToolHost } from '../tools.js';
import { Peer } from '../wsrpc.js';
import { FakeSocket, quietLogger } from './fakesocket.js';

let nextId = 5000;

function setup() {
  const socket = FakeSocket.opened();
  const logger = quietLogger();
  const host = new ToolHost({ version: '1', logger });
  host.attach(new Peer(socket, { logger }));
  /** @param {unknown} params */
  const confirm = async (params) => {
    const id = nextId++;
    socket.receive({ jsonrpc: '2.0', id, method: Method.AgentConfirm, params });
    return socket.next((m) => m.id === id && !('method' in m));
  };
  return { socket, host, confirm };
}

const params = { name: 'admin__wipe', arguments: { scope: 'all' }, _meta: { progressToken: 'byomcp-7', 'byomcp/confirm': true } };

test('agent/confirm asks the confirm handler: allowed and declined, with progress while it asks', async () => {
  for (const answer of [true, false]) {
    const { socket, host, confirm } = setup();
    /** @type {any[]} */
    const asked = [];
    host.setConfirmHandler(async (req) => (asked.push(req), answer));
    const reply = await confirm(params);
    assert.deepEqual(reply.result, { confirmed: answer });
    assert.equal(asked.length, 1);
    assert.equal(asked[0].name, 'admin__wipe');
    assert.deepEqual(asked[0].args, { scope: 'all' });
    assert.deepEqual(asked[0].annotations, { destructiveHint: true });
    const progress = socket.messages().filter((m) => m.method === Method.Progress).map((m) => m.params);
    assert.deepEqual(progress[0], { progressToken: 'byomcp-7', progress: 1, message: 'waiting for the user to confirm' });
  }
});

test('agent/confirm without a confirm handler: MethodNotFound, so the agent does not run the tool', async () => {
  const { confirm } = setup();
  const reply = await confirm(params);
  assert.equal(reply.error?.code, ErrorCode.MethodNotFound);
});

test('agent/confirm with bad params: InvalidParams', async () => {
  const { host, confirm } = setup();
  host.setConfirmHandler(() => true);
  for (const bad of [{}, { name: '' }, { name: 'x', arguments: [1] }]) {
    const reply = await confirm(bad);
    assert.equal(reply.error?.code, ErrorCode.InvalidParams, JSON.stringify(bad));
  }
});
