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

import { invalidState, TOOL_NAME_PATTERN, agentSchema, agentAnnotations, INVOCATION_FAILED, RECORDED_HINTS, HINTS, ERRORS } from './tools.js';
import { toLogger } from './wsrpc.js';
import { startDeclarativeTools } from './declarative.js';

export { INVOCATION_FAILED, HINTS };

/** Marks our implementation, across copies of this module. */
const MARK = Symbol.for('byomcp.modelContext');




/** Chromium's (until 154) message for input text that is not a JSON object or array. */
export const BAD_INPUT = 'Failed to parse input arguments';



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
      // Now, so that tools registered from here on have their hints and errors noted; the reading
      // comes with foreign.js, which only such a page loads.
      recordHints(other);
      import('./foreign.js')
        .then((m) => m.mirror(other, host, log, doc))
        .catch((err) => log.warn('the page\'s document.modelContext could not be read:', err));
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
    // preload.js's stand-in also kept listeners: they go to mc, as what the page does with it next.
    if (typeof mc.addEventListener === 'function' && Array.isArray(stub.__byomcpListeners)) {
      for (const a of stub.__byomcpListeners.splice(0)) mc.addEventListener(...a);
      for (const k of ['addEventListener', 'removeEventListener', 'dispatchEvent', 'unregisterTool']) {
        if (typeof mc[k] === 'function') stub[k] = (/** @type {any[]} */ ...a) => mc[k](...a);
      }
    }
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
