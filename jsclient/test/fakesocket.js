// A fake WebSocket for the jsclient unit tests: records what the code under test sends and lets
// the test deliver frames, open and drop the connection, with no network and no timers.

/** Whether v looks like a JSON-RPC request (has method and id). */
export const isRequest = (/** @type {any} */ v) => v && typeof v.method === 'string' && 'id' in v;

/** A WebSocket-like object driven by the test. */
export class FakeSocket extends EventTarget {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSING = 2;
  static CLOSED = 3;

  /** @type {FakeSocket[]} every socket constructed, in order (reset by tests) */
  static instances = [];

  /**
   * @param {string} [url]
   * @param {string|string[]} [protocols]
   */
  constructor(url = 'ws://fake/v1/ws', protocols = []) {
    super();
    this.url = url;
    this.protocols = protocols;
    this.readyState = FakeSocket.CONNECTING;
    /** @type {string[]} raw frames sent by the code under test */
    this.sent = [];
    /** @type {{code?: number, reason?: string}[]} */
    this.closeCalls = [];
    this.cursor = 0;
    FakeSocket.instances.push(this);
  }

  /** A socket that is already open. */
  static opened() {
    const s = new FakeSocket();
    s.readyState = FakeSocket.OPEN;
    return s;
  }

  /** @param {string} data */
  send(data) {
    if (this.readyState !== FakeSocket.OPEN) throw new Error('InvalidStateError: socket not open');
    if (typeof data !== 'string') throw new Error('fake socket: only text frames expected');
    this.sent.push(data);
  }

  /**
   * Like the browser: closes, then fires 'close' as a separate (micro)task.
   * @param {number} [code]
   * @param {string} [reason]
   */
  close(code, reason) {
    this.closeCalls.push({ code, reason });
    if (this.readyState >= FakeSocket.CLOSING) return;
    this.readyState = FakeSocket.CLOSING;
    queueMicrotask(() => this.#fireClose(code ?? 1005, reason ?? ''));
  }

  /** The server accepts the connection. */
  open() {
    this.readyState = FakeSocket.OPEN;
    this.dispatchEvent(new Event('open'));
  }

  /**
   * The server (or network) ends the connection now.
   * @param {number} [code]
   * @param {string} [reason]
   */
  drop(code = 1006, reason = '') {
    if (this.readyState === FakeSocket.CLOSED) return;
    this.#fireClose(code, reason);
  }

  /**
   * Delivers one frame: a string as is, anything else as JSON.
   * @param {unknown} msg
   */
  receive(msg) {
    const ev = new Event('message');
    Object.defineProperty(ev, 'data', { value: typeof msg === 'string' || msg instanceof ArrayBuffer ? msg : JSON.stringify(msg) });
    this.dispatchEvent(ev);
  }

  /** Every frame sent so far, parsed. */
  messages() {
    return this.sent.map((s) => JSON.parse(s));
  }

  /**
   * Resolves with the next sent message (parsed) that matches pred, skipping the others. Rejects
   * when none has come after a bounded number of event-loop turns (no wall clock involved).
   * @param {(m: any) => boolean} [pred]
   * @param {number} [turns]
   * @returns {Promise<any>}
   */
  async next(pred = () => true, turns = 200) {
    for (let i = 0; i <= turns; i++) {
      while (this.cursor < this.sent.length) {
        const m = JSON.parse(this.sent[this.cursor++]);
        if (pred(m)) return m;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error('fake socket: the expected message was not sent');
  }

  /** Parsed messages sent since the last next(), consuming them. */
  drain() {
    const out = this.sent.slice(this.cursor).map((s) => JSON.parse(s));
    this.cursor = this.sent.length;
    return out;
  }

  /**
   * Resolves with the next sent request of method.
   * @param {string} method
   */
  nextRequest(method) {
    return this.next((m) => isRequest(m) && m.method === method);
  }

  /**
   * @param {number} code
   * @param {string} reason
   */
  #fireClose(code, reason) {
    this.readyState = FakeSocket.CLOSED;
    const ev = new Event('close');
    Object.defineProperty(ev, 'code', { value: code });
    Object.defineProperty(ev, 'reason', { value: reason });
    this.dispatchEvent(ev);
  }
}

/** Lets pending promise callbacks run (a bounded number of macrotask turns). */
export async function settle(turns = 3) {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A logger that records warnings and errors instead of printing them. */
export function quietLogger() {
  /** @type {unknown[][]} */
  const lines = [];
  return {
    lines,
    debug() {},
    /** @param {unknown[]} a */
    warn: (...a) => void lines.push(a),
    /** @param {unknown[]} a */
    error: (...a) => void lines.push(a),
  };
}
