// Unit tests of the agent connection (jsclient/agent.js): sessions, resume and dedupe, reconnect
// with full-jitter backoff on fake timers, tool re-registration, chat, abort and cancel.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { AgentClient } from '../agent.js';
import { CloseCode, ErrorCode, EventType, Method } from '../protocol.js';
import { ToolHost } from '../tools.js';
import { ClosedError } from '../wsrpc.js';
import { FakeSocket, quietLogger, settle } from './fakesocket.js';

const URL = 'ws://agent.test/v1/ws';

/**
 * Runs fn with the page's window events (globalThis.addEventListener) on a new EventTarget,
 * which fn gets to dispatch on; the global is restored after.
 * @param {(win: EventTarget) => Promise<void>} fn
 */
async function withWindow(fn) {
  const had = globalThis.addEventListener;
  const win = new EventTarget();
  globalThis.addEventListener = win.addEventListener.bind(win);
  try {
    await fn(win);
  } finally {
    if (had) globalThis.addEventListener = had;
    else delete globalThis.addEventListener;
  }
}

const PAGE = { url: 'http://shop.test/cars', title: 'Cars' };

/** @param {Record<string, string>} [initial] */
function memoryStorage(initial = {}) {
  const m = new Map(Object.entries(initial));
  return {
    m,
    getItem: (/** @type {string} */ k) => m.get(k) ?? null,
    setItem: (/** @type {string} */ k, /** @type {string} */ v) => void m.set(k, v),
    removeItem: (/** @type {string} */ k) => void m.delete(k),
  };
}

/** The agent's GET /v1/origin-check answer for an allowed origin (agentsvc.OriginCheck). */
const ALLOWED = { allowed: true, origin: 'http://shop.test', message: "This site's origin is allowed to connect to the agent." };

/**
 * @param {{stored?: {sessionId: string, lastSeq: number}, random?: () => number, page?: () => {url: string, title: string}, fetchJSON?: (url: string) => Promise<any>,
 *   logger?: ReturnType<typeof quietLogger>}} [opts]
 *   fetchJSON: the origin check (default: ALLOWED)
 */
function setup({ stored, random = () => 1, page = () => PAGE, fetchJSON = async () => ALLOWED, logger = quietLogger() } = {}) {
  FakeSocket.instances = [];
  const storage = memoryStorage(stored ? { byomcp: JSON.stringify(stored) } : {});
  const host = new ToolHost({ logger: quietLogger() });
  host.registerTool({ name: 'filter_cars', description: 'filter the list', execute: () => 'ok' });
  const client = new AgentClient({
    url: URL,
    host,
    WebSocketImpl: FakeSocket,
    storage,
    page,
    random,
    logger,
    fetchJSON,
  });
  /** @type {any[]} */
  const states = [];
  /** @type {any[]} */
  const sessions = [];
  /** @type {any[]} */
  const events = [];
  /** @type {any[]} */
  const errors = [];
  client.addEventListener('state', (e) => states.push(/** @type {CustomEvent} */ (e).detail));
  client.addEventListener('session', (e) => sessions.push(/** @type {CustomEvent} */ (e).detail));
  client.addEventListener('agent-event', (e) => events.push(/** @type {CustomEvent} */ (e).detail));
  client.addEventListener('error', (e) => errors.push(/** @type {CustomEvent} */ (e).detail));
  const socket = () => FakeSocket.instances[FakeSocket.instances.length - 1];
  /**
   * Opens the newest socket and answers its agent/session; returns the request's params.
   * @param {{sessionId?: string, resumed?: boolean, messages?: unknown[], seq?: number}} [result]
   */
  const accept = async (result = {}) => {
    const s = socket();
    s.open();
    const req = await s.nextRequest(Method.AgentSession);
    s.receive({ jsonrpc: '2.0', id: req.id, result: { sessionId: 'sess-1', resumed: false, messages: [], seq: 0, ...result } });
    await settle();
    return req.params;
  };
  /** @param {Record<string, unknown>} params */
  const event = (params) => socket().receive({ jsonrpc: '2.0', method: Method.AgentEvent, params: { sessionId: 'sess-1', ...params } });
  return { client, host, storage, states, sessions, events, errors, socket, accept, event };
}

