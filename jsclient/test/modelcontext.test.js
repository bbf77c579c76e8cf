// Unit tests of document.modelContext (jsclient/modelcontext.js): the polyfill, the pre-load
// queue, and the adapter over another ("native") implementation.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { Method } from '../protocol.js';
import { installModelContext, ModelContext } from '../modelcontext.js';
import { ToolHost } from '../tools.js';
import { Peer } from '../wsrpc.js';
import { FakeSocket, quietLogger, settle } from './fakesocket.js';

/** A window with a document and a navigator, like a page before our script. */
function fakeWindow() {
  return { document: /** @type {any} */ ({}), navigator: /** @type {any} */ ({}) };
}

/** @param {string} name */
function tool(name, result = `${name} ran`) {
  return { name, description: `the ${name} tool`, execute: async () => result };
}

describe('polyfill', () => {
  test('installs at document.modelContext and navigator.modelContext, once', () => {
    const win = fakeWindow();
    const host = new ToolHost();
    const mc = installModelContext(host, { win });
    assert.ok(mc instanceof ModelContext);
    assert.equal(win.document.modelContext, mc);
    assert.equal(win.navigator.modelContext, mc);
    assert.equal(installModelContext(host, { win }), mc, 'a second install returns the same object');
  });

  test('an existing polyfill of ours is reused wherever it is', () => {
    const win = fakeWindow();
    const other = new ModelContext(new ToolHost());
    win.navigator.modelContext = other;
    assert.equal(installModelContext(new ToolHost(), { win }), other, 'ours anywhere wins');
  });

  test('registerTool, getTools, executeTool, unregisterTool and toolchange', async () => {
    const win = fakeWindow();
    const host = new ToolHost();
    const mc = installModelContext(host, { win });
    let changes = 0;
    mc.addEventListener('toolchange', () => changes++);
    const handle = mc.registerTool({ ...tool('search', 'found 3'), inputSchema: { type: 'object', properties: { q: { type: 'string' } } } });
    assert.equal(host.has('search'), true, 'the tool reaches the host');
    assert.deepEqual(mc.getTools(), host.listTools());
    assert.equal(await mc.executeTool('search', { q: 'x' }), 'found 3', 'executeTool returns what execute returned');
    assert.throws(() => mc.registerTool(tool('search')), (err) => err.name === 'InvalidStateError');
    mc.unregisterTool('search');
    assert.equal(host.has('search'), false);
    assert.throws(() => mc.unregisterTool('search'), (err) => err.name === 'InvalidStateError');
    handle.unregister(); // stale handle: harmless
    mc.registerTool(tool('obj'));
    mc.unregisterTool({ name: 'obj' });
    assert.equal(host.has('obj'), false, 'unregisterTool accepts the tool object too');
    assert.equal(changes, 4);
  });

  test('signal unregisters a tool registered through the polyfill', () => {
    const host = new ToolHost();
    const mc = installModelContext(host, { win: fakeWindow() });
    const ac = new AbortController();
    mc.registerTool(tool('temp'), { signal: ac.signal });
    ac.abort();
    assert.equal(host.has('temp'), false);
  });

  test('provideContext and clearContext touch only tools registered through the polyfill', () => {
    const host = new ToolHost();
    const mc = installModelContext(host, { win: fakeWindow() });
    host.registerTool(tool('widget_tool'));
    mc.registerTool(tool('a'));
    mc.provideContext({ tools: [tool('b'), tool('c')] });
    assert.deepEqual(
      host.listTools().map((t) => t.name),
      ['widget_tool', 'b', 'c'],
    );
    mc.clearContext();
    assert.deepEqual(
      host.listTools().map((t) => t.name),
      ['widget_tool'],
    );
  });
});

describe('pre-load queue', () => {
  test('queued registrations are replayed; a held stub forwards later calls', () => {
    const win = fakeWindow();
    const logger = quietLogger();
    // The documented inline snippet, run before the script loads.
    const document = win.document;
    document.modelContext ??= {
      __byomcpQueue: [],
      registerTool(/** @type {any} */ t, /** @type {any} */ o) {
        this.__byomcpQueue.push([t, o]);
      },
    };
    const stub = document.modelContext;
    stub.registerTool(tool('early'));
    stub.registerTool(tool('gone'), { signal: AbortSignal.abort() });
    stub.registerTool(tool('early')); // duplicate: logged, not fatal
    stub.registerTool({ name: 'bad name' });

    const host = new ToolHost();
    const mc = installModelContext(host, { win, logger });
    assert.ok(mc instanceof ModelContext);
    assert.equal(document.modelContext, mc);
    assert.equal(win.navigator.modelContext, mc);
    assert.deepEqual(
      host.listTools().map((t) => t.name),
      ['early'],
    );
    assert.equal(logger.lines.length, 2, 'the duplicate and the bad name are logged');
    assert.equal(stub.__byomcpQueue.length, 0);

    stub.registerTool(tool('late'));
    assert.equal(host.has('late'), true, 'the old stub forwards to the polyfill');
  });
});

