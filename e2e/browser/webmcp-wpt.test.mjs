// WebMCP as the Web Platform Tests (webmcp/ of web-platform-tests/wpt) check it, in two modes:
// byomcp alone (its own document.modelContext) and byomcp on Chromium's own implementation
// (Debian's Chromium 156 with --enable-features=WebMCP, which byomcp leaves in place). Each case
// is written from what those tests assert, on pages of our own (e2e/browser/webmcp/wpt.html and
// wpt-frame.html): a <select multiple> filled by executeTool, executeTool's input conversion,
// toolactivated/toolcancel with their event classes, tools of same-origin frames (both ways, with
// default and empty exposedTo), a form removed after respondWith(), preload.js's stand-in
// queueing getTools()/executeTool(), and the widget's agent running a frame's tool. Not checked
// because no script can do them: isTrusted of the events, the :tool-form-active and
// :tool-submit-active pseudo-classes, exposedTo to another origin.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, launchBrowser, newPage, recordClientEvents, waitConnected, ask, waitIdle, W } from './harness.mjs';
import { startWebMCPSite } from './webmcp-pages.mjs';

/**
 * The fake model: "frame booking" calls the frame's tool, then quotes its result.
 * @param {any} body
 */
async function script(body) {
  const { lastUserText, toolResultsSinceUser } = await import('./fake-openai.mjs');
  if (!lastUserText(body).includes('frame booking')) return { text: 'I did not understand.' };
  const results = toolResultsSinceUser(body);
  if (!results.length) return { toolCalls: [{ name: 'frame_booking', arguments: { ref: 'B42' } }] };
  return { text: `Result: ${results[0].content.replace(/\s+/g, ' ')}` };
}

/** A bound for each case, so that a missing event fails it instead of hanging the file. */
const T = { timeout: 120000 };

let stack;
let site;
before(async () => {
  stack = await startStack({ script });
  site = await startWebMCPSite(stack.server.url);
});
after(async () => {
  await site?.close();
  await stack?.close();
});

// In the page, before any of its scripts: waits for a tool by name, as WPT's helpers do.
const HELPERS = () => {
  /** @type {any} */ (window).__waitForTool = async (/** @type {string} */ name) => {
    const mc = /** @type {any} */ (document).modelContext;
    for (;;) {
      const changed = new Promise((resolve) => mc.addEventListener('toolchange', resolve, { once: true }));
      const tool = (await mc.getTools()).find((/** @type {any} */ t) => t.name === name);
      if (tool) return tool;
      await changed;
    }
  };
};