describe('sessions', () => {
  test('a fresh page creates a session and stores its id', async () => {
    const { client, storage, states, sessions, socket, accept } = setup();
    assert.equal(client.state, 'idle');
    client.start();
    assert.equal(client.state, 'connecting');
    assert.equal(socket().url, URL);
    assert.deepEqual(socket().protocols, ['mcp']);
    const params = await accept({ sessionId: 'sess-1', messages: [{ role: 'assistant', text: 'hello' }] });
    assert.deepEqual(params, { page: PAGE }, 'no sessionId or lastSeq without a stored session');
    assert.equal(client.state, 'open');
    assert.equal(client.sessionId, 'sess-1');
    assert.deepEqual(JSON.parse(storage.m.get('byomcp') ?? ''), { sessionId: 'sess-1', lastSeq: 0 });
    assert.deepEqual(sessions, [{ sessionId: 'sess-1', resumed: false, messages: [{ role: 'assistant', text: 'hello' }], seq: 0, running: null }]);
    assert.deepEqual(
      states.map((s) => s.state),
      ['connecting', 'open'],
    );
    client.stop();
  });

  test("a page's first session resumes the stored one without a replay: the result has the running turn", async () => {
    const { client, sessions, events, event, accept } = setup({ stored: { sessionId: 'sess-1', lastSeq: 7 } });
    assert.equal(client.sessionId, 'sess-1');
    assert.equal(client.lastSeq, 7);
    client.start();
    const running = {
      turnId: 't2',
      clientTurnId: 'c2',
      events: [
        { seq: 5, type: EventType.TurnStart, text: 'configure it', clientTurnId: 'c2' },
        { seq: 9, type: EventType.TextDelta, delta: 'Opening the configurator' },
        null,
        { seq: 9, noType: true },
      ],
    };
    const params = await accept({ resumed: true, seq: 9, running });
    assert.deepEqual(params, { sessionId: 'sess-1', page: PAGE }, 'no lastSeq: the result is the state up to its seq');
    assert.equal(sessions[0].resumed, true);
    assert.deepEqual(sessions[0].running, { turnId: 't2', clientTurnId: 'c2', events: running.events.slice(0, 2) }, 'malformed events dropped');
    assert.equal(client.lastSeq, 9);
    assert.equal(client.turnId, 't2');
    assert.equal(client.busy, true);
    event({ seq: 9, type: EventType.TextDelta, turnId: 't2', delta: 'again' });
    event({ seq: 10, type: EventType.TextDelta, turnId: 't2', delta: '.' });
    assert.deepEqual(events.map((e) => e.seq), [10], 'events up to the snapshot seq are not delivered again');
    client.stop();
  });

  test('a malformed running turn is ignored', async () => {
    for (const running of [null, 'x', { events: [] }, { turnId: '', events: [] }, { turnId: 7 }]) {
      const { client, sessions, accept } = setup();
      client.start();
      await accept({ running });
      assert.equal(sessions[0].running, null, JSON.stringify(running));
      assert.equal(client.busy, false);
      client.stop();
    }
  });

  for (const code of [ErrorCode.SessionNotFound]) {
    test(`error ${code} on resume: the stored id is dropped and a fresh session opened`, async () => {
      const { client, storage, sessions, socket } = setup({ stored: { sessionId: 'old', lastSeq: 5 } });
      client.start();
      const s = socket();
      s.open();
      const first = await s.nextRequest(Method.AgentSession);
      assert.equal(first.params.sessionId, 'old');
      s.receive({ jsonrpc: '2.0', id: first.id, error: { code, message: 'no such session' } });
      const second = await s.nextRequest(Method.AgentSession);
      assert.deepEqual(second.params, { page: PAGE });
      s.receive({ jsonrpc: '2.0', id: second.id, result: { sessionId: 'new', resumed: false, messages: [], seq: 0 } });
      await settle();
      assert.equal(client.sessionId, 'new');
      assert.equal(client.lastSeq, 0);
      assert.equal(client.state, 'open');
      assert.deepEqual(JSON.parse(storage.m.get('byomcp') ?? ''), { sessionId: 'new', lastSeq: 0 });
      assert.equal(sessions.length, 1);
      client.stop();
    });
  }

  test('another session error is reported and the socket is closed and retried', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { client, errors, socket } = setup();
    client.start();
    const s = socket();
    s.open();
    const req = await s.nextRequest(Method.AgentSession);
    s.receive({ jsonrpc: '2.0', id: req.id, error: { code: ErrorCode.RateLimited, message: 'slow down' } });
    await settle();
    assert.deepEqual(errors, [{ message: 'agent/session failed: slow down', code: ErrorCode.RateLimited }]);
    assert.equal(s.readyState, FakeSocket.CLOSED);
    assert.equal(client.state, 'reconnecting');
    t.mock.timers.tick(500);
    assert.equal(FakeSocket.instances.length, 2);
    client.stop();
  });
});

