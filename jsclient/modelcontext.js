// WebMCP's document.modelContext for byomcp, following the Community Group draft
// (webmachinelearning.github.io/webmcp): installs a compatible implementation backed by a
// ToolHost, or, when the browser (or another script such as @mcp-b/webmcp-polyfill) already
// provides one, reads its tools with getTools() and runs them with executeTool().
//
// Pages may register tools before this script has loaded with this inline snippet; the queued
// registrations are replayed into our implementation by installModelContext:
//
//   <script>
//     document.modelContext ??= {__byomcpQueue: [], registerTool(t, o) { this.__byomcpQueue.push([t, o]); }};
//   </script>

import { invalidState, TOOL_NAME_PATTERN } from './tools.js';
import { toLogger } from './wsrpc.js';
import { startDeclarativeTools, leftToVisitor, submitButton } from './declarative.js';

/** Marks our implementation, across copies of this module. */
const MARK = Symbol.for('byomcp.modelContext');

/**
 * The side table of another implementation (preload.js makes it too): tool name → the hints the
 * page registered, for those its getTools() leaves out (@mcp-b/webmcp-polyfill 5.1.0 reports
 * only readOnlyHint and untrustedContentHint).
 */
export const HINTS = Symbol.for('byomcp.hints');

/**
 * The other side table (preload.js makes it too): tool name → {message} of the last error its
 * execute threw, which Chromium's executeTool leaves out of its rejection.
 */
export const ERRORS = Symbol.for('byomcp.errors');

