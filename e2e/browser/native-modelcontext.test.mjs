// A browser with its own document.modelContext, shaped as the WebMCP draft and Chromium ship it:
// the widget must adapt it instead of replacing it, offer its tools to the agent, and run them
// through executeTool(tool, inputArgsJson, {signal}).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, recordClientEvents, newPage, ask, waitIdle, waitConnected, W } from './harness.mjs';
import { lastUserText, toolNames, toolResultsSinceUser } from './fake-openai.mjs';

function script(body) {
  if (/SUVs/.test(lastUserText(body))) {
    const results = toolResultsSinceUser(body);
    if (!results.length) return { toolCalls: [{ name: 'search_cars', arguments: { bodyType: 'suv' } }] };
    const m = /Showing \d+ cars/.exec(results[0].content);
    return { text: `Native said: ${m ? m[0] : 'nothing'}` };
  }
  return { text: 'ok' };
}

/**
 * Installed before any page script: a document.modelContext shaped as Chromium ships it (the
 * WebMCP draft's registerTool(tool, {signal}) returning a Promise, 'toolchange' as a task, and
 * Chromium's getTools() / executeTool(tool, inputArgsJson, {signal})). getTools() resolves with
 * Chrome 160's Tool interface objects: members are getters on the prototype (spreading one copies
 * nothing) and `source` replaces `window`; executeTool takes such an object and JSON text and
 * resolves with the result serialized (JSON text for objects), as
 * developer.chrome.com/docs/ai/webmcp and @mcp-b/webmcp-polyfill document.
 */
function installNative() {
  const w = /** @type {any} */ (window);
  const internals = new WeakMap();
  class Tool {
    get name() { return internals.get(this).def.name; }
    get title() { return internals.get(this).def.title ?? ''; }
    get description() { return internals.get(this).def.description; }
    get inputSchema() { return internals.get(this).def.inputSchema ?? null; }
    get annotations() { return internals.get(this).def.annotations ?? null; }
    get origin() { return location.origin; }
    get source() { return window; }
  }
  class ModelContext extends EventTarget {
    #tools = new Map();
    async registerTool(def, { signal } = {}) {
      if (!def || typeof def !== 'object' || def.name === undefined || def.description === undefined || typeof def.execute !== 'function') throw new TypeError('invalid ModelContextTool');
      if (this.#tools.has(def.name) || !/^[A-Za-z0-9_.-]{1,128}$/.test(def.name) || def.description === '') throw new DOMException(`cannot register ${def.name}`, 'InvalidStateError');
      signal?.throwIfAborted();
      const entry = { def, id: crypto.randomUUID() };
      this.#tools.set(def.name, entry);
      signal?.addEventListener('abort', () => {
        if (this.#tools.get(def.name) === entry) {
          this.#tools.delete(def.name);
          setTimeout(() => this.dispatchEvent(new Event('toolchange')));
        }
      });
      await new Promise((r) => setTimeout(r));
      this.dispatchEvent(new Event('toolchange'));
    }
    async getTools() {
      return [...this.#tools.values()].map((entry) => {
        const t = new Tool();
        internals.set(t, entry);
        return t;
      });
    }
    async executeTool(tool, inputArgsJson, { signal } = {}) {
      if (!(tool instanceof Tool)) throw new TypeError('executeTool: tool must be a Tool from getTools()');
      const entry = [...this.#tools.values()].find((e) => e.id === internals.get(tool).id);
      if (!entry) throw new DOMException(`Tool not found: ${tool.name}`, 'UnknownError');
      const input = JSON.parse(inputArgsJson);
      w.__nativeCalls.push({ name: tool.name, input: inputArgsJson, signal: signal instanceof AbortSignal });
      signal?.throwIfAborted();
      const value = await entry.def.execute(input);
      return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
    }
  }
  w.__nativeCalls = [];
  const native = new ModelContext();
  Object.defineProperty(Document.prototype, 'modelContext', { get: () => native, configurable: true, enumerable: true });
  w.__native = native;
}

let stack;
before(async () => {
  stack = await startStack({ script });
});
after(async () => {
  await stack?.close();
});

test('the widget adapts a native document.modelContext', async () => {
  const context = await stack.browser.newContext();
  try {
    await context.addInitScript(installNative);
    await recordClientEvents(context);
    const { page, errors } = await newPage(context);
    await page.goto(stack.server.url + '/');
    await waitConnected(page);
    await page.locator('#grid .card').first().waitFor();
    assert.equal(await page.evaluate(() => document.modelContext === /** @type {any} */ (window).__native), true, 'the native context was replaced');

    await ask(page, 'Show me SUVs');
    await page.locator(W.text).filter({ hasText: 'Native said: Showing 7 cars' }).waitFor();
    await waitIdle(page);
    const bodies = await page.locator('#grid .card .meta').allInnerTexts();
    assert.equal(bodies.length, 7);
    for (const b of bodies) assert.match(b, /^SUV/);
    const calls = await page.evaluate(() => /** @type {any} */ (window).__nativeCalls);
    assert.deepEqual(calls, [{ name: 'search_cars', input: '{"bodyType":"suv"}', signal: true }]);
    const offered = toolNames(stack.fake.requests[0].body);
    for (const name of ['search_cars', 'sort_cars', 'select_car', 'compare_cars', 'clear_filters']) {
      assert.ok(offered.includes(name), `${name} not offered: ${offered}`);
    }
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