describe('agent/event', () => {
  test('dedupe by seq, lastSeq persisted, events without seq pass through', async () => {
    const { client, storage, events, event, accept } = setup({ stored: { sessionId: 'sess-1', lastSeq: 3 } });
    client.start();
    await accept({ resumed: true, seq: 7 });
    event({ seq: 6, type: EventType.TextDelta, turnId: 't', delta: 'old' });
    event({ seq: 8, type: EventType.TextDelta, turnId: 't', delta: 'a' });
    event({ seq: 9, type: EventType.TextDelta, turnId: 't', delta: 'b' });
    event({ seq: 9, type: EventType.TextDelta, turnId: 't', delta: 'b' });
    event({ seq: 8, type: EventType.TextDelta, turnId: 't', delta: 'a' });
    event({ type: EventType.ToolRejected, name: 'bad tool', reason: 'invalid schema', sessionId: undefined });
    event({ seq: 10, type: 'some_future_type' });
    event({ seq: 11, type: EventType.TextDelta, sessionId: 'someone-else' });
    assert.deepEqual(
      events.map((e) => e.seq ?? e.type),
      [8, 9, EventType.ToolRejected, 10],
    );
    assert.equal(client.lastSeq, 10);
    assert.deepEqual(JSON.parse(storage.m.get('byomcp') ?? ''), { sessionId: 'sess-1', lastSeq: 10 });
    client.stop();
  });

  test('busy and turnId follow the turn events', async () => {
    const { client, event, accept } = setup();
    client.start();
    await accept();
    assert.equal(client.busy, false);
    event({ seq: 1, type: EventType.TurnStart, turnId: 't1' });
    assert.equal(client.busy, true);
    assert.equal(client.turnId, 't1');
    event({ seq: 2, type: EventType.TurnEnd, turnId: 't1', stopReason: 'end', text: 'done' });
    assert.equal(client.busy, false);
    assert.equal(client.turnId, null);
    client.stop();
  });
});