for (const mode of [
  { name: 'byomcp alone', args: [], native: false },
  { name: 'byomcp on native WebMCP', args: ['--enable-features=WebMCP'], native: true },
]) {
  describe(mode.name, () => {
    /** @type {import('playwright-core').Browser} */
    let browser;
    let nativeThere = false;
    before(async () => {
      browser = mode.native ? await launchBrowser(mode.args) : stack.browser;
      const context = await browser.newContext();
      try {
        const { page } = await newPage(context);
        await page.goto(`${site.url}/wpt-frame.html`);
        nativeThere = await page.evaluate(() => typeof (/** @type {any} */ (document).modelContext?.executeTool) === 'function');
      } finally {
        await context.close();
      }
      // Without the flag the browser has none (byomcp's is the only one); with it, Chromium's.
      assert.equal(nativeThere, mode.native, `document.modelContext before byomcp in ${mode.name}`);
    });
    after(async () => {
      if (mode.native) await browser?.close();
    });

    /**
     * Opens wpt.html (preload.js first, the widget last) in a new context, connected.
     * @param {(context: import('playwright-core').BrowserContext, page: import('playwright-core').Page, errors: string[]) => Promise<void>} body
     */
    async function withPage(body) {
      const context = await browser.newContext();
      try {
        await context.addInitScript(HELPERS);
        await recordClientEvents(context);
        const { page, errors } = await newPage(context);
        await page.goto(`${site.url}/wpt.html?preload=before`);
        await waitConnected(page);
        const ours = await page.evaluate(() => /** @type {any} */ (document).modelContext[Symbol.for('byomcp.modelContext')] === true);
        assert.equal(ours, !mode.native, 'whose document.modelContext the page has');
        await body(context, page, errors);
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    }

    test('executeTool on a <select multiple> fires input and change once, and none when nothing changes', T, () =>
      withPage(async (_c, page) => {
        const r = await page.evaluate(async () => {
          const mc = /** @type {any} */ (document).modelContext;
          const tool = await /** @type {any} */ (window).__waitForTool('select_fruits');
          const el = /** @type {HTMLSelectElement} */ (document.getElementById('fruits'));
          const counts = { input: 0, change: 0 };
          el.addEventListener('input', () => counts.input++);
          el.addEventListener('change', () => counts.change++);
          const result = await mc.executeTool(tool, { fruits: ['apple', 'banana'] });
          const first = { ...counts, selected: [...el.options].map((o) => o.selected) };
          await mc.executeTool(tool, { fruits: ['apple', 'banana'] });
          return { result, first, second: counts };
        });
        assert.equal(r.result, 'chosen');
        assert.deepEqual(r.first, { input: 1, change: 1, selected: [true, false, true] });
        assert.deepEqual(r.second, { input: 1, change: 1 }, 'the same values again fire nothing');
      }));

    test('executeTool takes an object (arrays too): primitives, strings and null are TypeErrors; omitted is {}', T, () =>
      withPage(async (_c, page) => {
        const r = await page.evaluate(async () => {
          const mc = /** @type {any} */ (document).modelContext;
          /** @type {unknown[]} */
          const received = [];
          await mc.registerTool({ name: 'args_tool', description: 'Keeps its input.', execute: (/** @type {unknown} */ input) => (received.push(input), 'Success') });
          const tool = (await mc.getTools()).find((/** @type {any} */ t) => t.name === 'args_tool');
          const out = { array: await mc.executeTool(tool, [1, 2, 3]), refused: /** @type {Record<string, string>} */ ({}), received };
          for (const [label, bad] of /** @type {[string, unknown][]} */ ([['string', 'hello'], ['JSON text', '{}'], ['number', 123], ['boolean', true], ['null', null], ['toJSON undefined', { toJSON: () => undefined }]])) {
            out.refused[label] = await mc.executeTool(tool, bad).then(
              () => 'resolved',
              (/** @type {any} */ e) => e.constructor.name,
            );
          }
          out.omitted = await mc.executeTool(tool);
          out.undef = await mc.executeTool(tool, undefined);
          return out;
        });
        assert.equal(r.array, 'Success');
        const all = ['string', 'JSON text', 'number', 'boolean', 'null', 'toJSON undefined'];
        assert.deepEqual(r.refused, Object.fromEntries(all.map((k) => [k, 'TypeError'])));
        assert.equal(r.omitted, 'Success');
        assert.equal(r.undef, 'Success');
        assert.deepEqual(r.received, [[1, 2, 3], {}, {}], 'the refused inputs never reached the tool');
      }));

    test('an imperative tool: toolactivated and toolcancel (ToolActivatedEvent, ToolCancelEvent) at the model context and the window', T, () =>
      withPage(async (_c, page) => {
        const r = await page.evaluate(async () => {
          const w = /** @type {any} */ (window);
          const mc = /** @type {any} */ (document).modelContext;
          /** @type {string[]} */
          const order = [];
          /** @type {string[]} */
          const atWindow = [];
          /** @type {Event[]} */
          const atMC = [];
          const onWindow = (/** @type {any} */ e) => atWindow.push(`${e.type}:${e.toolName}`);
          window.addEventListener('toolactivated', onWindow);
          window.addEventListener('toolcancel', onWindow);
          // Chromium runs the microtasks after each listener: these record first, then resolve.
          const onMC = (/** @type {any} */ e) => (atMC.push(e), order.push(`${e.type}:${e.toolName}`));
          mc.addEventListener('toolactivated', onMC);
          mc.addEventListener('toolcancel', onMC);
          const activated = new Promise((resolve) => mc.addEventListener('toolactivated', resolve, { once: true }));
          const cancelled = new Promise((resolve) => mc.addEventListener('toolcancel', resolve, { once: true }));
          /** @type {AbortSignal|null} */
          let toolSignal = null;
          const reg = new AbortController();
          await mc.registerTool(
            {
              name: 'slow_tool',
              description: 'Never answers.',
              execute: (/** @type {unknown} */ _input, /** @type {any} */ options) => {
                toolSignal = options.signal;
                options.signal.addEventListener('abort', () => order.push('tool signal aborted'));
                order.push('tool started');
                return new Promise(() => {});
              },
            },
            { signal: reg.signal },
          );
          const tool = (await mc.getTools()).find((/** @type {any} */ t) => t.name === 'slow_tool');
          const call = new AbortController();
          const p = mc.executeTool(tool, {}, { signal: call.signal });
          await activated;
          const a = /** @type {any} */ (atMC[0]);
          const first = {
            isClass: a instanceof w.ToolActivatedEvent,
            toolName: a.toolName,
            atMC: a.target === mc,
            bubbles: a.bubbles,
            cancelable: a.cancelable,
            composed: a.composed,
          };
          call.abort('custom reason');
          /** @type {unknown} */
          let rejection;
          await p.catch((/** @type {unknown} */ e) => {
            order.push('call rejected');
            rejection = e;
          });
          await cancelled;
          const c = /** @type {any} */ (atMC[1]);
          reg.abort();
          return {
            first,
            order,
            atWindow,
            types: atMC.map((e) => e.type),
            cancel: { isClass: c instanceof w.ToolCancelEvent, notActivated: !(c instanceof w.ToolActivatedEvent), toolName: c.toolName, atMC: c.target === mc },
            rejection,
            toolSignalReason: /** @type {any} */ (toolSignal)?.reason?.name,
            constructed: new w.ToolActivatedEvent('toolactivated', { toolName: 'x' }).toolName,
          };
        });
        assert.deepEqual(r.first, { isClass: true, toolName: 'slow_tool', atMC: true, bubbles: false, cancelable: false, composed: false });
        assert.deepEqual(r.order, ['tool started', 'toolactivated:slow_tool', 'call rejected', 'tool signal aborted', 'toolcancel:slow_tool']);
        assert.deepEqual(r.types, ['toolactivated', 'toolcancel'], 'one of each per call');
        // WPT expects them at the window too, as @mcp-b/webmcp-polyfill and byomcp fire them;
        // Chromium 156 fires them at the model context only.
        assert.deepEqual(r.atWindow, mode.native ? [] : ['toolactivated:slow_tool', 'toolcancel:slow_tool']);
        assert.deepEqual(r.cancel, { isClass: true, notActivated: true, toolName: 'slow_tool', atMC: true });
        assert.equal(r.rejection, 'custom reason', "the call rejects with the caller's reason");
        assert.equal(r.toolSignalReason, 'AbortError', "the tool's own signal aborts with an AbortError");
        assert.equal(r.constructed, 'x');
      }));

    test("a same-origin frame's tool: in the parent's getTools(), run by its executeTool(), toolactivated at the frame's model context", T, () =>
      withPage(async (_c, page) => {
        const r = await page.evaluate(async (native) => {
          const mc = /** @type {any} */ (document).modelContext;
          const iframe = document.createElement('iframe');
          iframe.src = '/wpt-frame.html';
          document.body.append(iframe);
          await new Promise((resolve) => (iframe.onload = resolve));
          const fmc = /** @type {any} */ (iframe.contentDocument).modelContext;
          const changed = new Promise((resolve) => mc.addEventListener('toolchange', resolve, { once: true }));
          await fmc.registerTool({ name: 'iframe_tool', description: 'Registered in a same-origin frame.', execute: () => 'iframe result' });
          await changed;
          /** @type {string[]} */
          const atCaller = [];
          /** @type {string[]} */
          const atFrame = [];
          mc.addEventListener('toolactivated', (/** @type {any} */ e) => atCaller.push(e.toolName));
          fmc.addEventListener('toolactivated', (/** @type {any} */ e) => atFrame.push(e.toolName));
          const tool = (await mc.getTools()).find((/** @type {any} */ t) => t.name === 'iframe_tool');
          const seen = { origin: tool?.origin, window: tool?.window === iframe.contentWindow };
          const result = await mc.executeTool(tool, {});
          // The frame goes: its tools go with it (byomcp also fires toolchange at the parent;
          // Chromium 156 does not).
          let heard = false;
          mc.addEventListener('toolchange', () => (heard = true));
          iframe.remove();
          let after = true;
          for (let i = 0; i < 200 && (after || (!native && !heard)); i++) {
            await new Promise((resolve) => setTimeout(resolve, 50));
            after = (await mc.getTools()).some((/** @type {any} */ t) => t.name === 'iframe_tool');
          }
          return { seen, result, atCaller, atFrame, after, heard };
        }, mode.native);
        assert.deepEqual(r.seen, { origin: site.url, window: true });
        assert.equal(r.result, 'iframe result');
        assert.deepEqual(r.atFrame, ['iframe_tool'], "toolactivated at the frame's model context");
        assert.deepEqual(r.atCaller, [], "none at the caller's");
        assert.equal(r.after, false, 'a removed frame takes its tools away');
        if (!mode.native) assert.equal(r.heard, true, 'and the parent hears of it');
      }));

    for (const [label, options] of /** @type {[string, any][]} */ ([
      ['default', undefined],
      ['empty', { exposedTo: [] }],
    ])) {
      test(`${label} exposedTo: the parent's tool is the same-origin frame's, and the frame's the parent's, toolchange both ways`, T, () =>
        withPage(async (_c, page) => {
          const r = await page.evaluate(async (options) => {
            const mc = /** @type {any} */ (document).modelContext;
            const iframe = document.createElement('iframe');
            iframe.src = '/wpt-frame.html';
            document.body.append(iframe);
            await new Promise((resolve) => (iframe.onload = resolve));
            const fmc = /** @type {any} */ (iframe.contentDocument).modelContext;
            const names = async (/** @type {any} */ m) => (await m.getTools()).map((/** @type {any} */ t) => t.name);
            const changeAt = (/** @type {any} */ m) => new Promise((resolve) => m.addEventListener('toolchange', () => resolve('fired'), { once: true }));
            // The parent's tool, seen and run from the frame.
            const parentReg = new AbortController();
            await mc.registerTool(
              {
                name: 'parent_tool',
                description: 'The parent page tool.',
                inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
                annotations: { readOnlyHint: true, untrustedContentHint: false },
                execute: async () => 'hello',
              },
              { ...options, signal: parentReg.signal },
            );
            const inFrame = (await fmc.getTools()).find((/** @type {any} */ t) => t.name === 'parent_tool');
            const fromFrame = {
              origin: inFrame?.origin,
              description: inFrame?.description,
              readOnly: inFrame?.annotations?.readOnlyHint,
              result: await fmc.executeTool(inFrame, {}),
            };
            const bothHeard = Promise.all([changeAt(fmc), changeAt(mc)]);
            parentReg.abort();
            const heard = await bothHeard;
            const frameAfter = (await names(fmc)).includes('parent_tool');
            // The frame's tool, seen and run from the parent.
            const frameReg = new AbortController();
            const parentHeard = changeAt(mc);
            await fmc.registerTool({ name: 'frame_tool', description: 'The frame page tool.', execute: () => 'hello from iframe' }, { ...options, signal: frameReg.signal });
            await parentHeard;
            const inParent = (await mc.getTools()).find((/** @type {any} */ t) => t.name === 'frame_tool');
            const fromParent = { origin: inParent?.origin, window: inParent?.window === iframe.contentWindow, result: await mc.executeTool(inParent) };
            const unregistered = changeAt(mc);
            frameReg.abort();
            await unregistered;
            const parentAfter = (await names(mc)).includes('frame_tool');
            iframe.remove();
            return { fromFrame, heard, frameAfter, fromParent, parentAfter };
          }, options);
          assert.deepEqual(r.fromFrame, { origin: site.url, description: 'The parent page tool.', readOnly: true, result: 'hello' });
          assert.deepEqual(r.heard, ['fired', 'fired'], 'the frame and the parent hear the unregistration');
          assert.equal(r.frameAfter, false);
          assert.deepEqual(r.fromParent, { origin: site.url, window: true, result: 'hello from iframe' });
          assert.equal(r.parentAfter, false);
        }));
    }

    test('a form its submit handler removes after respondWith(): the call rejects (UnknownError)', T, () =>
      withPage(async (_c, page) => {
        const r = await page.evaluate(async () => {
          const mc = /** @type {any} */ (document).modelContext;
          const tool = await /** @type {any} */ (window).__waitForTool('gone_form');
          const outcome = await mc.executeTool(tool, { note: 'hi' }).then(
            (/** @type {unknown} */ v) => `resolved ${v}`,
            (/** @type {any} */ e) => e.name,
          );
          return { outcome, submitted: /** @type {any} */ (window).__goneSubmitted === true, there: !!document.getElementById('gone-form') };
        });
        // WPT's form_removal_submit_crash expects the rejection; Chromium 156 resolves with the
        // respondWith value (seen here), byomcp rejects as the WPT test asks.
        assert.deepEqual(r, { outcome: mode.native ? 'resolved kept' : 'UnknownError', submitted: true, there: false });
      }));

    test('getTools() and executeTool() called before the widget has loaded (preload.js first) are answered', T, () =>
      withPage(async (_c, page) => {
        const early = await page.evaluate(() => /** @type {any} */ (window).__early);
        assert.equal(early.error, undefined);
        assert.ok(early.names.includes('early_tool'), `early_tool in ${early.names}`);
        assert.equal(early.result, 'early {"a":1}');
      }));

    test("the widget's agent runs a same-origin frame's tool (registered while the frame loads)", T, () =>
      withPage(async (_c, page) => {
        await page.evaluate(() => {
          const iframe = document.createElement('iframe');
          iframe.src = '/wpt-frame.html?preload=before&early=1';
          document.body.append(iframe);
        });
        await page.waitForFunction(() => /** @type {any} */ (window).byomcp.host.has('frame_booking'));
        await ask(page, 'look up my frame booking please');
        await page.locator(W.text).filter({ hasText: 'Result:' }).waitFor();
        await waitIdle(page);
        assert.match(await page.locator(W.text).last().innerText(), /booking B42 is confirmed \(answered by the frame\)/);
      }));
  });
}