/** The hints recorded at registration, booleans only. */
const RECORDED_HINTS = ['consequentialHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

/** Chromium's (and @mcp-b/webmcp-polyfill's) message for an execute callback that threw. */
export const INVOCATION_FAILED = 'Tool was executed but the invocation failed. For example, the script function threw an error';

/** Chromium's (until 154) message for input text that is not a JSON object or array. */
export const BAD_INPUT = 'Failed to parse input arguments';

/** The draft's ToolAnnotations members, all booleans defaulting to false. */
const WEBMCP_HINTS = ['readOnlyHint', 'untrustedContentHint', 'consequentialHint'];

/** MCP's ToolAnnotations hints, carried to the agent when a page gives them. */
const MCP_HINTS = ['destructiveHint', 'idempotentHint', 'openWorldHint'];

/**
 * A tool as getTools() reports it (Chromium's RegisteredTool).
 * @typedef {object} RegisteredTool
 * @property {string} name
 * @property {string} title
 * @property {string} description
 * @property {object} [inputSchema] the schema the page registered
 * @property {{readOnlyHint: boolean, untrustedContentHint: boolean, consequentialHint: boolean}} [annotations]
 * @property {string} origin the page's origin
 * @property {any} window the window that registered the tool
 */

/**
 * @typedef {object} Registration what registerTool keeps beside the ToolHost entry
 * @property {string|undefined} schemaJson the registered inputSchema, serialized
 * @property {{unregister(): void}} handle
 */

/**
 * WebMCP model context backed by a ToolHost (document.modelContext when the page has none).
 * Dispatches 'toolchange' (and calls ontoolchange) in a task after each change of the host's
 * tools.
 */
export class ModelContext extends EventTarget {
  /** @type {import('./tools.js').ToolHost} */
  #host;
  /** @type {Map<string, Registration>} tools registered through this object */
  #own = new Map();
  /** @type {((event: Event) => unknown)|null} */
  #ontoolchange = null;
  /** @type {any} */
  #win;

  /**
   * @param {import('./tools.js').ToolHost} host
   * @param {{win?: any}} [options] the window whose origin and window getTools() report
   */
  constructor(host, { win = globalThis } = {}) {
    super();
    this.#host = host;
    this.#win = win;
    host.addEventListener('change', () => {
      setTimeout(() => this.dispatchEvent(new Event('toolchange')), 0);
    });
  }

  /** Always true: tells our implementation apart from native ones. */
  get [MARK]() {
    return true;
  }

  /** The draft's event handler attribute for 'toolchange'. */
  get ontoolchange() {
    return this.#ontoolchange;
  }

  set ontoolchange(handler) {
    const fn = typeof handler === 'function' ? handler : null;
    // Like an event handler attribute: the listener takes its place when first set.
    if (fn && !this.#ontoolchange) this.addEventListener('toolchange', this.#onToolchange);
    if (!fn) this.removeEventListener('toolchange', this.#onToolchange);
    this.#ontoolchange = fn;
  }

  /** @param {Event} e */
  #onToolchange = (e) => this.#ontoolchange?.call(this, e);

  /**
   * Registers a tool as the draft's registerTool(tool, options) does. The promise rejects with a
   * TypeError for a malformed descriptor (missing name, description or execute), an
   * InvalidStateError for a duplicate or invalid name or an empty description, the
   * serialization's error for an inputSchema that is not JSON, and the abort reason for an
   * already aborted signal. It resolves after the 'toolchange' event. Aborting the signal later
   * unregisters the tool.
   * @param {any} tool a ModelContextTool: {name, title?, description, inputSchema?, annotations?, execute}
   * @param {{signal?: AbortSignal, exposedTo?: string[]}} [options]
   * @returns {Promise<undefined>}
   */
  async registerTool(tool, options = {}) {
    const signal = options?.signal;
    const def = toDescriptor(tool);
    if (this.#host.has(def.name)) throw invalidState(`Tool already registered: ${def.name}`);
    if (def.name === '' || !TOOL_NAME_PATTERN.test(def.name)) {
      throw invalidState(`Tool "name" must be 1–128 characters of ASCII letters, digits, _ - or . (got ${JSON.stringify(def.name)})`);
    }
    if (def.description === '') throw invalidState(`Tool "description" of ${def.name} must be a non-empty string`);
    const schemaJson = def.inputSchema === undefined ? undefined : serializeSchema(def.inputSchema);
    signal?.throwIfAborted();
    if (Array.isArray(options?.exposedTo) && options.exposedTo.length > 0) {
      throw new DOMException('Exposing tools to other origins (exposedTo) needs native WebMCP', 'NotSupportedError');
    }
    const schema = schemaJson === undefined ? undefined : agentSchema(JSON.parse(schemaJson));
    const execute = def.execute;
    const handle = this.#host.registerTool(
      {
        name: def.name,
        title: def.title,
        description: def.description,
        inputSchema: schema,
        annotations: agentAnnotations(def.annotations),
        execute: (args, client) => Reflect.apply(execute, undefined, [args, client]),
      },
      { signal },
    );
    const name = def.name;
    const reg = { schemaJson, handle };
    this.#own.set(name, reg);
    signal?.addEventListener(
      'abort',
      () => {
        if (this.#own.get(name) === reg) this.#own.delete(name);
      },
      { once: true },
    );
    // The change event queued the 'toolchange' task first: resolve after it, as the draft does.
    await new Promise((resolve) => setTimeout(resolve, 0));
    signal?.throwIfAborted();
    return undefined;
  }

  /**
   * The tools of this page as Chromium's getTools() gives them (sorted by name).
   * @returns {Promise<RegisteredTool[]>}
   */
  async getTools() {
    const origin = originOf(this.#win);
    const tools = this.#host.listTools().map((t) => {
      const own = this.#own.get(t.name);
      /** @type {RegisteredTool} */
      const out = { name: t.name, title: t.title ?? '', description: t.description, origin, window: this.#win?.window ?? this.#win };
      if (own) {
        if (own.schemaJson !== undefined) out.inputSchema = JSON.parse(own.schemaJson);
      } else {
        out.inputSchema = structuredCloneJSON(t.inputSchema);
      }
      if (t.annotations) out.annotations = webmcpAnnotations(t.annotations);
      return out;
    });
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    await new Promise((resolve) => setTimeout(resolve, 0));
    return tools;
  }

  /**
   * Runs a tool as the draft's executeTool(tool, inputObject, {signal}) and Chromium's (from 155)
   * do: tool is an object from getTools(), inputObject the input ({} when omitted), which goes
   * to the tool as its JSON serialization would parse. JSON text, which Chromium until 154 and
   * @mcp-b/webmcp-polyfill 5 take instead, is read as the input too. Resolves with the result
   * serialized as Chromium does (JSON text for objects, the string itself for strings); rejects
   * with a TypeError for a malformed tool or an input that is not an object (or cannot be
   * serialized), an UnknownError DOMException for an unknown tool, text that is not a JSON object
   * or a failed execute, and with the abort reason when signal aborts first.
   * @param {any} tool
   * @param {unknown} [input]
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<string>}
   */
  async executeTool(tool, input, options = {}) {
    const signal = options?.signal;
    if (tool === null || typeof tool !== 'object') throw new TypeError('RegisteredTool must be an object');
    for (const key of ['name', 'description', 'origin']) {
      if (!(key in tool)) throw new TypeError(`RegisteredTool.${key} is required`);
    }
    if (!('window' in tool) && !('source' in tool)) throw new TypeError('RegisteredTool.window is required');
    const win = this.#win?.window ?? this.#win;
    if (tool.origin !== originOf(this.#win) || (tool.source ?? tool.window) !== win) {
      throw new DOMException(`Tool not found: ${tool.name}`, 'UnknownError');
    }
    signal?.throwIfAborted();
    const name = String(tool.name);
    if (!this.#host.has(name)) throw new DOMException(`Tool not found: ${name}`, 'UnknownError');
    const args = readInput(input);
    const run = this.#host.executeTool(name, args, { signal: signal ?? new AbortController().signal });
    let value;
    try {
      value = await untilAborted(run, signal);
    } catch (err) {
      if (signal?.aborted && err === signal.reason) throw err;
      throw new DOMException(err instanceof Error ? `${INVOCATION_FAILED}: ${err.message}` : INVOCATION_FAILED, 'UnknownError');
    }
    return serializeResult(value);
  }

  /**
   * Unregisters a tool by name or tool object (earlier drafts; the current one unregisters by
   * aborting the registration's signal). Throws an InvalidStateError when there is no such tool.
   * @param {string|{name: string}} nameOrTool
   */
  unregisterTool(nameOrTool) {
    const name = typeof nameOrTool === 'string' ? nameOrTool : nameOrTool?.name;
    this.#own.delete(name);
    if (!this.#host.unregisterTool(name)) throw invalidState(`unregisterTool: no tool named "${name}"`);
  }

  /**
   * Replaces the tools registered through this object with tools (earlier drafts).
   * @param {{tools?: any[]}} [context]
   * @returns {Promise<void>} settles when every tool is registered; rejects with the first error
   */
  provideContext({ tools = [] } = {}) {
    this.clearContext();
    return Promise.all(tools.map((t) => this.registerTool(t))).then(() => undefined);
  }

  /** Unregisters every tool registered through this object (earlier drafts). */
  clearContext() {
    const regs = [...this.#own.values()];
    this.#own.clear();
    for (const r of regs) r.handle.unregister();
  }
}

/**
 * Makes document.modelContext feed host. If another implementation is there (native, or from
 * another script; navigator.modelContext is read only when document.modelContext is absent) and
 * can be read (getTools and executeTool), its tools are mirrored into host and it is returned.
 * Otherwise our implementation is installed at document.modelContext (and navigator.modelContext
 * when absent), the pre-load queue is replayed into it, declarative form tools are registered
 * with it (when there is a DOM), and it is returned.
 * @param {import('./tools.js').ToolHost} host
 * @param {{win?: any, logger?: Partial<import('./wsrpc.js').Logger>, declarative?: boolean}} [options]
 * @returns {any} the model context the page should use
 */
export function installModelContext(host, { win = globalThis, logger, declarative = true } = {}) {
  const log = toLogger(logger);
  const doc = win?.document;
  const nav = win?.navigator;
  const docMC = doc?.modelContext;
  // navigator.modelContext is deprecated (reading the polyfill's logs a warning): only when
  // document.modelContext is absent or our pre-load stub.
  const navMC = nav && (!docMC || Array.isArray(docMC.__byomcpQueue)) ? nav.modelContext : undefined;
  const candidates = [docMC, navMC].filter((c) => c && typeof c === 'object');
  const ours = candidates.find((c) => c[MARK] === true);
  if (ours) return ours;
  const stubs = [...new Set(candidates.filter((c) => Array.isArray(c.__byomcpQueue)))];
  const other = candidates.find((c) => !Array.isArray(c.__byomcpQueue));
  if (other) {
    if (typeof other.getTools === 'function' && typeof other.executeTool === 'function') {
      mirror(other, host, log, doc);
    } else {
      log.warn('document.modelContext is provided by the browser or another script and cannot be read (no getTools/executeTool); its tools stay invisible to the agent');
    }
    // The pre-load stub at document.modelContext while another implementation is only at
    // navigator.modelContext: what the page queued goes to that one.
    if (typeof other.registerTool === 'function') replayQueued(stubs, other, log);
    return other;
  }

  const mc = new ModelContext(host, { win });
  if (doc) define(doc, 'modelContext', mc, log);
  if (nav && (!navMC || stubs.includes(navMC))) define(nav, 'modelContext', mc, log);
  replayQueued(stubs, mc, log);
  if (declarative && doc && typeof win.MutationObserver === 'function') startDeclarativeTools(mc, { win, logger: log });
  return mc;
}

/**
 * Registers with mc what the pre-load stubs queued; a page script may still hold a stub, so its
 * later registrations go straight to mc.
 * @param {any[]} stubs
 * @param {any} mc
 * @param {import('./wsrpc.js').Logger} log
 */
function replayQueued(stubs, mc, log) {
  for (const stub of stubs) {
    const queue = stub.__byomcpQueue.splice(0);
    stub.registerTool = (/** @type {any} */ t, /** @type {any} */ o) => mc.registerTool(t, o);
    for (const [tool, options] of queue) {
      // Called now (an async function runs to its first await); a throw becomes a rejection.
      (async () => mc.registerTool(tool, options))().catch((err) => {
        if (options?.signal?.aborted && err === options.signal.reason) return;
        log.warn(`queued tool ${JSON.stringify(tool?.name)} was not registered:`, err);
      });
    }
  }
}

/**
 * Keeps host's copy of other's tools in step: now and on each 'toolchange'. Calls go to
 * other.executeTool with the RegisteredTool object getTools() gave, the arguments (executeOther)
 * and the call's signal (aborted when the agent cancels, times out or the page goes). The hints
 * getTools() leaves out come from other's side table (recordHints; preload.js may have started
 * it before other's first registration).
 * @param {any} other
 * @param {import('./tools.js').ToolHost} host
 * @param {import('./wsrpc.js').Logger} log
 */
function mirror(other, host, log, doc) {
  const hints = recordHints(other);
  /** @type {Map<string, {sig: string, handle: {unregister(): void}, raw: any}>} */
  const mirrored = new Map();
  /** @type {Promise<void>|null} */
  let running = null;
  let again = false;

  const syncOnce = async () => {
    let tools;
    try {
      tools = await other.getTools();
    } catch (err) {
      log.warn('modelContext.getTools failed:', err);
      return;
    }
    const seen = new Set();
    for (const raw of Array.isArray(tools) ? tools : []) {
      const def = readTool(raw, hints);
      if (!def) {
        log.warn('modelContext tool skipped (no usable name or schema):', raw);
        continue;
      }
      seen.add(def.name);
      const sig = JSON.stringify([def.title, def.description, def.inputSchema ?? null, def.annotations ?? null]);
      const cur = mirrored.get(def.name);
      if (cur && cur.sig === sig && host.has(def.name)) {
        cur.raw = raw; // the newest object is the one executeTool knows
        continue;
      }
      cur?.handle.unregister();
      mirrored.delete(def.name);
      try {
        /** @type {{sig: string, handle: {unregister(): void}, raw: any}} */
        const m = { sig, raw, handle: { unregister() {} } };
        m.handle = host.registerTool({
          ...def,
          execute: async (args, client) => {
            const form = waitingForm(doc, def.name);
            if (form) return fillOnly(other, m.raw, form, args ?? {}, client.signal);
            return readResult(await executeOther(other, m.raw, args ?? {}, client.signal));
          },
        });
        mirrored.set(def.name, m);
      } catch (err) {
        log.warn(`modelContext tool ${JSON.stringify(def.name)} not mirrored:`, err);
      }
    }
    for (const [name, m] of [...mirrored]) {
      if (seen.has(name)) continue;
      m.handle.unregister();
      mirrored.delete(name);
    }
  };

  const sync = () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await syncOnce();
      } while (again);
    })().finally(() => {
      running = null;
    });
    return running;
  };

  if (typeof other.addEventListener === 'function') other.addEventListener('toolchange', () => void sync());
  void sync();
}

/**
 * Runs a tool through other.executeTool with its input as an object, as the WebMCP draft and
 * Chromium from 155 take it. Chromium until 154 took JSON text: it refuses an object ("Failed to
 * parse input arguments") before the tool runs, and is then given the text. A tool that ran and
 * failed, or a cancelled call, is never tried again.
 * @param {any} other
 * @param {any} tool what other's getTools() gave
 * @param {object} args
 * @param {AbortSignal} signal
 */
async function executeOther(other, tool, args, signal) {
  /** @type {Map<string, {message: string}>|undefined} */
  const errors = other[ERRORS];
  const name = String(tool.name);
  const before = errors?.get(name);
  try {
    try {
      return await other.executeTool(tool, args, { signal });
    } catch (err) {
      if (signal.aborted || !String(/** @type {any} */ (err)?.message).startsWith('Failed to parse input')) throw err;
    }
    return await other.executeTool(tool, JSON.stringify(args), { signal });
  } catch (err) {
    // Chromium's rejection does not say what the tool threw; its registerTool noted it.
    const noted = errors?.get(name);
    if (noted && noted !== before && /** @type {any} */ (err)?.message === INVOCATION_FAILED) {
      throw new DOMException(`${INVOCATION_FAILED}: ${noted.message}`, 'UnknownError');
    }
    throw err;
  }
}

/**
 * The page's declarative form tool name when it has no toolautosubmit (the visitor sends it).
 * @param {any} doc
 * @param {string} name
 * @returns {HTMLFormElement|null}
 */
function waitingForm(doc, name) {
  const form = doc?.querySelector?.(`form[toolname="${name}"]`); // names are [A-Za-z0-9_.-]
  return form && !form.hasAttribute('toolautosubmit') ? form : null;
}

/**
 * Runs a form tool without toolautosubmit through another implementation as ours does: fills
 * the form and answers that it waits for the visitor. Chromium's executeTool fills it, fires
 * 'toolactivated' and then waits for the visitor's submit; once the form is filled (and the
 * values were not refused) that call is cancelled, so the visitor's submit is their own.
 * @param {any} other
 * @param {any} tool
 * @param {HTMLFormElement} form
 * @param {Record<string, unknown>} args
 * @param {AbortSignal} signal
 */
async function fillOnly(other, tool, form, args, signal) {
  const ac = new AbortController();
  const stop = () => ac.abort(signal.reason);
  signal.addEventListener('abort', stop, { once: true });
  /** @type {() => void} */
  let onActivated = () => {};
  /** @type {Promise<null>} */
  const activated = new Promise((resolve) => {
    onActivated = () => setTimeout(() => resolve(null), 0); // a refused value rejects the call just after
  });
  const listener = (/** @type {any} */ e) => e.toolName === tool.name && onActivated();
  // At the model context (Chromium) or the window (@mcp-b/webmcp-polyfill).
  const targets = [other, form.ownerDocument?.defaultView].filter((t) => typeof t?.addEventListener === 'function');
  for (const t of targets) t.addEventListener('toolactivated', listener);
  const run = executeOther(other, tool, args, ac.signal);
  try {
    const answer = await Promise.race([run.then((value) => ({ value })), activated]);
    if (answer) return readResult(/** @type {{value: unknown}} */ (answer).value); // it answered at once
  } finally {
    for (const t of targets) t.removeEventListener('toolactivated', listener);
    signal.removeEventListener('abort', stop);
  }
  run.catch(() => {}); // cancelled below: the visitor sends the form
  ac.abort(new DOMException('filled; the visitor sends the form', 'AbortError'));
  submitButton(form)?.focus?.();
  return leftToVisitor(form, String(tool.name), Object.keys(args));
}

/**
 * Makes mc (another implementation) record the hints of each tool registered through it from
 * now on: registerTool becomes an own property, shadowing the prototype's, that notes the tool's
 * hints in mc[HINTS], gives the original (with the same this and arguments) the tool with an
 * execute that notes what it throws in mc[ERRORS] (noteErrors), and returns
 * what it returns. preload.js does the same (the same Symbol.for keys) when it runs after such
 * an implementation; this keeps the table it made. Returns the table, or null when mc cannot be
 * changed.
 * @param {any} mc
 * @returns {Map<string, Record<string, boolean>>|null}
 */
export function recordHints(mc) {
  const have = mc[HINTS];
  if (have && typeof have.get === 'function') return have;
  const real = mc.registerTool;
  if (typeof real !== 'function') return null;
  /** @type {Map<string, Record<string, boolean>>} */
  const table = new Map();
  /** @type {Map<string, {message: string}>} */
  const errors = new Map();
  try {
    Object.defineProperty(mc, 'registerTool', {
      configurable: true,
      writable: true,
      value: function registerTool(/** @type {any[]} */ ...args) {
        noteHints(table, args[0], args[1]);
        args[0] = noteErrors(errors, args[0]);
        return Reflect.apply(real, this, args);
      },
    });
    Object.defineProperty(mc, ERRORS, { configurable: true, value: errors });
    Object.defineProperty(mc, HINTS, { configurable: true, value: table });
  } catch {
    return null; // a frozen object: its getTools() is all there is
  }
  return table;
}

/**
 * tool as a proxy whose execute notes in errors what it throws or rejects with; everything else
 * is tool's own (read from tool, so its getters and private fields work, and spreading it copies
 * what spreading tool would). A frozen execute cannot be replaced: such a tool is left as it is.
 * @param {Map<string, {message: string}>} errors
 * @param {any} tool
 */
function noteErrors(errors, tool) {
  const run = tool?.execute;
  const own = typeof run === 'function' && Object.getOwnPropertyDescriptor(tool, 'execute');
  if (typeof run !== 'function' || (own && !own.configurable && !own.writable)) return tool;
  const seen = (/** @type {unknown} */ err) => {
    errors.set(String(tool.name), { message: err instanceof Error ? err.message : String(err) });
    throw err;
  };
  const execute = function (/** @type {any[]} */ ...args) {
    let r;
    try {
      r = Reflect.apply(run, this, args);
    } catch (err) {
      seen(err);
    }
    return typeof r?.then === 'function' ? r.then(undefined, seen) : r;
  };
  return new Proxy(tool, { get: (t, key) => (key === 'execute' ? execute : Reflect.get(t, key)) });
}

/**
 * Notes tool's hints (booleans only) in table until its registration's signal aborts. A name
 * still in the table keeps destructiveHint and consequentialHint true: a second registration
 * under a registered name fails, and must not weaken the hints of the tool that stays.
 * @param {Map<string, Record<string, boolean>>} table
 * @param {any} tool
 * @param {any} options
 */
function noteHints(table, tool, options) {
  try {
    const signal = options?.signal;
    if (!tool || typeof tool !== 'object' || signal?.aborted) return;
    const name = String(tool.name);
    const a = tool.annotations;
    /** @type {Record<string, boolean>} */
    const hints = {};
    for (const k of RECORDED_HINTS) if (a && typeof a === 'object' && typeof a[k] === 'boolean') hints[k] = a[k];
    const prev = table.get(name);
    if (prev?.destructiveHint) hints.destructiveHint = true;
    if (prev?.consequentialHint) hints.consequentialHint = true;
    table.set(name, hints);
    signal?.addEventListener('abort', () => table.get(name) === hints && table.delete(name), { once: true });
  } catch {
    // A malformed tool: the implementation rejects it itself.
  }
}

/**
 * Reads one tool from another implementation's getTools(). Properties are read one by one (a
 * Chromium Tool is an interface object: spreading or JSON.stringify sees nothing); inputSchema
 * may be null, an object, or JSON text (earlier Chromium). The recorded hints fill in those
 * getTools() did not report (its own values win).
 * @param {any} raw
 * @param {Map<string, Record<string, boolean>>|null} [recorded] the side table (recordHints)
 * @returns {{name: string, title?: string, description: string, inputSchema?: object, annotations?: Record<string, unknown>}|null}
 */
function readTool(raw, recorded) {
  if (!raw || typeof raw !== 'object' || typeof raw.name !== 'string') return null;
  /** @type {{name: string, title?: string, description: string, inputSchema?: object, annotations?: Record<string, unknown>}} */
  const def = { name: raw.name, description: typeof raw.description === 'string' ? raw.description : '' };
  if (typeof raw.title === 'string' && raw.title !== '') def.title = raw.title;
  let schema = raw.inputSchema;
  if (typeof schema === 'string' && schema !== '') {
    try {
      schema = JSON.parse(schema);
    } catch {
      return null;
    }
  }
  if (schema && typeof schema === 'object' && !Array.isArray(schema)) def.inputSchema = withoutEmptyChoices(agentSchema(schema));
  const ann = agentAnnotations(withRecorded(raw.annotations, recorded?.get(raw.name)));
  if (ann) def.annotations = ann;
  return def;
}

/**
 * The annotations getTools() reported, with the recorded hints it left out added.
 * @param {any} reported
 * @param {Record<string, boolean>|undefined} hints
 */
function withRecorded(reported, hints) {
  const a = reported && typeof reported === 'object' ? reported : null;
  const missing = hints ? RECORDED_HINTS.filter((k) => k in hints && (a?.[k] ?? null) === null) : [];
  if (missing.length === 0) return reported;
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const k of ['title', ...WEBMCP_HINTS, ...MCP_HINTS]) if (a && a[k] !== undefined) out[k] = a[k];
  for (const k of missing) out[k] = /** @type {Record<string, boolean>} */ (hints)[k];
  return out;
}

/**
 * What another implementation's executeTool resolved with, as a value for the ToolHost: a
 * string holding a JSON object or array (Chromium and the polyfill serialize results) is parsed,
 * so an MCP result stays one; any other string is text; anything else passes as it is.
 * @param {unknown} value
 */
export function readResult(value) {
  if (typeof value !== 'string') return value;
  const s = value.trimStart();
  if (s.startsWith('{') || s.startsWith('[')) {
    try {
      return JSON.parse(value);
    } catch {
      // Not JSON after all: text.
    }
  }
  return value;
}

/**
 * Converts a ModelContextTool the way WebIDL converts the draft's dictionary: TypeError for a
 * non-object, a missing name or description, or an execute that is not callable.
 * @param {any} tool
 */
function toDescriptor(tool) {
  if (tool === null || (typeof tool !== 'object' && typeof tool !== 'function')) throw new TypeError('registerTool(tool) requires a tool object');
  const { name, title, description, inputSchema, annotations, execute } = tool;
  if (name === undefined) throw new TypeError('Tool "name" is required');
  if (description === undefined) throw new TypeError('Tool "description" is required');
  if (typeof execute !== 'function') throw new TypeError('Tool "execute" must be a function');
  if (inputSchema !== undefined && (inputSchema === null || (typeof inputSchema !== 'object' && typeof inputSchema !== 'function'))) {
    throw new TypeError('inputSchema must be an object');
  }
  if (annotations !== undefined && annotations !== null && typeof annotations !== 'object') throw new TypeError('annotations must be an object');
  return {
    name: domString(name),
    title: title === undefined ? undefined : domString(title),
    description: domString(description),
    inputSchema,
    annotations: annotations ?? undefined,
    execute,
  };
}

/** @param {unknown} v */
function domString(v) {
  if (typeof v === 'symbol') throw new TypeError('Symbol values cannot be converted to a string');
  return String(v);
}

/**
 * The draft's "serialize a JavaScript value to a JSON string" of the inputSchema.
 * @param {unknown} schema
 */
function serializeSchema(schema) {
  const json = JSON.stringify(schema);
  if (json === undefined) throw new TypeError('inputSchema must be JSON-serializable');
  return json;
}

/**
 * The schema the agent gets: an object schema ({} and a schema without type mean an object).
 * @param {unknown} schema parsed JSON
 */
function agentSchema(schema) {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new TypeError('inputSchema must be a JSON Schema object');
  const s = /** @type {Record<string, unknown>} */ (schema);
  if (Object.keys(s).length === 0) return { type: 'object', properties: {} };
  return s.type === undefined ? { type: 'object', ...s } : s;
}

/**
 * schema without the properties that offer an empty choice: Chromium synthesizes a form's
 * schema when it sees the form, and a <select> whose options the page adds later gives
 * `anyOf: []`, which is not valid JSON Schema (the agent would refuse the whole tool). No value
 * could be given there anyway; the property comes back with the form's next 'toolchange'.
 * @param {Record<string, any>} schema
 */
function withoutEmptyChoices(schema) {
  const props = schema.properties;
  if (!props || typeof props !== 'object') return schema;
  const empty = Object.keys(props).filter((k) => noChoice(props[k]));
  if (!empty.length) return schema;
  const properties = { ...props };
  for (const k of empty) delete properties[k];
  const out = { ...schema, properties };
  if (Array.isArray(schema.required)) out.required = schema.required.filter((/** @type {string} */ k) => !empty.includes(k));
  return out;
}

/** @param {any} p a property's schema: its anyOf or oneOf (or its items') is empty */
function noChoice(p) {
  return !!p && typeof p === 'object' && (['anyOf', 'oneOf'].some((k) => Array.isArray(p[k]) && p[k].length === 0) || noChoice(p.items));
}

/**
 * The annotations the agent gets (MCP's ToolAnnotations plus WebMCP's hints, booleans only;
 * title as a string), or undefined when the tool has none.
 * @param {unknown} annotations
 * @returns {Record<string, unknown>|undefined}
 */
function agentAnnotations(annotations) {
  if (!annotations || typeof annotations !== 'object') return undefined;
  const a = /** @type {Record<string, unknown>} */ (annotations);
  /** @type {Record<string, unknown>} */
  const out = {};
  if (typeof a.title === 'string') out.title = a.title;
  for (const k of WEBMCP_HINTS) out[k] = a[k] === true;
  for (const k of MCP_HINTS) if (a[k] !== undefined && a[k] !== null) out[k] = Boolean(a[k]);
  return out;
}

/**
 * The draft's ToolAnnotations of a tool, as getTools() reports them.
 * @param {Record<string, unknown>} a
 */
function webmcpAnnotations(a) {
  return { readOnlyHint: a.readOnlyHint === true, untrustedContentHint: a.untrustedContentHint === true, consequentialHint: a.consequentialHint === true };
}

/**
 * The input of executeTool: an object (arrays too) as its JSON serialization parses, as Chromium
 * converts it (a TypeError for anything else, or for what JSON.stringify refuses); {} when
 * omitted; JSON text of an object or array (Chromium until 154), else an UnknownError.
 * @param {unknown} input
 * @returns {object}
 */
function readInput(input) {
  if (input === undefined) return {};
  if (typeof input === 'string') {
    try {
      const v = JSON.parse(input);
      if (v !== null && typeof v === 'object') return v;
    } catch {
      // reported below
    }
    throw new DOMException(BAD_INPUT, 'UnknownError');
  }
  if (input === null || (typeof input !== 'object' && typeof input !== 'function')) throw new TypeError('invalid input object: value is not an object');
  let json;
  try {
    json = JSON.stringify(input);
  } catch (err) {
    throw new TypeError(`invalid input object: ${err instanceof Error ? err.message : err}`);
  }
  const v = json === undefined ? undefined : JSON.parse(json);
  if (v === null || typeof v !== 'object') throw new TypeError('invalid input object: toJSON() returns no object');
  return v;
}

/**
 * Chromium's serialization of a tool's result: objects as JSON text, anything else as a string
 * ("Operation succeeded" when that is empty).
 * @param {unknown} value
 */
function serializeResult(value) {
  if ((typeof value === 'object' && value !== null) || typeof value === 'function') {
    try {
      const json = JSON.stringify(value);
      if (json) return json;
    } catch {
      // falls back to String below
    }
  }
  return String(value) || 'Operation succeeded';
}

/**
 * Settles like p, or rejects with the abort reason when signal aborts first.
 * @template T
 * @param {Promise<T>} p
 * @param {AbortSignal|undefined} signal
 * @returns {Promise<T>}
 */
function untilAborted(p, signal) {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** @param {any} win */
function originOf(win) {
  if (typeof win?.origin === 'string') return win.origin;
  return win?.location?.origin ?? '';
}

/** @param {unknown} v */
function structuredCloneJSON(v) {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

/**
 * Sets obj[key] = value, also where the property is not plainly writable.
 * @param {any} obj
 * @param {string} key
 * @param {unknown} value
 * @param {import('./wsrpc.js').Logger} log
 */
function define(obj, key, value, log) {
  try {
    obj[key] = value;
  } catch {
    // Read-only accessor or frozen object: try defineProperty below.
  }
  if (obj[key] === value) return;
  try {
    Object.defineProperty(obj, key, { value, configurable: true, writable: true, enumerable: true });
  } catch (err) {
    log.warn(`cannot install ${key}:`, err);
  }
}