describe('reconnect', () => {
  test('full-jitter backoff: delay = random × min(20 s, 0.5 s × 2^(attempt-1))', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    for (const r of [1, 0.5, 0.999]) {
      const { client, states } = setup({ random: () => r });
      client.start();
      const caps = [500, 1000, 2000, 4000, 8000, 16000, 20000, 20000];
      for (let i = 0; i < caps.length; i++) {
        const sockets = FakeSocket.instances.length;
        FakeSocket.instances[sockets - 1].drop(1006);
        await settle(); // the origin check (failed before it opened)
        const last = states[states.length - 1];
        const want = Math.floor(r * caps[i]);
        assert.deepEqual(last, { state: 'reconnecting', attempt: i + 1, delayMs: want }, `r=${r} attempt ${i + 1}`);
        if (want > 0) {
          t.mock.timers.tick(want - 1);
          assert.equal(FakeSocket.instances.length, sockets, 'no new socket before the delay');
        }
        t.mock.timers.tick(1);
        assert.equal(FakeSocket.instances.length, sockets + 1, 'a new socket after the delay');
      }
      client.stop();
    }
  });

  test('a socket that fails before it opens is retried only once the origin check has answered; a refused origin stops the client for good', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    await withWindow(async (win) => {
      /** @type {((v: any) => void)[]} */
      const answers = [];
      /** @type {string[]} */
      const asked = [];
      const logger = quietLogger();
      const { client, states, socket } = setup({
        random: () => 0, // the shortest backoff: 0 ms
        logger,
        fetchJSON: (url) => {
          asked.push(url);
          return new Promise((resolve) => answers.push(resolve));
        },
      });
      /** @type {any[]} */
      const refused = [];
      client.addEventListener('refused', (e) => refused.push(/** @type {CustomEvent} */ (e).detail));
      client.start();
      // Sent before the refusal is known: it waits (its rejection is caught now, read below).
      const queued = client.chat('hello').then(() => null, (err) => err);
      socket().drop(1006); // how a refused upgrade (403) looks to the page
      await settle();
      assert.deepEqual(asked, ['http://agent.test/v1/origin-check']);
      t.mock.timers.tick(60_000);
      assert.equal(FakeSocket.instances.length, 1, 'no retry while the check is unanswered');
      assert.equal(states[states.length - 1].state, 'connecting');
      // The agent's answer for an origin it does not allow (agentsvc.OriginCheckHandler).
      const no = { allowed: false, origin: 'http://shop.test', message: "This site's origin is not allowed by the agent: add it with --allowed-origins" };
      answers[0](no);
      await settle();
      assert.deepEqual(refused, [{ origin: no.origin, message: no.message }]);
      assert.equal(client.state, 'refused');
      assert.deepEqual(states.map((s) => s.state), ['connecting', 'refused'], 'never "reconnecting"');
      const err = await queued;
      assert.ok(err instanceof ClosedError && /does not allow this page's origin/.test(err.message), `queued chat: got ${err}`);
      await assert.rejects(client.chat('again'), (err) => err instanceof ClosedError && /does not allow this page's origin/.test(err.message));
      // The developer is told how to allow it, with the agent's own words.
      const said = logger.lines.map((l) => l.join(' ')).join('\n');
      assert.match(said, /origin http:\/\/shop\.test is not allowed by the agent/);
      assert.match(said, /--allowed-origins/);
      assert.match(said, /sites\.json/);
      assert.ok(said.includes(no.message), said);
      // Nothing brings it back by itself: not time, not the network or the tab coming back.
      t.mock.timers.tick(3_600_000);
      win.dispatchEvent(new Event('online'));
      win.dispatchEvent(new Event('visibilitychange'));
      const show = new Event('pageshow');
      Object.defineProperty(show, 'persisted', { value: true });
      win.dispatchEvent(show);
      await settle();
      t.mock.timers.tick(3_600_000);
      assert.equal(FakeSocket.instances.length, 1, 'one socket in all');
      assert.equal(asked.length, 1, 'one origin check in all');
      assert.equal(client.state, 'refused');
      // start() (a reload does the same, with a new client) tries again: fixed, it connects.
      client.start();
      assert.equal(FakeSocket.instances.length, 2);
      assert.equal(client.state, 'connecting');
      client.stop();
    });
  });

  test('the network back while a try is bound to fail (its origin check under way): the next try is at once, not at the end of the backoff', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    await withWindow(async (win) => {
      /** @type {((v: any) => void)[]} */
      const answers = [];
      const { client, states, accept, socket } = setup({ random: () => 1, fetchJSON: () => new Promise((resolve) => answers.push(resolve)) });
      client.start();
      for (let i = 0; i < 6; i++) { // the agent is down for a while: the delay grows
        socket().drop(1006);
        await settle();
        answers[answers.length - 1](ALLOWED);
        await settle();
        t.mock.timers.tick(states[states.length - 1].delayMs);
      }
      socket().drop(1006); // a try fails as the agent comes back; its origin check runs
      await settle();
      win.dispatchEvent(new Event('online')); // no second socket beside the one trying
      assert.equal(FakeSocket.instances.length, 7);
      answers[answers.length - 1](ALLOWED);
      await settle();
      assert.deepEqual(states[states.length - 1], { state: 'reconnecting', attempt: 7, delayMs: 0 });
      t.mock.timers.tick(0);
      assert.equal(FakeSocket.instances.length, 8, 'tried again at once');
      await accept({ sessionId: 'sess-1' });
      assert.equal(client.state, 'open');
      socket().drop(1006); // later failures wait as before: the "now" was used once
      await settle();
      assert.deepEqual(states[states.length - 1], { state: 'reconnecting', attempt: 1, delayMs: 500 });
      client.stop();
    });
  });

  test('a message sent while the agent cannot be reached tries now, then every few seconds, not at the end of a long backoff', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { client, states, accept, socket } = setup({ random: () => 1 });
    client.start();
    for (let i = 0; i < 6; i++) { // the agent is down: the delay grows to 16 s
      socket().drop(1006);
      await settle();
      t.mock.timers.tick(states[states.length - 1].delayMs);
    }
    socket().drop(1006);
    await settle();
    assert.deepEqual(states[states.length - 1], { state: 'reconnecting', attempt: 7, delayMs: 20000 });
    const sockets = FakeSocket.instances.length;
    const chat = client.chat('are you there');
    assert.equal(FakeSocket.instances.length, sockets + 1, 'the visitor\'s message tries at once');
    socket().drop(1006); // still down
    await settle();
    assert.deepEqual(states[states.length - 1], { state: 'reconnecting', attempt: 8, delayMs: 4000 }, 'a waiting message keeps the retries 4 s apart at most');
    t.mock.timers.tick(4000);
    assert.equal(FakeSocket.instances.length, sockets + 2);
    await accept();
    const req = await socket().nextRequest(Method.AgentChat);
    assert.equal(req.params.text, 'are you there');
    client.stop();
    await chat.catch(() => {});
  });

  test('an origin check that fails (the agent is down) does not hold the retry back', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { client, states, socket } = setup({ random: () => 0, fetchJSON: () => Promise.reject(new Error('network error')) });
    client.start();
    socket().drop(1006);
    await settle();
    assert.deepEqual(states[states.length - 1], { state: 'reconnecting', attempt: 1, delayMs: 0 });
    t.mock.timers.tick(0);
    assert.equal(FakeSocket.instances.length, 2);
    client.stop();
  });

  test('an origin check answered without an origin (the page is the agent\'s own origin: the browser sent none) is no refusal: the client retries', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    // agentsvc.OriginCheckHandler's answer to a request without an Origin header
    const none = { allowed: false, origin: '', message: 'The request has no Origin: open the check from the page\'s script (fetch) so the browser sends it.' };
    const { client, states, socket } = setup({ random: () => 0, fetchJSON: async () => none });
    /** @type {any[]} */
    const refused = [];
    client.addEventListener('refused', (e) => refused.push(/** @type {CustomEvent} */ (e).detail));
    client.start();
    socket().drop(1006); // a try that fails before it opens, as when the network blinks
    await settle();
    assert.deepEqual(refused, []);
    assert.deepEqual(states[states.length - 1], { state: 'reconnecting', attempt: 1, delayMs: 0 });
    t.mock.timers.tick(0);
    assert.equal(FakeSocket.instances.length, 2, 'tried again');
    client.stop();
  });

  test('stop while the origin check runs: no reconnect after it answers', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    /** @type {((v: any) => void)[]} */
    const answers = [];
    const { client, states, socket } = setup({ fetchJSON: () => new Promise((resolve) => answers.push(resolve)) });
    client.start();
    socket().drop(1006);
    await settle();
    client.stop();
    answers[0]({ allowed: false, origin: 'http://shop.test', message: '' });
    await settle();
    t.mock.timers.tick(60_000);
    assert.equal(FakeSocket.instances.length, 1);
    assert.equal(states[states.length - 1].state, 'closed');
  });

  test('a good session resets the backoff', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { client, states, socket, accept } = setup();
    client.start();
    socket().drop();
    await settle();
    t.mock.timers.tick(500);
    socket().drop();
    await settle();
    assert.equal(states[states.length - 1].attempt, 2);
    t.mock.timers.tick(1000);
    await accept();
    assert.equal(client.state, 'open');
    socket().drop();
    assert.deepEqual(states[states.length - 1], { state: 'reconnecting', attempt: 1, delayMs: 500 });
    client.stop();
  });

  test('after a reconnect the session resumes from lastSeq and the new peer gets the tools', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { client, states, event, socket, accept } = setup();
    client.start();
    await accept();
    event({ seq: 1, type: EventType.TextDelta, turnId: 't', delta: 'x' });
    const first = socket();
    first.drop(1001, 'going away');
    t.mock.timers.tick(500);
    const second = socket();
    assert.notEqual(second, first);
    second.open();
    // The agent's side of the handshake on the new socket.
    second.receive({ jsonrpc: '2.0', id: 1, method: Method.Initialize, params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'a', version: '1' } } });
    second.receive({ jsonrpc: '2.0', method: Method.Initialized });
    second.receive({ jsonrpc: '2.0', id: 2, method: Method.ToolsList });
    const session = await second.nextRequest(Method.AgentSession);
    assert.deepEqual(session.params, { sessionId: 'sess-1', lastSeq: 1, page: PAGE });
    const init = await second.next((m) => m.id === 1);
    assert.equal(init.result.protocolVersion, '2025-11-25');
    const list = await second.next((m) => m.id === 2);
    assert.deepEqual(
      list.result.tools.map((/** @type {any} */ x) => x.name),
      ['filter_cars'],
    );
    second.receive({ jsonrpc: '2.0', id: session.id, result: { sessionId: 'sess-1', resumed: true, messages: [], seq: 1 } });
    await settle();
    assert.equal(client.state, 'open');
    assert.deepEqual(
      states.map((s) => s.state),
      ['connecting', 'open', 'reconnecting', 'open'],
    );
    client.stop();
  });

  test('a close with a reason is reported as an error', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { client, errors, socket, accept } = setup();
    client.start();
    await accept();
    socket().drop(1008, 'origin not allowed');
    assert.deepEqual(errors, [{ message: 'origin not allowed', code: 1008 }]);
    client.stop();
  });

  test('a socket sent back to resume (CloseCode.Resume) reconnects and resumes, with no error', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { client, errors, states, socket, accept } = setup();
    client.start();
    await accept({ sessionId: 'sess-1', seq: 4 });
    const first = socket();
    first.drop(CloseCode.Resume, 'its session moved; reconnect to resume it');
    assert.deepEqual(errors, []);
    assert.equal(states[states.length - 1].state, 'reconnecting');
    t.mock.timers.tick(60_000);
    assert.notEqual(socket(), first);
    const params = await accept({ sessionId: 'sess-1', resumed: true, seq: 4 });
    assert.equal(params.sessionId, 'sess-1');
    assert.equal(client.state, 'open');
    client.stop();
  });

  test('stop closes the socket, rejects pending chats and does not reconnect', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { client, socket, accept } = setup();
    client.start();
    await accept();
    const s = socket();
    const chat = client.chat('hello');
    await s.nextRequest(Method.AgentChat);
    client.stop();
    await assert.rejects(chat, ClosedError);
    assert.equal(client.state, 'closed');
    assert.equal(s.closeCalls[0].code, 1000);
    await settle();
    t.mock.timers.tick(60000);
    assert.equal(FakeSocket.instances.length, 1);
    await assert.rejects(client.chat('again'), ClosedError, 'chat after stop rejects');
  });
});

