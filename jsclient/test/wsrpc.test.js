// Unit tests of the JSON-RPC peer (jsclient/wsrpc.js) over the fake socket.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { ErrorCode, Method } from '../protocol.js';
import { ClosedError, Peer, RpcError } from '../wsrpc.js';
import { FakeSocket, quietLogger, settle } from './fakesocket.js';

function setup() {
  const socket = FakeSocket.opened();
  const logger = quietLogger();
  const peer = new Peer(socket, { logger });
  return { socket, peer, logger };
}

describe('Peer.call', () => {
  test('matches replies to pending calls by id, in any order', async () => {
    const { socket, peer } = setup();
    const a = peer.call('a', { x: 1 });
    const b = peer.call('b');
    const [ra, rb] = socket.drain();
    assert.deepEqual(ra, { jsonrpc: '2.0', id: ra.id, method: 'a', params: { x: 1 } });
    assert.equal('params' in rb, false, 'no params member when params is undefined');
    assert.notEqual(ra.id, rb.id);
    socket.receive({ jsonrpc: '2.0', id: 999, result: 'stray' }); // no such pending call: ignored
    socket.receive({ jsonrpc: '2.0', id: rb.id, result: 'B' });
    socket.receive({ jsonrpc: '2.0', id: ra.id, result: { ok: true } });
    assert.equal(await b, 'B');
    assert.deepEqual(await a, { ok: true });
  });

  test('an error reply rejects with RpcError carrying code and data', async () => {
    const { socket, peer } = setup();
    const p = peer.call('agent/chat', { text: 'hi' });
    const req = await socket.next();
    socket.receive({ jsonrpc: '2.0', id: req.id, error: { code: ErrorCode.TurnInProgress, message: 'busy', data: { turnId: 't1' } } });
    await assert.rejects(p, (err) => {
      assert.ok(err instanceof RpcError);
      assert.equal(err.code, ErrorCode.TurnInProgress);
      assert.equal(err.message, 'busy');
      assert.deepEqual(err.data, { turnId: 't1' });
      return true;
    });
  });

  test('pending calls are rejected at once when the socket closes', async () => {
    const { socket, peer } = setup();
    const p1 = peer.call('one');
    const p2 = peer.call('two');
    socket.drop(1006, 'gone');
    for (const p of [p1, p2]) {
      await assert.rejects(p, (err) => err instanceof ClosedError && err.closeCode === 1006 && /gone/.test(err.message));
    }
    await peer.closed;
    assert.equal(peer.isClosed, true);
    await assert.rejects(peer.call('three'), ClosedError);
    assert.equal(socket.sent.length, 2, 'nothing is sent after close');
  });

  test('timeout sends notifications/cancelled and rejects with TimeoutError', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { socket, peer } = setup();
    const p = peer.call('slow', {}, { timeoutMs: 1000 });
    const req = await socket.next();
    t.mock.timers.tick(999);
    assert.equal(socket.drain().length, 0, 'nothing before the deadline');
    t.mock.timers.tick(1);
    await assert.rejects(p, (err) => err.name === 'TimeoutError');
    const cancel = await socket.next();
    assert.equal(cancel.method, Method.Cancelled);
    assert.equal(cancel.params.requestId, req.id);
    assert.match(cancel.params.reason, /timed out/);
    assert.equal('id' in cancel, false, 'cancellation is a notification');
    socket.receive({ jsonrpc: '2.0', id: req.id, result: 'late' }); // ignored, no throw
  });

  test('abort sends notifications/cancelled with the reason and rejects with it', async () => {
    const { socket, peer } = setup();
    const ac = new AbortController();
    const p = peer.call('agent/chat', { text: 'x' }, { signal: ac.signal });
    const req = await socket.next();
    ac.abort(new Error('user pressed stop'));
    await assert.rejects(p, /user pressed stop/);
    const cancel = await socket.next();
    assert.deepEqual(cancel.params, { requestId: req.id, reason: 'user pressed stop' });
    await assert.rejects(peer.call('x', {}, { signal: ac.signal }), /user pressed stop/, 'an aborted signal rejects at once');
  });

  test('params that cannot be encoded reject and send nothing', async () => {
    const { socket, peer } = setup();
    const cyclic = {};
    cyclic.self = cyclic;
    await assert.rejects(peer.call('x', cyclic), TypeError);
    assert.equal(socket.sent.length, 0);
  });
});

