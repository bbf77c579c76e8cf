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

import { ToolHost, invalidState, TOOL_NAME_PATTERN, agentSchema, agentAnnotations, INVOCATION_FAILED, RECORDED_HINTS, HINTS, ERRORS, CARD_SCHEMA } from './tools.js';
import { toLogger } from './wsrpc.js';
import { startDeclarativeTools, fireToolEvent, FORM_TOOL, ToolActivatedEvent, ToolCancelEvent } from './declarative.js';

export { INVOCATION_FAILED, HINTS, ToolActivatedEvent, ToolCancelEvent };

/** Marks our implementation, across copies of this module. */
const MARK = Symbol.for('byomcp.modelContext');
// What the model contexts of the same-origin documents of a frame tree ask of each other
// (Symbol.for: a frame may run another copy of this module).
// (frames.js has the same names.)
const OWN = Symbol.for('byomcp.ownTools'); // () => [{tool, info}]: this document's tools
const RUN = Symbol.for('byomcp.runTool'); // (name, input, signal) => execute's value
const NOTIFY = Symbol.for('byomcp.treeChanged'); // () => void: another document's tools changed
const INNER = Symbol.for('byomcp.inner'); // () => what frames.js's mirror needs

/** @type {Promise<typeof import('./frames.js')>|null} */
let frames = null;

/**
 * frames.js (the frame tree's documents), imported once the page has frames or is one; null
 * until then.
 * @param {any} win
 */
function loadFrames(win) {
  try {
    if (!frames && (win?.length > 0 || (win?.parent && win.parent !== win))) frames = import('./frames.js');
  } catch {
    // a window that is going away
  }
  return frames;
}

/**
 * The model contexts of the same-origin documents of win's frame tree that are ours, self first.
 * @param {any} win
 * @param {any} self
 */
async function inTree(win, self) {
  const m = await loadFrames(win);
  return m ? m.contextsInTree(topOf(win), self) : [self];
}