describe('chat', () => {
  test('sends agent/chat and resolves with the result; busy meanwhile', async () => {
    const { client, socket, accept } = setup();
    client.start();
    await accept();
    const p = client.chat('find a red car', { clientTurnId: 'c-1' });
    await settle();
    assert.equal(client.busy, true);
    const req = await socket().nextRequest(Method.AgentChat);
    assert.deepEqual(req.params, { text: 'find a red car', clientTurnId: 'c-1' });
    const other = client.chat('another');
    const req2 = await socket().nextRequest(Method.AgentChat);
    assert.equal(typeof req2.params.clientTurnId, 'string');
    assert.ok(req2.params.clientTurnId.length >= 8 && req2.params.clientTurnId !== 'c-1', 'a new client turn id by default');
    socket().receive({ jsonrpc: '2.0', id: req2.id, error: { code: ErrorCode.TurnInProgress, message: 'busy' } });
    await assert.rejects(other);
    const result = { turnId: 't1', text: 'Here are 3 red cars.', stopReason: 'end', usage: { inputTokens: 10, outputTokens: 5 } };
    socket().receive({ jsonrpc: '2.0', id: req.id, result });
    assert.deepEqual(await p, result);
    assert.equal(client.busy, false);
    client.stop();
  });

  test('a chat while connecting waits for the session', async () => {
    const { client, socket, accept } = setup();
    client.start();
    const p = client.chat('early');
    await settle();
    assert.equal(socket().sent.length, 0, 'nothing sent before the socket opens');
    await accept();
    const req = await socket().nextRequest(Method.AgentChat);
    socket().receive({ jsonrpc: '2.0', id: req.id, result: { turnId: 't', text: 'ok', stopReason: 'end' } });
    assert.equal((await p).text, 'ok');
    client.stop();
  });

  test('abort sends notifications/cancelled for the request and rejects', async () => {
    const { client, socket, accept } = setup();
    client.start();
    await accept();
    const ac = new AbortController();
    const p = client.chat('long story', { signal: ac.signal });
    const req = await socket().nextRequest(Method.AgentChat);
    ac.abort();
    await assert.rejects(p, (err) => err.name === 'AbortError');
    const cancel = await socket().next((m) => m.method === Method.Cancelled);
    assert.equal(cancel.params.requestId, req.id);
    assert.equal(client.busy, false);
    client.stop();
  });

  test('cancel() sends agent/cancel for the running turn, also after a reconnect', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { client, event, socket, accept } = setup();
    assert.equal(await client.cancel(), null, 'nothing to cancel');
    client.start();
    await accept();
    event({ seq: 1, type: EventType.TurnStart, turnId: 't1' });
    const p1 = client.cancel();
    const c1 = await socket().nextRequest(Method.AgentCancel);
    assert.deepEqual(c1.params, { turnId: 't1' });
    socket().receive({ jsonrpc: '2.0', id: c1.id, result: { cancelled: true } });
    assert.deepEqual(await p1, { cancelled: true });

    socket().drop();
    const p2 = client.cancel('t1');
    t.mock.timers.tick(500);
    await accept({ resumed: true, seq: 1 });
    const c2 = await socket().nextRequest(Method.AgentCancel);
    assert.deepEqual(c2.params, { turnId: 't1' });
    assert.equal(FakeSocket.instances.length, 2, 'sent on the new socket');
    socket().receive({ jsonrpc: '2.0', id: c2.id, result: {} });
    await p2;
    client.stop();
  });

  test('a turn cut by a reconnect resolves from its replayed turn_end', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { client, event, socket, accept } = setup();
    client.start();
    await accept();
    const p = client.chat('configure the car');
    const req = await socket().nextRequest(Method.AgentChat);
    event({ seq: 1, type: EventType.TurnStart, turnId: 't7', clientTurnId: req.params.clientTurnId });
    event({ seq: 2, type: EventType.ToolCall, turnId: 't7', callId: 'c', name: 'configure_car', arguments: {} });
    socket().drop(1006); // the tool navigated the page away, say
    await settle();
    let settled = false;
    p.then(
      () => (settled = true),
      () => (settled = true),
    );
    t.mock.timers.tick(500);
    const params = await accept({ resumed: true, seq: 4 });
    assert.equal(params.lastSeq, 2);
    assert.equal(settled, false, 'still waiting for the end of the turn');
    event({ seq: 3, type: EventType.TextDelta, turnId: 't7', delta: 'Done.' });
    event({ seq: 4, type: EventType.TurnEnd, turnId: 't7', stopReason: 'end', text: 'Done.' });
    assert.deepEqual(await p, { turnId: 't7', text: 'Done.', stopReason: 'end', usage: undefined });
    client.stop();
  });

  test('a turn whose turn_end came just before the cut resolves from that event', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { client, event, socket, accept } = setup();
    client.start();
    await accept();
    const p = client.chat('hi');
    const req = await socket().nextRequest(Method.AgentChat);
    event({ seq: 1, type: EventType.TurnStart, turnId: 't3', clientTurnId: req.params.clientTurnId });
    event({ seq: 2, type: EventType.TurnEnd, turnId: 't3', stopReason: 'max_iterations', text: 'partial' });
    socket().drop(); // the agent/chat result itself is lost
    assert.deepEqual(await p, { turnId: 't3', text: 'partial', stopReason: 'max_iterations', usage: undefined });
    client.stop();
  });

  test('a message cut before the agent got it is sent again once, on the next session', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { client, event, socket, accept } = setup();
    client.start();
    await accept();
    event({ seq: 1, type: EventType.TurnStart, turnId: 't0', clientTurnId: 'another-tab' });
    event({ seq: 2, type: EventType.TurnEnd, turnId: 't0', stopReason: 'end', text: '' });
    const p = client.chat('hi', { clientTurnId: 'c-hi' });
    await socket().nextRequest(Method.AgentChat);
    socket().drop();
    await settle();
    t.mock.timers.tick(500);
    // The replay has the end of another turn, not ours: the agent did not get the message.
    const params = await accept({ resumed: true, seq: 3 });
    assert.equal(params.lastSeq, 2);
    assert.equal(socket().messages().filter((m) => m.method === Method.AgentChat).length, 0, 'not before the replay is in');
    event({ seq: 3, type: EventType.Error, turnId: 't0', message: 'late' });
    const again = await socket().nextRequest(Method.AgentChat);
    assert.deepEqual(again.params, { text: 'hi', clientTurnId: 'c-hi' });
    const result = { turnId: 't1', text: 'hello', stopReason: 'end', usage: {} };
    socket().receive({ jsonrpc: '2.0', id: again.id, result });
    assert.deepEqual(await p, result);
    // Cut again before the agent named it: once is enough.
    const q = client.chat('once more', { clientTurnId: 'c-2' });
    const qRejected = assert.rejects(q, ClosedError);
    await socket().nextRequest(Method.AgentChat);
    socket().drop();
    await settle();
    t.mock.timers.tick(20000);
    await accept({ resumed: true, seq: 3 });
    const r = await socket().nextRequest(Method.AgentChat);
    socket().drop();
    await settle();
    t.mock.timers.tick(20000);
    await accept({ resumed: true, seq: 3 });
    await qRejected;
    assert.equal(r.params.clientTurnId, 'c-2');
    client.stop();
  });

  test('a message cut before its turn_start is not sent again when the agent got it', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    for (const where of ['replay', 'running']) {
      const { client, event, socket, accept } = setup();
      client.start();
      await accept();
      const p = client.chat('hi', { clientTurnId: 'c-hi' });
      await socket().nextRequest(Method.AgentChat);
      socket().drop();
      await settle();
      t.mock.timers.tick(500);
      if (where === 'replay') {
        // The turn ran and ended while the page was away: its turn_start echoes our id.
        await accept({ resumed: true, seq: 2 });
        event({ seq: 1, type: EventType.TurnStart, turnId: 't1', clientTurnId: 'c-hi', text: 'hi' });
        event({ seq: 2, type: EventType.TurnEnd, turnId: 't1', stopReason: 'end', text: 'hello' });
        assert.deepEqual(await p, { turnId: 't1', text: 'hello', stopReason: 'end', usage: undefined }, where);
      } else {
        // Still running: the session result says so.
        await accept({ resumed: true, seq: 1, running: { turnId: 't1', clientTurnId: 'c-hi', events: [] } });
        event({ seq: 1, type: EventType.TurnStart, turnId: 't1', clientTurnId: 'c-hi', text: 'hi' });
        event({ seq: 2, type: EventType.TurnEnd, turnId: 't1', stopReason: 'end', text: 'hello' });
        assert.deepEqual(await p, { turnId: 't1', text: 'hello', stopReason: 'end', usage: undefined }, where);
      }
      assert.equal(socket().messages().filter((m) => m.method === Method.AgentChat).length, 0, `${where}: not sent again`);
      client.stop();
    }
  });

  test('a cut turn whose session is lost rejects', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { client, event, socket, accept } = setup();
    client.start();
    await accept();
    const p = client.chat('hi');
    const req = await socket().nextRequest(Method.AgentChat);
    event({ seq: 1, type: EventType.TurnStart, turnId: 't1', clientTurnId: req.params.clientTurnId });
    socket().drop();
    const rejected = assert.rejects(p, /lost/);
    t.mock.timers.tick(500);
    await accept({ sessionId: 'sess-2', resumed: false });
    await rejected;
    client.stop();
  });

  test('a second chat while one runs gets the server error', async () => {
    const { client, socket, accept } = setup();
    client.start();
    await accept();
    const first = client.chat('one');
    await socket().nextRequest(Method.AgentChat);
    const second = client.chat('two');
    const req2 = await socket().nextRequest(Method.AgentChat);
    socket().receive({ jsonrpc: '2.0', id: req2.id, error: { code: ErrorCode.TurnInProgress, message: 'a turn is running' } });
    await assert.rejects(second, (err) => err.code === ErrorCode.TurnInProgress);
    assert.equal(client.busy, true, 'the first chat is still running');
    client.stop();
    await assert.rejects(first, ClosedError);
  });
});