describe('incoming requests', () => {
  test('run concurrently: a slow handler does not hold back a fast one', async () => {
    const { socket, peer } = setup();
    /** @type {(v: string) => void} */
    let release = () => {};
    peer.handle('slow', () => new Promise((resolve) => (release = resolve)));
    peer.handle('fast', () => 'fast-result');
    socket.receive({ jsonrpc: '2.0', id: 1, method: 'slow' });
    socket.receive({ jsonrpc: '2.0', id: 2, method: 'fast' });
    const first = await socket.next();
    assert.deepEqual(first, { jsonrpc: '2.0', id: 2, result: 'fast-result' });
    release('slow-result');
    assert.deepEqual(await socket.next(), { jsonrpc: '2.0', id: 1, result: 'slow-result' });
  });

  test('a handler may call the peer back; the reply is read meanwhile', async () => {
    const { socket, peer } = setup();
    peer.handle('outer', async (params, ctx) => {
      const inner = await ctx.peer.call('inner', params);
      return { inner, id: ctx.id };
    });
    socket.receive({ jsonrpc: '2.0', id: 'abc', method: 'outer', params: { q: 1 } });
    const call = await socket.next();
    assert.equal(call.method, 'inner');
    socket.receive({ jsonrpc: '2.0', id: call.id, result: 42 });
    assert.deepEqual(await socket.next(), { jsonrpc: '2.0', id: 'abc', result: { inner: 42, id: 'abc' } });
  });

  test('notifications/cancelled aborts the handler signal and suppresses the reply', async () => {
    const { socket, peer } = setup();
    /** @type {AbortSignal|undefined} */
    let seen;
    peer.handle('tools/call', (_p, { signal }) => {
      seen = signal;
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    });
    peer.handle('ping', () => undefined);
    socket.receive({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} });
    socket.receive({ jsonrpc: '2.0', method: Method.Cancelled, params: { requestId: 7, reason: 'turn cancelled' } });
    await settle();
    assert.equal(seen?.aborted, true);
    assert.equal(seen?.reason.name, 'AbortError');
    assert.equal(seen?.reason.message, 'turn cancelled');
    socket.receive({ jsonrpc: '2.0', id: 8, method: 'ping' });
    assert.deepEqual(await socket.next(), { jsonrpc: '2.0', id: 8, result: {} }, 'undefined result is sent as {}');
    assert.equal(socket.drain().length, 0, 'no reply to the cancelled request');
  });

  test('a handler that fails because it was cancelled is logged at debug, not as an error', async () => {
    const socket = FakeSocket.opened();
    /** @type {{level: string, args: unknown[]}[]} */
    const logged = [];
    const log = (/** @type {string} */ level) => (/** @type {unknown[]} */ ...args) => void logged.push({ level, args });
    const peer = new Peer(socket, { logger: { debug: log('debug'), warn: log('warn'), error: log('error') } });
    // As ToolHost's tools/call does when Stop aborts a page tool: it rethrows the abort reason.
    peer.handle('tools/call', (_p, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))));
    peer.handle('boom', async () => {
      throw new Error('a real failure');
    });
    socket.receive({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} });
    socket.receive({ jsonrpc: '2.0', method: Method.Cancelled, params: { requestId: 1, reason: 'cancelled by the page' } });
    await settle();
    assert.deepEqual(logged.filter((l) => l.level !== 'debug'), [], 'nothing above debug for a cancelled call');
    assert.ok(logged.some((l) => l.args.some((a) => a instanceof DOMException && a.message === 'cancelled by the page')), 'the cancellation is logged at debug');
    assert.equal(socket.drain().length, 0, 'no reply to the cancelled request');

    socket.receive({ jsonrpc: '2.0', id: 2, method: 'boom' });
    assert.deepEqual(await socket.next(), { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'internal error' } });
    assert.deepEqual(
      logged.filter((l) => l.level === 'error').map((l) => l.args.find((a) => a instanceof Error)?.message),
      ['a real failure'],
      'a real handler failure is still an error',
    );
  });

  test('cancellation matches ids by type: "7" does not cancel 7', async () => {
    const { socket, peer } = setup();
    /** @type {AbortSignal|undefined} */
    let seen;
    peer.handle('work', (_p, { signal }) => {
      seen = signal;
      return new Promise(() => {});
    });
    socket.receive({ jsonrpc: '2.0', id: 7, method: 'work' });
    socket.receive({ jsonrpc: '2.0', method: Method.Cancelled, params: { requestId: '7' } });
    await settle();
    assert.equal(seen?.aborted, false);
  });

  test('closing the socket aborts running handlers', async () => {
    const { socket, peer } = setup();
    /** @type {AbortSignal|undefined} */
    let seen;
    peer.handle('work', (_p, { signal }) => {
      seen = signal;
      return new Promise(() => {});
    });
    socket.receive({ jsonrpc: '2.0', id: 1, method: 'work' });
    socket.drop();
    assert.equal(seen?.aborted, true);
    assert.ok(seen?.reason instanceof ClosedError);
  });

  test('handler errors: RpcError keeps its code, anything else is -32603 without detail', async () => {
    const { socket, peer, logger } = setup();
    peer.handle('bad', () => {
      throw new RpcError(ErrorCode.InvalidParams, 'need x', { field: 'x' });
    });
    peer.handle('boom', async () => {
      throw new Error('secret detail');
    });
    socket.receive({ jsonrpc: '2.0', id: 1, method: 'bad' });
    assert.deepEqual(await socket.next(), { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'need x', data: { field: 'x' } } });
    socket.receive({ jsonrpc: '2.0', id: 2, method: 'boom' });
    assert.deepEqual(await socket.next(), { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'internal error' } });
    assert.ok(logger.lines.some((l) => l.some((x) => x instanceof Error && x.message === 'secret detail')), 'detail is logged');
  });

  test('a result that cannot be encoded is answered -32603', async () => {
    const { socket, peer } = setup();
    peer.handle('cyclic', () => {
      const o = {};
      o.o = o;
      return o;
    });
    socket.receive({ jsonrpc: '2.0', id: 3, method: 'cyclic' });
    assert.deepEqual(await socket.next(), { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'internal error' } });
  });

  test('a duplicate id while the first runs is refused', async () => {
    const { socket, peer } = setup();
    peer.handle('work', () => new Promise(() => {}));
    socket.receive({ jsonrpc: '2.0', id: 5, method: 'work' });
    socket.receive({ jsonrpc: '2.0', id: 5, method: 'work' });
    const reply = await socket.next();
    assert.equal(reply.id, 5);
    assert.equal(reply.error.code, ErrorCode.InvalidRequest);
  });

  test('notifications reach their handler; removing a handler stops it', async () => {
    const { socket, peer } = setup();
    /** @type {unknown[]} */
    const got = [];
    peer.onNotification('agent/event', (p) => got.push(p));
    socket.receive({ jsonrpc: '2.0', method: 'agent/event', params: { seq: 1 } });
    peer.onNotification('agent/event', null);
    socket.receive({ jsonrpc: '2.0', method: 'agent/event', params: { seq: 2 } });
    socket.receive({ jsonrpc: '2.0', method: 'unknown/notification' });
    assert.deepEqual(got, [{ seq: 1 }]);
    assert.equal(socket.sent.length, 0, 'notifications are never answered');
  });
});