/** @param {any} win */
function topOf(win) {
  try {
    return win?.top ?? null;
  } catch {
    return null;
  }
}




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
   * The tools of the frame tree's other documents, copied into the host for its agent (the
   * widget's model context only), by name; null where nothing is copied.
   * @type {Map<string, {sig: string, mc: any, handle: {unregister(): void}}>|null}
   */
  #mirrored = null;
  /** Set while copying those: the host's change is not one of this document's tools. */
  #quiet = false;
  /** Set between pagehide and pageshow: the document's tools are gone from the tree. */
  #gone = false;

  /**
   * @param {import('./tools.js').ToolHost} host
   * @param {{win?: any, mirror?: boolean}} [options] win: the window whose origin and window
   *   getTools() report; mirror: copy the tools of the same-origin documents of the frame tree
   *   into host (for the agent that reads host)
   */
  constructor(host, { win = globalThis, mirror = false } = {}) {
    super();
    this.#host = host;
    this.#win = win;
    host.addEventListener('change', () => {
      if (!this.#quiet) this.#changed();
    });
    if (mirror) {
      this.#mirrored = new Map();
      loadFrames(win)?.then((m) => m.mirror(this));
    }
    // A frame's document that goes (removed, navigated) takes its tools out of the tree.
    for (const [type, gone] of /** @type {const} */ ([['pagehide', true], ['pageshow', false]])) {
      win?.addEventListener?.(type, () => {
        if (this.#gone === gone) return;
        this.#gone = gone;
        this.#changed();
      });
    }
  }

  /** Tells this document and the other documents of the frame tree that its tools changed. */
  #changed() {
    setTimeout(() => this.dispatchEvent(new Event('toolchange')), 0);
    const top = topOf(this.#win); // now: a frame that is going away has none a moment later
    loadFrames(this.#win)?.then((m) => m.notifyTree(top, this));
  }

  /** Another document of the frame tree has other tools now. */
  [NOTIFY]() {
    setTimeout(() => this.dispatchEvent(new Event('toolchange')), 0);
    if (this.#mirrored) loadFrames(this.#win)?.then((m) => m.mirror(this));
  }

  /** What frames.js needs to copy the frame tree's tools into the host. */
  [INNER]() {
    return {
      host: this.#host,
      win: this.#win,
      mirrored: this.#mirrored,
      quietly: (/** @type {() => void} */ fn) => {
        this.#quiet = true;
        try {
          fn();
        } finally {
          this.#quiet = false;
        }
      },
    };
  }

  /**
   * This document's own tools, as getTools() reports them (tool) and as the host has them (info).
   * @returns {{tool: RegisteredTool, info: import('./tools.js').ToolInfo}[]}
   */
  [OWN]() {
    if (this.#gone) return [];
    const origin = originOf(this.#win);
    const window = this.#win?.window ?? this.#win;
    return this.#host
      .listTools()
      .filter((t) => !this.#mirrored?.has(t.name))
      .map((info) => {
        const own = this.#own.get(info.name);
        /** @type {RegisteredTool} */
        const tool = { name: info.name, title: info.title ?? '', description: info.description, origin, window };
        if (own) {
          if (own.schemaJson !== undefined) tool.inputSchema = JSON.parse(own.schemaJson);
        } else {
          tool.inputSchema = structuredCloneJSON(info.inputSchema);
        }
        if (info.annotations) tool.annotations = webmcpAnnotations(info.annotations);
        return { tool, info };
      });
  }

  /**
   * Runs this document's tool name with args (already converted) and the call's signal.
   * @param {string} name
   * @param {unknown} args
   * @param {AbortSignal} signal
   */
  [RUN](name, args, signal) {
    return this.#host.executeTool(name, args, { signal });
  }

  /**
   * Fires toolactivated at this model context and the window for a call of an imperative tool
   * that has started, and toolcancel when the call's signal aborts before it has settled.
   * @param {string} name
   * @param {AbortSignal|undefined} signal
   * @param {unknown} result what execute returned
   */
  #activated(name, signal, result) {
    const targets = [this, this.#win];
    fireToolEvent(targets, 'toolactivated', name);
    if (!signal || signal.aborted) return;
    let settled = false;
    Promise.resolve(result).then(
      () => (settled = true),
      () => (settled = true),
    );
    signal.addEventListener('abort', () => settled || fireToolEvent(targets, 'toolcancel', name), { once: true });
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
    const form = tool[FORM_TOOL] === true; // declarative.js fires its forms' events itself
    if (this.#host.has(def.name) && !this.#mirrored?.has(def.name)) throw invalidState(`Tool already registered: ${def.name}`);
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
    const name = def.name;
    // This document's tool takes the place of another document's of the same name.
    this.#quiet = true;
    try {
      this.#mirrored?.get(name)?.handle.unregister();
      this.#mirrored?.delete(name);
    } finally {
      this.#quiet = false;
    }
    const handle = this.#host.registerTool(
      {
        name: def.name,
        title: def.title,
        description: def.description,
        inputSchema: schema,
        annotations: agentAnnotations(def.annotations),
        // byomcp's own: the confirmation card's summary (_meta["byomcp/summary"]) and a form's labels.
        _meta: tool._meta && typeof tool._meta === 'object' && !Array.isArray(tool._meta) ? tool._meta : undefined,
        [CARD_SCHEMA]: tool[CARD_SCHEMA],
        execute: (args, client) => {
          const result = Reflect.apply(execute, undefined, [args, client]);
          if (!form) this.#activated(name, client?.signal, result);
          return result;
        },
      },
      { signal },
    );
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
   * The tools of this page as Chromium's getTools() gives them (sorted by name): this
   * document's and those of the other same-origin documents of its frame tree that have our
   * document.modelContext.
   * @returns {Promise<RegisteredTool[]>}
   */
  async getTools() {
    const tools = (await inTree(this.#win, this)).flatMap((mc) => mc[OWN]().map((/** @type {any} */ t) => t.tool));
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    await new Promise((resolve) => setTimeout(resolve, 0));
    return tools;
  }

  /**
   * Runs a tool as the draft's executeTool(tool, inputObject, {signal}) and Chromium's (from 156)
   * do: tool is an object from getTools() (of this document or of a same-origin document of its
   * frame tree), inputObject the input ({} when omitted), which goes to the tool as its JSON
   * serialization would parse. Resolves with the result serialized as Chromium does (JSON text
   * for objects, the string itself for strings); rejects with a TypeError for a malformed tool
   * or an input that is not an object (a string included, or what cannot be serialized), an
   * UnknownError DOMException for an unknown tool or a failed execute, and with the abort reason
   * when signal aborts first (the tool's own signal aborts a task later, with an AbortError).
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
    const name = String(tool.name);
    const win = tool.source ?? tool.window;
    // Before any await: an aborted signal or a bad input rejects at once, as in Chromium.
    signal?.throwIfAborted();
    const args = readInput(input);
    const mc = (await inTree(this.#win, this)).find((m) => m[OWN]().some((/** @type {any} */ t) => t.tool.name === name && t.tool.window === win && t.tool.origin === tool.origin));
    if (!mc) throw new DOMException(`Tool not found: ${name}`, 'UnknownError');
    signal?.throwIfAborted();
    const inner = new AbortController();
    const abort = () => setTimeout(() => inner.abort(new DOMException('The tool call was aborted.', 'AbortError')), 0);
    signal?.addEventListener('abort', abort, { once: true });
    let value;
    try {
      value = await untilAborted(Promise.resolve(mc[RUN](name, args, inner.signal)), signal);
    } catch (err) {
      if (signal?.aborted && err === signal.reason) throw err;
      throw new DOMException(err instanceof Error ? `${INVOCATION_FAILED}: ${err.message}` : INVOCATION_FAILED, 'UnknownError');
    } finally {
      if (!signal?.aborted) signal?.removeEventListener('abort', abort);
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
    if (this.#mirrored?.has(name) || !this.#host.unregisterTool(name)) throw invalidState(`unregisterTool: no tool named "${name}"`);
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
 * with it (when there is a DOM), the same-origin frames of the window that have no
 * document.modelContext get ours (each with its own ToolHost, now and when one loads), and it
 * is returned. With mirror, host (the agent's) also gets the tools of the frame tree's other
 * same-origin documents.
 * @param {import('./tools.js').ToolHost} host
 * @param {{win?: any, logger?: Partial<import('./wsrpc.js').Logger>, declarative?: boolean, mirror?: boolean}} [options]
 * @returns {any} the model context the page should use
 */
export function installModelContext(host, { win = globalThis, logger, declarative = true, mirror = true } = {}) {
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

  const mc = new ModelContext(host, { win, mirror });
  if (doc) define(doc, 'modelContext', mc, log);
  if (nav && (!navMC || stubs.includes(navMC))) define(nav, 'modelContext', mc, log);
  // Named here, not by C.name: the served bundle is minified, and renames classes.
  for (const [name, C] of /** @type {const} */ ([['ToolActivatedEvent', ToolActivatedEvent], ['ToolCancelEvent', ToolCancelEvent]])) {
    if (win && typeof win === 'object' && !(name in win)) Object.defineProperty(win, name, { value: C, configurable: true, writable: true });
  }
  replayQueued(stubs, mc, log);
  if (declarative && doc && typeof win.MutationObserver === 'function') startDeclarativeTools(mc, { win, logger: log });
  if (doc) watchFrames(win, log);
  return mc;
}

/**
 * Gives each same-origin frame of win that has no document.modelContext (or preload.js's
 * stand-in) ours, with its own ToolHost: those there now, and each document that loads in one
 * (before the page's own load listeners of that frame run). Its tools are the frame tree's
 * (getTools, executeTool and toolchange in every same-origin document of it: frames.js).
 * @param {any} win
 * @param {import('./wsrpc.js').Logger} log
 */
function watchFrames(win, log) {
  const adopt = (/** @type {any} */ w) => {
    try {
      const have = w.document.modelContext;
      if (have && !Array.isArray(have.__byomcpQueue)) return;
    } catch {
      return; // another origin
    }
    installModelContext(new ToolHost({ logger: log }), { win: w, logger: log, mirror: false });
  };
  for (let i = 0; i < (win.length ?? 0); i++) adopt(win[i]);
  win.document.addEventListener?.(
    'load',
    (/** @type {Event} */ e) => {
      const el = /** @type {any} */ (e.target);
      if (el?.localName === 'iframe' || el?.localName === 'frame') adopt(el.contentWindow);
    },
    true,
  );
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
    // preload.js's stand-in also queued getTools() and executeTool() calls, after the
    // registrations above (so they see those tools), and sends the next ones straight to mc.
    for (const k of ['getTools', 'executeTool']) {
      if (typeof mc[k] === 'function' && typeof stub[k] === 'function') stub[k] = (/** @type {any[]} */ ...a) => mc[k](...a);
    }
    for (const [k, args, resolve, reject] of Array.isArray(stub.__byomcpCalls) ? stub.__byomcpCalls.splice(0) : []) {
      if (typeof mc[k] !== 'function') reject(new TypeError(`document.modelContext.${k} is not a function`));
      else (async () => mc[k](...args))().then(resolve, reject);
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
 * 156 converts it (a TypeError for anything else, strings included, or for what JSON.stringify
 * refuses); {} when omitted.
 * @param {unknown} input
 * @returns {object}
 */
function readInput(input) {
  if (input === undefined) return {};
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
