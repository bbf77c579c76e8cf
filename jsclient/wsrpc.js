// Bidirectional JSON-RPC 2.0 peer over a WebSocket-like socket, for the browser side: it matches
// replies to our pending calls, runs incoming requests concurrently and cancels both ways.
//
// Rules of this type (the JS mirror of the Go wsrpc rules):
// - The one 'message' listener installed by the constructor is the read loop. It never waits on a
//   handler: each incoming request runs on its own, so a handler may call the peer back.
// - #send is the only caller of socket.send; everything is stringified before it gets there, so a
//   value that cannot be encoded never reaches the wire half-written.
// - A pending call is inserted before its request is sent and removed when it settles. When the
//   socket closes, every pending call is rejected at once with a ClosedError saying why, and every
//   running handler's signal is aborted.
// - Our ids and the peer's ids are separate spaces: a response is matched only against our own
//   pending calls.

import { ErrorCode, Method } from './protocol.js';

const OPEN = 1;

/**
 * @typedef {object} Logger
 * @property {(...args: unknown[]) => void} debug
 * @property {(...args: unknown[]) => void} warn
 * @property {(...args: unknown[]) => void} error
 */

/** @type {Logger} */
const defaultLogger = {
  debug() {},
  warn: (...args) => console.warn('byomcp:', ...args),
  error: (...args) => console.error('byomcp:', ...args),
};

/**
 * Returns a logger with all three methods, filling gaps of a partial one.
 * @param {Partial<Logger>|undefined} logger
 * @returns {Logger}
 */
export function toLogger(logger) {
  if (!logger) return defaultLogger;
  return {
    debug: (...a) => logger.debug?.(...a),
    warn: (...a) => logger.warn?.(...a),
    error: (...a) => (logger.error ?? logger.warn)?.(...a),
  };
}

/** A JSON-RPC error: thrown by handlers to answer with this code, and rejected by call(). */
export class RpcError extends Error {
  /**
   * @param {number} code JSON-RPC error code (see ErrorCode)
   * @param {string} message
   * @param {unknown} [data]
   */
  constructor(code, message, data) {
    super(message);
    this.name = 'RpcError';
    /** @type {number} */
    this.code = code;
    /** @type {unknown} */
    this.data = data;
  }
}

/** The reason pending calls fail when the connection ends (or was never open). */
export class ClosedError extends Error {
  /**
   * @param {string} message
   * @param {{code?: number, reason?: string}} [info] WebSocket close code and reason, when known
   */
  constructor(message, info = {}) {
    super(message);
    this.name = 'ClosedError';
    /** @type {number|undefined} */
    this.closeCode = info.code;
    /** @type {string|undefined} */
    this.closeReason = info.reason;
  }
}

/**
 * Context given to a request handler.
 * @typedef {object} HandlerContext
 * @property {AbortSignal} signal aborted when the peer cancels the request or the socket closes
 * @property {string|number} id the request id, as the peer sent it
 * @property {Peer} peer the peer the request came from
 */

/**
 * @callback Handler
 * @param {any} params
 * @param {HandlerContext} ctx
 * @returns {unknown|Promise<unknown>} the result; throw RpcError to answer with an error
 */

/**
 * A WebSocket-like socket: the browser WebSocket, the `ws` package, or a fake in tests.
 * @typedef {object} SocketLike
 * @property {number} readyState
 * @property {(data: string) => void} send
 * @property {(code?: number, reason?: string) => void} close
 * @property {(type: string, listener: (ev: any) => void) => void} addEventListener
 */

/** A JSON-RPC 2.0 peer: both client and server on one socket. */
export class Peer {
  /** @type {SocketLike} */ #socket;
  /** @type {Logger} */ #log;
  #nextId = 1;
  /** @type {Map<number, {resolve: (v: unknown) => void, reject: (e: unknown) => void}>} */
  #pending = new Map();
  /** @type {Map<string, Handler>} */
  #handlers = new Map();
  /** @type {Map<string, (params: any) => void>} */
  #notificationHandlers = new Map();
  /** @type {Map<string, AbortController>} running incoming requests by id key */
  #running = new Map();
  /** @type {ClosedError|null} */
  #closeError = null;
  /** @type {() => void} */
  #resolveClosed = () => {};
  /** @type {Promise<void>} */
  #closed;