describe('malformed input', () => {
  const cases = [
    { name: 'not JSON', frame: '{"jsonrpc":', want: { id: null, code: ErrorCode.ParseError } },
    { name: 'batch', frame: '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', want: { id: null, code: ErrorCode.InvalidRequest } },
    { name: 'not an object', frame: '42', want: { id: null, code: ErrorCode.InvalidRequest } },
    { name: 'missing jsonrpc', frame: '{"id":4,"method":"ping"}', want: { id: 4, code: ErrorCode.InvalidRequest } },
    { name: 'wrong version', frame: '{"jsonrpc":"1.0","id":"s","method":"ping"}', want: { id: 's', code: ErrorCode.InvalidRequest } },
    { name: 'object id', frame: '{"jsonrpc":"2.0","id":{},"method":"ping"}', want: { id: null, code: ErrorCode.InvalidRequest } },
    { name: 'method not a string', frame: '{"jsonrpc":"2.0","id":5,"method":3}', want: { id: 5, code: ErrorCode.InvalidRequest } },
    { name: 'scalar params', frame: '{"jsonrpc":"2.0","id":6,"method":"ping","params":1}', want: { id: 6, code: ErrorCode.InvalidRequest } },
    { name: 'neither request nor response', frame: '{"jsonrpc":"2.0","id":9}', want: { id: 9, code: ErrorCode.InvalidRequest } },
    { name: 'unknown method', frame: '{"jsonrpc":"2.0","id":10,"method":"nope"}', want: { id: 10, code: ErrorCode.MethodNotFound } },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const { socket, peer } = setup();
      peer.handle('ping', () => ({}));
      socket.receive(c.frame);
      const reply = await socket.next();
      assert.equal(reply.jsonrpc, '2.0');
      assert.equal(reply.id, c.want.id);
      assert.equal(reply.error.code, c.want.code);
      assert.equal(typeof reply.error.message, 'string');
      assert.equal(peer.isClosed, false, 'a bad frame does not end the connection');
    });
  }

  test('binary frame is refused with -32600', async () => {
    const { socket } = setup();
    socket.receive(new ArrayBuffer(4));
    const reply = await socket.next();
    assert.equal(reply.error.code, ErrorCode.InvalidRequest);
  });

  test('a malformed error response rejects the call with -32603', async () => {
    const { socket, peer } = setup();
    const p = peer.call('x');
    const req = await socket.next();
    socket.receive({ jsonrpc: '2.0', id: req.id, error: 'nope' });
    await assert.rejects(p, (err) => err instanceof RpcError && err.code === ErrorCode.InternalError);
  });
});

describe('Peer.close', () => {
  test('is idempotent, closes the socket with the code and resolves closed', async () => {
    const { socket, peer } = setup();
    const p = peer.call('x');
    peer.close(4000, 'bye');
    peer.close(1000, 'again');
    await assert.rejects(p, (err) => err instanceof ClosedError && /bye/.test(err.message));
    await peer.closed;
    assert.deepEqual(socket.closeCalls, [{ code: 4000, reason: 'bye' }]);
    assert.equal(peer.notify('x'), false, 'notify after close reports failure');
  });

  test('a socket already closed gives a closed peer', async () => {
    const socket = new FakeSocket();
    socket.readyState = FakeSocket.CLOSED;
    const peer = new Peer(socket, { logger: quietLogger() });
    await peer.closed;
    await assert.rejects(peer.call('x'), ClosedError);
  });
});