/** A stand-in for a browser's own modelContext. */
class NativeModelContext extends EventTarget {
  constructor() {
    super();
    /** @type {any[]} */
    this.tools = [];
    /** @type {any[][]} */
    this.executed = [];
  }

  async getTools() {
    return this.tools.map((t) => ({ ...t }));
  }

  /** @param {string} name @param {unknown} args */
  async executeTool(name, args) {
    this.executed.push([name, args]);
    if (name === 'broken') throw new Error('native failure');
    return JSON.stringify({ ok: name });
  }

  /** @param {any[]} tools */
  change(tools) {
    this.tools = tools;
    this.dispatchEvent(new Event('toolchange'));
  }
}

describe('adapter over another modelContext', () => {
  test('mirrors the tools, follows toolchange, and runs calls with executeTool', async () => {
    const win = fakeWindow();
    const native = new NativeModelContext();
    native.tools = [
      { name: 'search', description: 'search cars', inputSchema: '{"type":"object","properties":{"q":{"type":"string"}}}' },
      { name: 'broken', description: 'always fails', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
    ];
    win.document.modelContext = native;
    const host = new ToolHost({ logger: quietLogger() });
    assert.equal(installModelContext(host, { win }), native, 'the native object stays in place');
    assert.equal(win.document.modelContext, native);
    await settle();
    assert.deepEqual(host.listTools(), [
      { name: 'search', description: 'search cars', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
      { name: 'broken', description: 'always fails', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
    ]);

    // The agent calls through the host; the native executeTool runs.
    const socket = FakeSocket.opened();
    host.attach(new Peer(socket, { logger: quietLogger() }));
    socket.receive({ jsonrpc: '2.0', id: 1, method: Method.ToolsCall, params: { name: 'search', arguments: { q: 'red' } } });
    assert.deepEqual((await socket.next()).result, { content: [{ type: 'text', text: '{"ok":"search"}' }] });
    socket.receive({ jsonrpc: '2.0', id: 2, method: Method.ToolsCall, params: { name: 'broken', arguments: {} } });
    assert.deepEqual((await socket.next()).result, { isError: true, content: [{ type: 'text', text: 'native failure' }] });
    assert.deepEqual(native.executed, [
      ['search', { q: 'red' }],
      ['broken', {}],
    ]);

    // toolchange: one removed, one changed, one added.
    native.change([
      { name: 'search', description: 'search cars and vans', inputSchema: { type: 'object' } },
      { name: 'compare', description: 'compare two cars' },
    ]);
    await settle();
    assert.deepEqual(
      host.listTools().map((t) => [t.name, t.description]),
      [
        ['search', 'search cars and vans'],
        ['compare', 'compare two cars'],
      ],
    );
  });

  test('a name already in the host is skipped, not fatal', async () => {
    const win = fakeWindow();
    const native = new NativeModelContext();
    native.tools = [{ name: 'taken' }, { name: 'free' }];
    win.navigator.modelContext = native;
    const logger = quietLogger();
    const host = new ToolHost();
    host.registerTool(tool('taken'));
    installModelContext(host, { win, logger });
    await settle();
    assert.deepEqual(
      host.listTools().map((t) => [t.name, t.description]),
      [
        ['taken', 'the taken tool'],
        ['free', ''],
      ],
    );
    assert.equal(logger.lines.length, 1);
    assert.equal(win.document.modelContext, undefined, 'no polyfill next to a native one');
  });

  test('an implementation that cannot be read is left alone with a warning', () => {
    const win = fakeWindow();
    const native = { registerTool() {} };
    win.document.modelContext = native;
    const logger = quietLogger();
    const host = new ToolHost();
    assert.equal(installModelContext(host, { win, logger }), native);
    assert.equal(win.document.modelContext, native);
    assert.equal(logger.lines.length, 1);
    assert.equal(host.listTools().length, 0);
  });
});
