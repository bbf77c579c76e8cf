// The SDK interop page: an MCP server built with the official TypeScript SDK (McpServer), joined
// to the byomcp agent over a WebSocket the way a web page is, to prove the agent speaks plain MCP.
//
// Usage: node e2e/interop/sdk-page.mjs <ws-url> <origin>
//   Connects with that Origin header and subprotocol "mcp" (retrying for up to 10 s), serves the
//   tools `add` {a, b} and `echo` {text}, prints exactly "ready" on stdout once it has answered a
//   tools/list, and logs everything else to stderr. Exits 0 when the socket closes or on
//   SIGTERM/SIGINT; exits 1 with a message when it cannot connect.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';
import { z } from 'zod';

const CONNECT_TIMEOUT_MS = 10_000;
const RETRY_DELAY_MS = 200;

/** @param {...unknown} args */
const log = (...args) => console.error('sdk-page:', ...args);

/**
 * An MCP Transport over a connected `ws` WebSocket: one JSON-RPC message per text frame.
 * It listens from construction (the agent sends initialize as soon as the socket opens, before
 * McpServer.connect calls start) and hands the buffered messages over on start. It also calls
 * onToolsListed after each answer to a tools/list request.
 */
class WebSocketTransport {
  /** @type {WebSocket} */
  #socket;
  /** ids of tools/list requests not yet answered */
  #listIds = new Set();
  /** @type {any[]|null} messages received before start; null once started */
  #early = [];
  #closedEarly = false;

  /** @param {WebSocket} socket an open socket; construct this in the 'open' handler */
  constructor(socket) {
    this.#socket = socket;
    /** @type {((message: any, extra?: any) => void)|undefined} */
    this.onmessage = undefined;
    /** @type {(() => void)|undefined} */
    this.onclose = undefined;
    /** @type {((error: Error) => void)|undefined} */
    this.onerror = undefined;
    /** @type {(() => void)|undefined} */
    this.onToolsListed = undefined;
    socket.on('message', (data, isBinary) => this.#receive(data, isBinary));
    socket.on('close', () => {
      if (this.#early) this.#closedEarly = true;
      else this.onclose?.();
    });
    socket.on('error', (err) => this.onerror?.(err));
  }

  async start() {
    const early = this.#early ?? [];
    this.#early = null;
    for (const message of early) this.#deliver(message);
    if (this.#closedEarly) this.onclose?.();
  }

  /**
   * @param {import('ws').RawData} data
   * @param {boolean} isBinary
   */
  #receive(data, isBinary) {
    if (isBinary) {
      this.onerror?.(new Error('binary frame ignored'));
      return;
    }
    let message;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(data.toString()));
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    if (this.#early) this.#early.push(message);
    else this.#deliver(message);
  }

  /** @param {any} message */
  #deliver(message) {
    log('<-', JSON.stringify(message));
    if ('method' in message && message.method === 'tools/list' && 'id' in message) this.#listIds.add(message.id);
    this.onmessage?.(message);
  }

  /** @param {any} message */
  async send(message) {
    const text = JSON.stringify(message);
    log('->', text);
    await new Promise((resolve, reject) => this.#socket.send(text, (err) => (err ? reject(err) : resolve(undefined))));
    if (!('method' in message) && 'id' in message && this.#listIds.delete(message.id)) this.onToolsListed?.();
  }

  async close() {
    this.#socket.close(1000, 'page closing');
  }
}

/**
 * Opens the socket, retrying refused connections until the deadline.
 * @param {string} url
 * @param {string} origin
 * @returns {Promise<{socket: WebSocket, transport: WebSocketTransport}>}
 */
async function connect(url, origin) {
  const deadline = Date.now() + CONNECT_TIMEOUT_MS;
  let retried = false;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`cannot connect to ${url} within ${CONNECT_TIMEOUT_MS / 1000} s`);
    const result = await new Promise((resolve) => {
      const socket = new WebSocket(url, 'mcp', { origin, handshakeTimeout: left });
      socket.once('open', () => resolve({ socket, transport: new WebSocketTransport(socket) }));
      socket.once('unexpected-response', (_req, res) => {
        socket.terminate();
        resolve({ fatal: new Error(`${url} refused the WebSocket upgrade: HTTP ${res.statusCode}`) });
      });
      socket.once('error', (err) => resolve({ retry: err }));
    });
    if (result.socket) return { socket: result.socket, transport: result.transport };
    if (result.fatal) throw result.fatal;
    if (!retried) log(`connect failed (${result.retry.message}); retrying for up to ${CONNECT_TIMEOUT_MS / 1000} s`);
    retried = true;
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
  }
}

/** Builds the MCP server with the two interop tools. */
function buildServer() {
  const server = new McpServer({ name: 'byomcp-sdk-page', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: { a: z.number().describe('first addend'), b: z.number().describe('second addend') },
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: `${a} + ${b} = ${a + b}` }],
      structuredContent: { sum: a + b },
    }),
  );
  server.registerTool(
    'echo',
    {
      description: 'Echoes the text back.',
      inputSchema: { text: z.string().min(1).describe('the text to echo') },
    },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
  );
  return server;
}

async function main() {
  const [url, origin] = process.argv.slice(2);
  if (!url || !origin) {
    log('usage: node e2e/interop/sdk-page.mjs <ws-url> <origin>');
    process.exit(2);
  }
  /** @type {WebSocket|undefined} */
  let socket;
  const stop = (/** @type {string} */ sig) => {
    log(`${sig}: closing`);
    if (!socket) process.exit(0);
    socket.close(1000, 'page closing');
    // The 'close' event exits 0; do not wait for a peer that never answers the close.
    setTimeout(() => process.exit(0), 1000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  /** @type {WebSocketTransport} */
  let transport;
  try {
    ({ socket, transport } = await connect(url, origin));
  } catch (err) {
    log(err instanceof Error ? err.message : err);
    process.exit(1);
  }
  log(`connected to ${url} (subprotocol ${JSON.stringify(socket.protocol)})`);

  let announced = false;
  transport.onToolsListed = () => {
    if (announced) return;
    announced = true;
    process.stdout.write('ready\n');
  };
  const server = buildServer();
  // McpServer.connect wraps onclose/onerror; set ours through the server's hooks.
  server.server.onclose = () => {
    log('socket closed');
    process.exit(0);
  };
  server.server.onerror = (err) => log('error:', err.message);
  await server.connect(transport);
}

await main();
