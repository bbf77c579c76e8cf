// The conformance cases, run in a page whose document.modelContext is either
// @mcp-b/webmcp-polyfill (?polyfill=1) or byomcp's own (?agent=URL: modelcontext.js imported
// from the agent, with no widget). window.__report gets what each case observed; the test
// compares the two reports.
const q = new URLSearchParams(location.search);
if (q.get('agent')) {
  const { ToolHost } = await import(`${q.get('agent')}/byomcp/tools.js`);
  const { installModelContext } = await import(`${q.get('agent')}/byomcp/modelcontext.js`);
  installModelContext(new ToolHost());
}
const mc = /** @type {any} */ (document).modelContext;
const report = {};
const tick = () => new Promise((r) => setTimeout(r, 0));

/** What a promise did: {ok: value} or {error: name, message}. */
async function outcome(p) {
  try {
    return { ok: await p };
  } catch (err) {
    return { error: err?.name, message: String(err?.message ?? '') };
  }
}

let changes = 0;
mc.addEventListener('toolchange', () => changes++);
const noop = () => 'ok';

// registerTool: the promise and its rejections.
const circular = { type: 'object' };
circular.self = circular;
const bad = {
  'not an object': 42,
  'no name': { description: 'd', execute: noop },
  'no description': { name: 'x', execute: noop },
  'no execute': { name: 'x', description: 'd' },
  'empty name': { name: '', description: 'd', execute: noop },
  'bad name': { name: 'has space', description: 'd', execute: noop },
  'long name': { name: 'a'.repeat(129), description: 'd', execute: noop },
  'empty description': { name: 'x', description: '', execute: noop },
  'circular schema': { name: 'x', description: 'd', inputSchema: circular, execute: noop },
};
report.register = {};
for (const [what, tool] of Object.entries(bad)) report.register[what] = (await outcome(mc.registerTool(tool))).error;
const reason = new Error('aborted before');
const early = await outcome(mc.registerTool({ name: 'early', description: 'd', execute: noop }, { signal: AbortSignal.abort(reason) }));
report.register['aborted signal'] = early.message === reason.message ? 'the reason' : early;

const results = { text: 'found 3', obj: { count: 3 }, mcp: { content: [{ type: 'text', text: 'hi' }] }, num: 7, none: undefined, arr: [1, 'a'] };
report.registered = [];
for (const [name, value] of Object.entries(results)) {
  report.registered.push(await outcome(mc.registerTool({ name: `r_${name}`, description: `returns ${name}`, execute: () => value })));
}
await mc.registerTool({
  name: 'echo',
  title: 'Echo',
  description: 'Echoes its input.',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  annotations: { readOnlyHint: true, untrustedContentHint: true },
  execute: (input) => ({ got: input }),
});
await mc.registerTool({ name: 'boom', description: 'Throws.', execute: () => { throw new Error('kaput'); } });
await mc.registerTool({ name: 'slow', description: 'Never ends.', execute: () => new Promise(() => {}) });
report.duplicate = (await outcome(mc.registerTool({ name: 'echo', description: 'again', execute: noop }))).error;
const ac = new AbortController();
await mc.registerTool({ name: 'temp', description: 'Goes away.', execute: noop }, { signal: ac.signal });
await tick();
const before = changes;
ac.abort();
await tick();
await tick();
report.abortFiresToolchange = changes > before;

// getTools: RegisteredTool objects.
const tools = await mc.getTools();
report.tools = tools
  .filter((t) => t.name !== 'search_catalog')
  .map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema ?? null,
    annotations: t.annotations ? { readOnlyHint: t.annotations.readOnlyHint, untrustedContentHint: t.annotations.untrustedContentHint } : null,
    origin: t.origin === location.origin,
    window: t.window === window,
  }))
  .sort((a, b) => (a.name < b.name ? -1 : 1));
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));

// executeTool: results and errors. The one deliberate difference: the polyfill takes the input
// as JSON text (as Chromium until 154), ours as an object (as Chromium 156, which refuses text).
const input = (o) => (mc.__isWebMCPPolyfill ? JSON.stringify(o) : o);
report.results = {};
for (const name of Object.keys(results)) report.results[name] = await outcome(mc.executeTool(byName[`r_${name}`], input({})));
report.results.echo = await outcome(mc.executeTool(byName.echo, input({ q: 'lamp' })));
const err = (o) => ({ error: o.error, message: o.message.replace(/: .*/, '') });
// Text that is no JSON object: the polyfill's "Failed to parse input arguments", our TypeError.
report.textInput = {
  'bad JSON': err(await outcome(mc.executeTool(byName.echo, 'not json'))),
  'JSON string': err(await outcome(mc.executeTool(byName.echo, '"q"'))),
};
report.errors = {
  'throwing execute': await outcome(mc.executeTool(byName.boom, input({}))),
  'unknown tool': err(await outcome(mc.executeTool({ ...byName.echo, name: 'nope' }, input({})))),
  'a name, not a tool': err(await outcome(mc.executeTool('echo', input({})))),
  'another window': err(await outcome(mc.executeTool({ ...byName.echo, window: {} }, input({})))),
};
const stop = new AbortController();
const running = outcome(mc.executeTool(byName.slow, input({}), { signal: stop.signal }));
await tick();
const stopReason = new Error('stopped');
stop.abort(stopReason);
const stopped = await running;
report.errors.abort = stopped.message === stopReason.message ? 'the reason' : stopped;

// Declarative: the synthesized schema (projected: property names, types with integer as a
// number, enums, required) and an agent submission answered with respondWith.
const formTool = byName.search_catalog;
const project = (s) => ({
  type: s.type === 'integer' ? 'number' : s.type,
  ...(s.enum ? { enum: s.enum } : {}),
  ...(s.items ? { items: project(s.items) } : {}),
  ...(s.minimum !== undefined ? { minimum: s.minimum } : {}),
  ...(s.maximum !== undefined ? { maximum: s.maximum } : {}),
});
report.form = formTool
  ? {
      description: formTool.description,
      required: formTool.inputSchema.required,
      properties: Object.fromEntries(Object.entries(formTool.inputSchema.properties).map(([k, v]) => [k, project(v)])),
    }
  : null;
const form = document.getElementById('f');
form.addEventListener('submit', (e) => {
  if (!e.agentInvoked) return;
  e.preventDefault();
  const data = new FormData(form);
  e.respondWith(Promise.resolve({ query: data.get('query'), size: data.get('size'), color: data.get('color'), tags: data.getAll('tags'), gift: data.get('gift') }));
});
report.formResult = formTool ? await outcome(mc.executeTool(formTool, input({ query: 'lamp', size: 'M', color: 'blue', tags: ['sale'], gift: true }))) : null;
document.querySelector('[name=query]').setCustomValidity('Not sold here');
const invalid = formTool ? await outcome(mc.executeTool(formTool, input({ query: 'x' }))) : null;
report.formInvalid = invalid && { error: invalid.error, namesField: /query: Not sold here/.test(invalid.message) };

window.__report = report;
