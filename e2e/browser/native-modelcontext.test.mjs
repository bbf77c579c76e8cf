// A browser with its own (WebMCP-style) document.modelContext: the widget must adapt it instead
// of replacing it, offer its tools to the agent, and run them through executeTool.
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

/** Installed before any page script: a native-like model context, as a browser would ship it. */
function installNative() {
  class NativeModelContext extends EventTarget {
    #tools = new Map();
    registerTool(tool, { signal } = {}) {
      if (this.#tools.has(tool.name)) throw new DOMException(`duplicate ${tool.name}`, 'InvalidStateError');
      this.#tools.set(tool.name, tool);
      signal?.addEventListener('abort', () => this.unregisterTool(tool.name), { once: true });
      this.dispatchEvent(new Event('toolchange'));
    }
    unregisterTool(name) {
      if (this.#tools.delete(name)) this.dispatchEvent(new Event('toolchange'));
    }
    getTools() {
      return [...this.#tools.values()].map(({ name, description, inputSchema, annotations }) => ({ name, description, inputSchema, annotations }));
    }
    async executeTool(name, args) {
      /** @type {any} */ (window).__nativeCalls.push({ name, args });
      const tool = this.#tools.get(name);
      if (!tool) throw new DOMException(`no tool ${name}`, 'NotFoundError');
      return tool.execute(args, { requestUserInteraction: async (cb) => cb() });
    }
  }
  /** @type {any} */ (window).__nativeCalls = [];
  const native = new NativeModelContext();
  Object.defineProperty(document, 'modelContext', { value: native, configurable: true, enumerable: true });
  /** @type {any} */ (window).__native = native;
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
    assert.deepEqual(calls, [{ name: 'search_cars', args: { bodyType: 'suv' } }]);
    const offered = toolNames(stack.fake.requests[0].body);
    for (const name of ['search_cars', 'sort_cars', 'select_car', 'compare_cars', 'clear_filters']) {
      assert.ok(offered.includes(name), `${name} not offered: ${offered}`);
    }
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
