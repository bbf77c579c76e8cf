// byomcp preload: a tiny classic script for the <head>, before any script that registers tools.
// It makes document.modelContext usable at once: registrations (and getTools()/executeTool()
// calls) are queued until widget.js has loaded, then made for real (see installModelContext in
// modelcontext.js).
//
// A page whose browser or other library (such as @mcp-b/webmcp-polyfill, loaded before this
// script) already provides document.modelContext keeps it; this script only makes that object's
// registerTool note each tool's hints (destructiveHint, consequentialHint, idempotentHint,
// openWorldHint) in a side table before calling the original, since its getTools() may leave
// them out, and what the tool's execute throws, since Chromium's executeTool leaves that out.
// modelcontext.js (recordHints) reads the tables, and does the same when they are absent.
//
//   <script src="https://AGENT-HOST/byomcp/preload.js"></script>
(function () {
  'use strict';
  if (typeof document === 'undefined') return;
  var mc = document.modelContext;
  if (!mc) {
    // An EventTarget, as ModelContext is: listeners wait in __byomcpListeners and are added to
    // the widget's ModelContext when it replaces this stand-in (replayQueued in modelcontext.js).
    var stub = typeof EventTarget === 'function' ? new EventTarget() : {};
    var queue = (stub.__byomcpQueue = []);
    var heard = (stub.__byomcpListeners = []);
    // Refuses at once what registerTool (modelcontext.js) would refuse, with the same errors,
    // so that a page's `await registerTool(...)` sees them before the widget has loaded.
    stub.registerTool = function (tool, options) {
      try {
        refuse(tool, options, queue);
      } catch (e) {
        return Promise.reject(e);
      }
      queue.push([tool, options]);
      return Promise.resolve();
    };
    // Earlier drafts' unregisterTool(name or tool): takes a queued registration back.
    stub.unregisterTool = function (t) {
      var name = String(typeof t === 'string' ? t : t && t.name);
      var i = queued(queue, name);
      if (i < 0) throw new DOMException('unregisterTool: no tool named "' + name + '"', 'InvalidStateError');
      queue.splice(i, 1);
    };
    // getTools() and executeTool() wait for the widget's ModelContext, then are its own calls.
    var calls = (stub.__byomcpCalls = []);
    ['getTools', 'executeTool'].forEach(function (k) {
      stub[k] = function () {
        var args = Array.prototype.slice.call(arguments);
        return new Promise(function (resolve, reject) {
          calls.push([k, args, resolve, reject]);
        });
      };
    });
    stub.addEventListener = function (type, listener, options) {
      if (listener != null && heardAt(type, listener, options) < 0 && !(options && options.signal && options.signal.aborted)) heard.push([String(type), listener, options]);
    };
    stub.removeEventListener = function (type, listener, options) {
      var i = heardAt(type, listener, options);
      if (i >= 0) heard.splice(i, 1);
    };
    document.modelContext = stub;
    return;
  }
  // A listener is the same one for the same type, function and capture flag, as in the DOM.
  function heardAt(type, listener, options) {
    for (var i = 0; i < heard.length; i++) {
      if (heard[i][0] === String(type) && heard[i][1] === listener && capture(heard[i][2]) === capture(options)) return i;
    }
    return -1;
  }
  function capture(o) {
    return !!(o && typeof o === 'object' ? o.capture : o);
  }
  // The index of the live queued registration of name, or -1.
  function queued(queue, name) {
    for (var i = 0; i < queue.length; i++) {
      var s = queue[i][1] && queue[i][1].signal;
      if (String(queue[i][0].name) === name && !(s && s.aborted)) return i;
    }
    return -1;
  }
  function refuse(tool, options, queue) {
    if (tool === null || (typeof tool !== 'object' && typeof tool !== 'function')) throw new TypeError('registerTool(tool) requires a tool object');
    if (tool.name === undefined) throw new TypeError('Tool "name" is required');
    if (tool.description === undefined) throw new TypeError('Tool "description" is required');
    if (typeof tool.execute !== 'function') throw new TypeError('Tool "execute" must be a function');
    var schema = tool.inputSchema;
    if (schema !== undefined && (schema === null || (typeof schema !== 'object' && typeof schema !== 'function'))) throw new TypeError('inputSchema must be an object');
    if (schema !== undefined) JSON.stringify(schema); // a cycle throws its TypeError
    var name = String(tool.name);
    if (queued(queue, name) >= 0) throw new DOMException('Tool already registered: ' + name, 'InvalidStateError');
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(name)) throw new DOMException('Tool "name" must be 1–128 characters of ASCII letters, digits, _ - or . (got ' + JSON.stringify(name) + ')', 'InvalidStateError');
    if (String(tool.description) === '') throw new DOMException('Tool "description" of ' + name + ' must be a non-empty string', 'InvalidStateError');
    if (options && options.signal && options.signal.aborted) throw options.signal.reason;
    if (options && Array.isArray(options.exposedTo) && options.exposedTo.length > 0) {
      throw new DOMException('Exposing tools to other origins (exposedTo) needs native WebMCP', 'NotSupportedError');
    }
  }
  var HINTS = Symbol.for('byomcp.hints');
  var KEYS = ['consequentialHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
  var real = mc.registerTool;
  if (typeof mc !== 'object' || typeof real !== 'function' || mc[HINTS] || mc.__byomcpQueue || mc[Symbol.for('byomcp.modelContext')]) return;
  var table = new Map();
  var errors = new Map();
  try {
    Object.defineProperty(mc, 'registerTool', {
      configurable: true,
      writable: true,
      value: function registerTool(tool, options) {
        note(tool, options);
        var args = Array.prototype.slice.call(arguments);
        args[0] = watch(tool);
        return real.apply(this, args);
      },
    });
    Object.defineProperty(mc, Symbol.for('byomcp.errors'), { configurable: true, value: errors });
    Object.defineProperty(mc, HINTS, { configurable: true, value: table });
  } catch (e) {
    // A frozen object: its getTools() is all there is.
  }
  // As noteErrors in modelcontext.js: the tool as a proxy whose execute notes what it throws.
  function watch(tool) {
    var run = tool && tool.execute;
    var own = typeof run === 'function' && Object.getOwnPropertyDescriptor(tool, 'execute');
    if (typeof run !== 'function' || (own && !own.configurable && !own.writable)) return tool;
    function seen(e) {
      errors.set(String(tool.name), { message: e instanceof Error ? e.message : String(e) });
      throw e;
    }
    function execute() {
      var r;
      try {
        r = run.apply(this, arguments);
      } catch (e) {
        seen(e);
      }
      return r && typeof r.then === 'function' ? r.then(undefined, seen) : r;
    }
    return new Proxy(tool, { get: function (t, key) { return key === 'execute' ? execute : Reflect.get(t, key); } });
  }
  // As noteHints in modelcontext.js: booleans only, until the registration's signal aborts; a
  // name still in the table keeps destructiveHint and consequentialHint true.
  function note(tool, options) {
    try {
      var signal = options && options.signal;
      if (!tool || typeof tool !== 'object' || (signal && signal.aborted)) return;
      var name = String(tool.name);
      var a = tool.annotations;
      var hints = {};
      for (var i = 0; i < KEYS.length; i++) if (a && typeof a === 'object' && typeof a[KEYS[i]] === 'boolean') hints[KEYS[i]] = a[KEYS[i]];
      var prev = table.get(name);
      if (prev && prev.destructiveHint) hints.destructiveHint = true;
      if (prev && prev.consequentialHint) hints.consequentialHint = true;
      table.set(name, hints);
      if (signal) signal.addEventListener('abort', function () { if (table.get(name) === hints) table.delete(name); }, { once: true });
    } catch (e) {
      // A malformed tool: the implementation rejects it itself.
    }
  }
})();