  /**
   * Starts reading from socket, which must already be open.
   * @param {SocketLike} socket
   * @param {{logger?: Partial<Logger>}} [options]
   */
  constructor(socket, { logger } = {}) {
    this.#socket = socket;
    this.#log = toLogger(logger);
    this.#closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    socket.addEventListener('message', (ev) => this.#read(ev.data));
    socket.addEventListener('close', (ev) => {
      const code = ev?.code;
      const reason = ev?.reason ?? '';
      this.#shutdown(new ClosedError(`connection closed (${code ?? 'no code'}${reason ? `: ${reason}` : ''})`, { code, reason }));
    });
    socket.addEventListener('error', () => this.#log.debug('wsrpc: socket error'));
    if (socket.readyState > OPEN) this.#shutdown(new ClosedError('connection closed before the peer started'));
  }

  /** Resolves when the connection has ended, for whatever reason. */
  get closed() {
    return this.#closed;
  }

  /** Whether the connection has ended. */
  get isClosed() {
    return this.#closeError !== null;
  }

  /** Why the connection ended (null while open). */
  get closeError() {
    return this.#closeError;
  }

  /**
   * Installs the handler for incoming requests of method; null removes it.
   * @param {string} method
   * @param {Handler|null} handler
   */
  handle(method, handler) {
    if (handler) this.#handlers.set(method, handler);
    else this.#handlers.delete(method);
  }

  /**
   * Installs the handler for incoming notifications of method; null removes it. It runs inside the
   * read loop and must not block. `notifications/cancelled` is handled by the peer itself first.
   * @param {string} method
   * @param {((params: any) => void)|null} handler
   */
  onNotification(method, handler) {
    if (handler) this.#notificationHandlers.set(method, handler);
    else this.#notificationHandlers.delete(method);
  }

  /**
   * Sends a request and resolves with its result. Rejects with RpcError when the peer answers with
   * an error, with ClosedError when the connection ends first, and with the abort reason (or a
   * TimeoutError) when signal aborts or timeoutMs passes; in those two cases the peer is told with
   * `notifications/cancelled {requestId, reason}`. No timeout unless timeoutMs is given.
   * @param {string} method
   * @param {unknown} [params]
   * @param {{signal?: AbortSignal, timeoutMs?: number}} [options]
   * @returns {Promise<any>}
   */
  call(method, params, { signal, timeoutMs } = {}) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      if (this.#closeError) {
        reject(this.#closeError);
        return;
      }
      const id = this.#nextId++;
      /** @type {Record<string, unknown>} */
      const msg = { jsonrpc: '2.0', id, method };
      if (params !== undefined) msg.params = params;
      let text;
      try {
        text = JSON.stringify(msg);
      } catch (err) {
        reject(err);
        return;
      }
      /** @type {ReturnType<typeof setTimeout>|undefined} */
      let timer;
      const settle = () => {
        this.#pending.delete(id);
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      /** @param {unknown} reason */
      const giveUp = (reason) => {
        settle();
        this.notify(Method.Cancelled, { requestId: id, reason: reasonText(reason) });
        reject(reason);
      };
      const onAbort = () => giveUp(signal?.reason);
      this.#pending.set(id, {
        resolve: (v) => {
          settle();
          resolve(v);
        },
        reject: (e) => {
          settle();
          reject(e);
        },
      });
      if (!this.#send(text)) {
        settle();
        reject(this.#closeError ?? new ClosedError('connection is not open'));
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined && timeoutMs > 0) {
        timer = setTimeout(() => giveUp(timeoutError(`${method} timed out after ${timeoutMs} ms`)), timeoutMs);
      }
    });
  }

  /**
   * Sends a notification. Returns false when it could not be sent (connection ended or params
   * cannot be encoded).
   * @param {string} method
   * @param {unknown} [params]
   * @returns {boolean}
   */
  notify(method, params) {
    /** @type {Record<string, unknown>} */
    const msg = { jsonrpc: '2.0', method };
    if (params !== undefined) msg.params = params;
    let text;
    try {
      text = JSON.stringify(msg);
    } catch (err) {
      this.#log.warn(`wsrpc: cannot encode ${method}:`, err);
      return false;
    }
    return this.#send(text);
  }

  /**
   * Closes the socket and ends the peer. Idempotent.
   * @param {number} [code] WebSocket close code (1000, or 3000–4999)
   * @param {string} [reason]
   */
  close(code = 1000, reason = '') {
    if (this.#closeError) return;
    try {
      this.#socket.close(code, reason);
    } catch (err) {
      this.#log.debug('wsrpc: socket.close:', err);
      try {
        this.#socket.close();
      } catch {
        // The socket is gone already; nothing else can be done.
      }
    }
    this.#shutdown(new ClosedError(`connection closed by this side${reason ? `: ${reason}` : ''}`, { code, reason }));
  }

  /**
   * The only caller of socket.send.
   * @param {string} text
   * @returns {boolean} whether it was handed to the socket
   */
  #send(text) {
    if (this.#closeError || this.#socket.readyState !== OPEN) return false;
    try {
      this.#socket.send(text);
      return true;
    } catch (err) {
      this.#log.warn('wsrpc: send failed:', err);
      return false;
    }
  }

  /**
   * @param {string|number|null} id
   * @param {number} code
   * @param {string} message
   */
  #sendError(id, code, message) {
    this.#send(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
  }

  /**
   * The read loop body: one incoming frame.
   * @param {unknown} data
   */
  #read(data) {
    if (this.#closeError) return;
    if (typeof data !== 'string') {
      this.#log.warn('wsrpc: binary frame refused');
      this.#sendError(null, ErrorCode.InvalidRequest, 'invalid request: binary frames are not supported');
      return;
    }
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      this.#log.warn('wsrpc: unparseable frame');
      this.#sendError(null, ErrorCode.ParseError, 'parse error');
      return;
    }
    if (Array.isArray(msg)) {
      this.#sendError(null, ErrorCode.InvalidRequest, 'invalid request: batches are not supported');
      return;
    }
    if (msg === null || typeof msg !== 'object' || msg.jsonrpc !== '2.0') {
      this.#sendError(validId(msg?.id) ? msg.id : null, ErrorCode.InvalidRequest, 'invalid request: not a JSON-RPC 2.0 message');
      return;
    }
    const hasId = 'id' in msg;
    if ('method' in msg) {
      const idOk = !hasId || validId(msg.id);
      if (typeof msg.method !== 'string' || !idOk || !validParams(msg.params)) {
        if (hasId) this.#sendError(idOk ? msg.id : null, ErrorCode.InvalidRequest, 'invalid request');
        else this.#log.warn('wsrpc: malformed notification dropped');
        return;
      }
      if (hasId) void this.#serve(msg.id, msg.method, msg.params);
      else this.#notification(msg.method, msg.params);
      return;
    }
    if (hasId && ('result' in msg || 'error' in msg)) {
      this.#response(msg);
      return;
    }
    this.#sendError(validId(msg.id) ? msg.id : null, ErrorCode.InvalidRequest, 'invalid request');
  }

  /**
   * @param {{id: unknown, result?: unknown, error?: any}} msg
   */
  #response(msg) {
    const pending = typeof msg.id === 'number' ? this.#pending.get(msg.id) : undefined;
    if (!pending) {
      this.#log.debug('wsrpc: response to no pending call, id', msg.id);
      return;
    }
    if ('error' in msg && msg.error !== undefined) {
      const e = msg.error;
      if (e && typeof e === 'object' && Number.isInteger(e.code) && typeof e.message === 'string') {
        pending.reject(new RpcError(e.code, e.message, e.data));
      } else {
        pending.reject(new RpcError(ErrorCode.InternalError, 'malformed error response'));
      }
      return;
    }
    pending.resolve(msg.result);
  }

  /**
   * @param {string} method
   * @param {unknown} params
   */
  #notification(method, params) {
    if (method === Method.Cancelled) {
      const p = /** @type {any} */ (params);
      const ac = validId(p?.requestId) ? this.#running.get(idKey(p.requestId)) : undefined;
      if (ac) {
        const why = typeof p.reason === 'string' && p.reason ? p.reason : 'cancelled by the peer';
        ac.abort(abortError(why));
      }
    }
    const handler = this.#notificationHandlers.get(method);
    if (!handler) {
      if (method !== Method.Cancelled) this.#log.debug('wsrpc: unhandled notification', method);
      return;
    }
    try {
      handler(params);
    } catch (err) {
      this.#log.error(`wsrpc: notification handler ${method}:`, err);
    }
  }

  /**
   * Runs one incoming request and answers it, unless it was cancelled meanwhile (MCP: the
   * receiver of a cancellation does not answer).
   * @param {string|number} id
   * @param {string} method
   * @param {unknown} params
   */
  async #serve(id, method, params) {
    const key = idKey(id);
    if (this.#running.has(key)) {
      this.#sendError(id, ErrorCode.InvalidRequest, 'invalid request: duplicate id');
      return;
    }
    const handler = this.#handlers.get(method);
    if (!handler) {
      this.#sendError(id, ErrorCode.MethodNotFound, `method not found: ${method}`);
      return;
    }
    const ac = new AbortController();
    this.#running.set(key, ac);
    /** @type {Record<string, unknown>} */
    let reply;
    try {
      const result = await handler(params, { signal: ac.signal, id, peer: this });
      reply = { jsonrpc: '2.0', id, result: result === undefined ? {} : result };
    } catch (err) {
      if (ac.signal.aborted) {
        // Cancelled by the peer (Stop, a timeout) or the connection's end: normal, not a failure.
        this.#log.debug(`wsrpc: handler ${method} ended after its cancellation:`, err);
        return;
      }
      reply = { jsonrpc: '2.0', id, error: this.#wireError(method, err) };
    } finally {
      this.#running.delete(key);
    }
    if (ac.signal.aborted) {
      this.#log.debug('wsrpc: not answering cancelled request', method, id);
      return;
    }
    let text;
    try {
      text = JSON.stringify(reply);
    } catch (err) {
      this.#log.error(`wsrpc: cannot encode the result of ${method}:`, err);
      text = JSON.stringify({ jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: 'internal error' } });
    }
    this.#send(text);
  }

  /**
   * @param {string} method
   * @param {unknown} err
   * @returns {{code: number, message: string, data?: unknown}}
   */
  #wireError(method, err) {
    if (err instanceof RpcError) {
      /** @type {{code: number, message: string, data?: unknown}} */
      const e = { code: err.code, message: err.message };
      if (err.data !== undefined) e.data = err.data;
      return e;
    }
    this.#log.error(`wsrpc: handler ${method} failed:`, err);
    return { code: ErrorCode.InternalError, message: 'internal error' };
  }

  /** @param {ClosedError} err */
  #shutdown(err) {
    if (this.#closeError) return;
    this.#closeError = err;
    for (const p of [...this.#pending.values()]) p.reject(err);
    this.#pending.clear();
    for (const ac of this.#running.values()) ac.abort(err);
    this.#resolveClosed();
  }
}

/**
 * @param {unknown} id
 * @returns {id is string|number}
 */
function validId(id) {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** @param {unknown} params */
function validParams(params) {
  return params === undefined || (params !== null && typeof params === 'object');
}

/**
 * Map key keeping 1 and "1" apart.
 * @param {string|number} id
 */
function idKey(id) {
  return typeof id === 'number' ? `n${id}` : `s${id}`;
}

/** @param {unknown} reason */
function reasonText(reason) {
  if (reason instanceof Error || (reason && typeof reason === 'object' && 'message' in reason)) {
    return String(/** @type {any} */ (reason).message);
  }
  return reason === undefined ? 'cancelled' : String(reason);
}

/** @param {string} message */
function abortError(message) {
  return new DOMException(message, 'AbortError');
}

/** @param {string} message */
function timeoutError(message) {
  return new DOMException(message, 'TimeoutError');
}
