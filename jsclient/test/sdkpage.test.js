// Checks e2e/interop/sdk-page.mjs (the official-SDK page) against a tiny local ws server that
// plays the agent: handshake, tools/list, tools/call, invalid arguments, and exit behaviour.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';

import { WebSocketServer } from 'ws';

const SCRIPT = fileURLToPath(new URL('../../e2e/interop/sdk-page.mjs', import.meta.url));
const ORIGIN = 'http://page.test:8080';

/**
 * Starts a ws server on a loopback port that accepts only ORIGIN.
 * @returns {Promise<{wss: WebSocketServer, url: string, connection: Promise<{ws: import('ws').WebSocket, req: import('node:http').IncomingMessage}>}>}
 */
async function agentServer() {
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    handleProtocols: (protocols) => (protocols.has('mcp') ? 'mcp' : false),
    verifyClient: ({ origin }) => origin === ORIGIN,
  });
  await once(wss, 'listening');
  const { port } = /** @type {import('node:net').AddressInfo} */ (wss.address());
  const connection = new Promise((resolve) => wss.once('connection', (ws, req) => resolve({ ws, req })));
  return { wss, url: `ws://127.0.0.1:${port}/v1/ws`, connection: /** @type {any} */ (connection) };
}

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
after(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** Bound on waiting for one reply (a hang fails the test instead of stalling the run). */
const REPLY_WAIT_MS = 10000;

/**
 * Runs the script; collects its stdout lines and exit code.
 * @param {string[]} args
 */
function run(args) {
  const child = spawn(process.execPath, [SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const exited = once(child, 'exit').then(([code]) => code);
  return { child, exited, out: () => stdout, err: () => stderr };
}

/** Plays the agent's side: JSON-RPC requests over the accepted socket. */
function agent(/** @type {import('ws').WebSocket} */ ws) {
  let nextId = 1;
  /** @type {Map<number, (m: any) => void>} */
  const waiting = new Map();
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    if ('id' in msg && waiting.has(msg.id)) {
      waiting.get(msg.id)?.(msg);
      waiting.delete(msg.id);
    }
  });
  return {
    /** @param {string} method @param {unknown} [params] @returns {Promise<any>} */
    request(method, params) {
      const id = nextId++;
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no reply to ${method}`)), REPLY_WAIT_MS);
        waiting.set(id, (m) => {
          clearTimeout(timer);
          resolve(m);
        });
      });
    },
    /** @param {string} method */
    notify(method) {
      ws.send(JSON.stringify({ jsonrpc: '2.0', method }));
    },
  };
}

describe('sdk-page.mjs', { timeout: 60000 }, () => {
  test('serves add and echo to an MCP client over the socket', async () => {
    const { wss, url, connection } = await agentServer();
    const page = run([url, ORIGIN]);
    try {
      const { ws, req } = await connection;
      assert.equal(req.headers.origin, ORIGIN);
      assert.equal(ws.protocol, 'mcp');
      const a = agent(ws);

      const init = await a.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test-agent', version: '1' } });
      assert.equal(init.result.protocolVersion, '2025-11-25');
      assert.ok(init.result.capabilities.tools, 'tools capability');
      a.notify('notifications/initialized');

      const list = await a.request('tools/list', {});
      const tools = Object.fromEntries(list.result.tools.map((/** @type {any} */ t) => [t.name, t]));
      assert.deepEqual(Object.keys(tools).sort(), ['add', 'echo']);
      assert.deepEqual(tools.add.inputSchema.required.sort(), ['a', 'b']);
      assert.equal(tools.add.inputSchema.properties.a.type, 'number');
      assert.equal(tools.echo.inputSchema.properties.text.minLength, 1);

      // "ready" comes after the tools/list answer; wait for it with a bounded number of turns.
      for (let i = 0; i < 1000 && !page.out().includes('ready'); i++) await new Promise((r) => setTimeout(r, 5));
      assert.equal(page.out(), 'ready\n', 'stdout is exactly "ready"');

      const add = await a.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
      assert.deepEqual(add.result.content, [{ type: 'text', text: '2 + 3 = 5' }]);
      assert.deepEqual(add.result.structuredContent, { sum: 5 });
      assert.notEqual(add.result.isError, true);

      const echo = await a.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
      assert.deepEqual(echo.result.content, [{ type: 'text', text: 'echo: hi' }]);

      for (const args of [
        { name: 'add', arguments: { a: 2, b: 'three' } },
        { name: 'add', arguments: { a: 2 } },
        { name: 'echo', arguments: { text: '' } },
      ]) {
        const bad = await a.request('tools/call', args);
        assert.equal(bad.result?.isError, true, JSON.stringify(args));
        assert.match(bad.result.content[0].text, /validation/i);
      }

      ws.close(1000, 'done');
      assert.equal(await page.exited, 0, 'exits 0 when the socket closes');
      assert.equal(page.out(), 'ready\n', 'nothing else on stdout');
    } finally {
      page.child.kill();
      wss.close();
    }
  });

  test('exits 0 on SIGTERM', async () => {
    const { wss, url, connection } = await agentServer();
    const page = run([url, ORIGIN]);
    try {
      const { ws } = await connection;
      const closed = once(ws, 'close');
      // Wait until the script has logged its connection (the handlers are in place by then).
      for (let i = 0; i < 1000 && !page.err().includes('connected'); i++) await new Promise((r) => setTimeout(r, 5));
      page.child.kill('SIGTERM');
      assert.equal(await page.exited, 0);
      await closed;
    } finally {
      wss.close();
    }
  });

  test('exits non-zero with a message when the upgrade is refused', async () => {
    const { wss, url } = await agentServer();
    const page = run([url, 'http://evil.test']);
    try {
      const code = await page.exited;
      assert.notEqual(code, 0);
      assert.match(page.err(), /refused|403|401/);
      assert.equal(page.out(), '');
    } finally {
      wss.close();
    }
  });
});