describe('page life', () => {
  test('pagehide closes the socket with 1001 and does not reconnect; a bfcache restore does', async () => {
    await withWindow(async (win) => {
      const { client, socket, accept } = setup();
      client.start();
      await accept();
      const first = socket();
      win.dispatchEvent(new Event('pagehide'));
      await settle();
      assert.equal(first.closeCalls.at(-1)?.code, 1001);
      assert.equal(FakeSocket.instances.length, 1, 'a hidden page must not reconnect');
      const show = new Event('pageshow');
      Object.defineProperty(show, 'persisted', { value: true });
      win.dispatchEvent(show);
      await settle();
      assert.equal(FakeSocket.instances.length, 2, 'a page restored from the bfcache reconnects');
      client.stop();
    });
  });
});

describe('a single-page app\'s navigation', () => {
  /** How many requests of method s has sent. @param {FakeSocket} s @param {string} method */
  const count = (s, method) => s.sent.filter((m) => JSON.parse(m).method === method).length;

  test('notePage tells the agent the new page with agent/session for the same conversation, once', async () => {
    let page = PAGE;
    const { client, sessions, socket, accept, event } = setup({ page: () => page });
    client.start();
    await accept({ sessionId: 'sess-1', seq: 4 });
    event({ seq: 5, type: EventType.TurnStart, turnId: 't1', text: 'hi' });
    event({ seq: 6, type: EventType.TurnEnd, turnId: 't1', text: 'hello', stopReason: 'end' });
    await settle();
    const s = socket();
    const before = s.sent.length;
    await client.notePage(); // unchanged: nothing sent
    assert.equal(s.sent.length, before);

    page = { url: 'http://shop.test/cars/rav4', title: 'RAV4' };
    const noted = client.notePage();
    const again = client.notePage(); // the one in flight
    const req = await s.nextRequest(Method.AgentSession);
    assert.deepEqual(req.params, { sessionId: 'sess-1', lastSeq: 6, page });
    s.receive({ jsonrpc: '2.0', id: req.id, result: { sessionId: 'sess-1', resumed: true, messages: [], seq: 6 } });
    await Promise.all([noted, again]);
    assert.equal(count(s, Method.AgentSession), 2, 'one agent/session for the change');
    assert.equal(client.state, 'open');
    assert.equal(sessions.at(-1).sessionId, 'sess-1');
    await client.notePage();
    assert.equal(count(s, Method.AgentSession), 2, 'told once');

    // A new title alone (a page whose title counts or blinks): not for the watch that runs
    // every second (urlOnly), but before a message (notePage without it).
    page = { ...page, title: '(1) RAV4' };
    await client.notePage({ urlOnly: true });
    assert.equal(count(s, Method.AgentSession), 2, 'a new title alone is not a new page for the watch');
    const titled = client.notePage();
    const req3 = await s.nextRequest(Method.AgentSession);
    assert.equal(req3.params.page.title, '(1) RAV4');
    s.receive({ jsonrpc: '2.0', id: req3.id, result: { sessionId: 'sess-1', resumed: true, messages: [], seq: 6 } });
    await titled;
    client.stop();
  });

  test('not while a turn runs; chat tells it first', async () => {
    let page = PAGE;
    const { client, socket, accept, event } = setup({ page: () => page });
    client.start();
    await accept({ sessionId: 'sess-1', seq: 0 });
    event({ seq: 1, type: EventType.TurnStart, turnId: 't1', text: 'open the rav4' });
    await settle();
    page = { url: 'http://shop.test/cars/rav4', title: 'RAV4' };
    const s = socket();
    await client.notePage();
    assert.equal(count(s, Method.AgentSession), 1, 'nothing while the turn runs');
    event({ seq: 2, type: EventType.TurnEnd, turnId: 't1', text: 'Opened.', stopReason: 'end' });
    await settle();

    const chat = client.chat('book a test drive');
    const req = await s.nextRequest(Method.AgentSession);
    assert.deepEqual(req.params.page, page);
    assert.equal(count(s, Method.AgentChat), 0, 'agent/chat waits for it');
    s.receive({ jsonrpc: '2.0', id: req.id, result: { sessionId: 'sess-1', resumed: true, messages: [], seq: 2 } });
    const chatReq = await s.nextRequest(Method.AgentChat);
    s.receive({ jsonrpc: '2.0', id: chatReq.id, result: { turnId: 't2', text: 'ok', stopReason: 'end' } });
    assert.equal((await chat).turnId, 't2');
    client.stop();
  });
});
