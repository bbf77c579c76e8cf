// @ts-check
/**
 * @file The conversation `<byomcp-chat>` shows: the turns of the agent's session on screen,
 * kept in step with the AgentClient's session results and agent/event notifications, and the
 * visitor's part in them (send, stop, retry). The shell (chat-element.js) owns the panel.
 */

import { EventType, StopReason, ErrorCode } from './protocol.js';
import { ClosedError, RpcError } from './wsrpc.js';
import { format } from './strings.js';
import { groupMessages, filterReplay } from './transcript.js';
import { TurnView, makeNote } from './turn-view.js';

/** How long after a Stop the widget waits for the agent's turn_end before ending the turn itself. */
const STOP_FALLBACK_MS = 5000;
/** How long after a session result the widget waits for replayed events before using them. */
const REPLAY_FLUSH_MS = 1500;
/**
 * sessionStorage key of the running turn's journal: the events this page has shown of a turn
 * that has not ended. A page load in the middle of a turn (a tool that navigates) gets the
 * turn's stored messages only when it ends, and the replay only after the last seq shown, so
 * the next page rebuilds the turn from this journal plus the replay.
 */
const TURN_KEY = 'byomcp:turn';
/** sessionStorage key of the turns the visitor stopped, so their "Stopped." note survives a reload. */
const STOPPED_KEY = 'byomcp:stopped';
/** How many stopped turn ids are remembered. */
const MAX_STOPPED = 50;
/** The journal stops growing past this many characters (the replay still brings the rest). */
const MAX_JOURNAL_CHARS = 256 * 1024;

/**
 * What the conversation needs from its element.
 * @typedef {object} ConversationHost
 * @property {import('./turn-view.js').ViewContext} view
 * @property {HTMLElement} log where turns go
 * @property {() => string} state the connection state
 * @property {() => void} refresh shows the connection state again (the running turn changed)
 * @property {(view: TurnView|null) => void} activeChanged a turn started or ended
 * @property {() => void} turnEnded a turn ended (badge, scroll)
 * @property {(text: string) => void} announce
 * @property {(name: unknown) => void} toolCalled a tool call started (the phone's bottom sheet)
 */

/**
 * The running turn's events as this page showed them (consecutive text deltas merged).
 * @typedef {object} Journal
 * @property {string} sessionId
 * @property {string} turnId
 * @property {string|null} userText
 * @property {any[]} events
 * @property {number} size approximate characters held
 */

/** The turns on screen and the visitor's part in them. */
export class Conversation {
  #host;
  /** @type {any} */ #client;
  /** @type {Storage|null} */ #storage;
  /** @type {Map<string, TurnView>} */ #views = new Map();
  /** @type {TurnView|null} */ #active = null;
  /** @type {string|null} */ #sessionId = null;
  /** @type {Map<string, import('./transcript.js').RestoredTurn>} */ #restored = new Map();
  /** @type {{until: number, events: any[], timer: ReturnType<typeof setTimeout>}|null} */ #replay = null;
  #lastUserText = '';
  /** @type {Set<string>} */ #rejected = new Set();
  /** @type {Journal|null} */ #journal = null;
  /** @type {ReturnType<typeof setTimeout>|undefined} */ #journalTimer;
  #retry = () => {
    if (this.#active || !this.#lastUserText) return false;
    void this.send(this.#lastUserText);
    return true;
  };

  /**
   * @param {ConversationHost} host
   * @param {any} client the AgentClient
   * @param {Storage|null} storage
   */
  constructor(host, client, storage) {
    this.#host = host;
    this.#client = client;
    this.#storage = storage;
    client.addEventListener('session', (/** @type {any} */ e) => this.#onSession(e.detail));
    client.addEventListener('agent-event', (/** @type {any} */ e) => this.#onEvent(e.detail));
    globalThis.addEventListener?.('pagehide', () => this.#journalWrite());
  }

  /** The running turn on screen, or null. */
  get active() {
    return this.#active;
  }

  #s() {
    return this.#host.view.strings();
  }

  /**
   * Sends a message as the user, unless a turn is running.
   * @param {string} text
   * @returns {Promise<void>} settles when the turn ends
   */
  async send(text) {
    const t = text.trim();
    if (!t || this.#active) return;
    this.#lastUserText = t;
    const view = this.#newView(null, t);
    view.abort = new AbortController();
    view.chatLive = true;
    this.#setActive(view);
    this.#markQueued(view);
    this.#host.view.scroll(true);
    await this.#runChat(view, t);
  }

  /**
   * Shows whether a turn's message is waiting for the connection (instead of typing dots).
   * @param {TurnView} view
   */
  #markQueued(view) {
    if (this.#host.state() === 'open') {
      view.setThinking(true);
      return;
    }
    view.setQueued(true, this.#s().queued);
    this.#host.refresh();
  }

  /**
   * Sends the view's message and ends the view with the turn's result.
   * @param {TurnView} view
   * @param {string} t
   */
  async #runChat(view, t) {
    try {
      const res = await this.#client.chat(t, { signal: /** @type {AbortController} */ (view.abort).signal });
      view.chatLive = false;
      if (!view.done) {
        if (!view.id && res?.turnId) this.#bind(view, res.turnId);
        this.#endTurn(view, res?.stopReason ?? StopReason.End, res?.text ?? '');
      }
    } catch (err) {
      view.chatLive = false;
      if (view.done) return;
      if (view.abort?.signal.aborted) {
        this.#stopFallback(view);
        return;
      }
      if (err instanceof ClosedError && this.#client.state !== 'closed' && !view.id) {
        // The socket dropped before the turn was named: it may have started anyway, in which case
        // its events are replayed after the reconnect; otherwise say so after the replay.
        /** @type {any} */ (view).orphan = true;
        return;
      }
      this.#showError(view, this.#errorText(err));
      this.#endTurn(view, StopReason.Error, '');
    }
  }

  /** Stops the running turn. */
  stop() {
    const view = this.#active;
    if (!view || view.done || view.stopping) return;
    view.stopping = true;
    if (view.chatLive && view.abort && !view.abort.signal.aborted) {
      view.abort.abort();
    } else {
      this.#client?.cancel(view.id ?? undefined).catch((/** @type {unknown} */ err) => console.warn('byomcp: cancel failed', err));
      this.#stopFallback(view);
    }
  }

  /**
   * Ends a stopped turn locally if the agent's turn_end does not come in time.
   * @param {TurnView} view
   */
  #stopFallback(view) {
    clearTimeout(view.stopTimer);
    view.stopTimer = setTimeout(() => {
      if (!view.done) this.#endTurn(view, StopReason.Cancelled, '');
    }, STOP_FALLBACK_MS);
  }

  // ---- client events --------------------------------------------------------------------

  /** @param {{sessionId: string, resumed: boolean, messages: import('./transcript.js').StoredMessage[], seq: number}} detail */
  #onSession(detail) {
    const sameSession = this.#sessionId !== null && this.#sessionId === detail.sessionId;
    if (!sameSession) {
      // First session of this page, or the agent lost ours: show what the agent has.
      this.#flushReplay();
      this.#clear();
      this.#sessionId = detail.sessionId;
      const turns = groupMessages(detail.messages);
      // Only the last turn can still be running: the agent runs one turn at a time.
      turns.forEach((t, i) => this.#restoreTurn(t, i < turns.length - 1));
      const lastSeq = typeof this.#client?.lastSeq === 'number' ? this.#client.lastSeq : detail.seq;
      const local = this.#resumeJournal(detail.sessionId, lastSeq);
      const replaying = this.#restored.size > 0 && Number.isInteger(detail.seq) && detail.seq > lastSeq;
      if (replaying || local.length > 0) {
        this.#replay = { until: replaying ? detail.seq : -1, events: local, timer: setTimeout(() => this.#flushReplay(), REPLAY_FLUSH_MS) };
        if (!replaying) this.#flushReplay();
      }
      this.#host.view.scroll(true);
    }
    const active = /** @type {any} */ (this.#active);
    if (active && !active.done && active.orphan) {
      // Our message went out on a socket that died: unless the replay names its turn shortly
      // (the agent got it), send it again now that the connection is back, once.
      setTimeout(() => {
        if (active.done || active.id || this.#active !== active) return;
        if (active.resent || !active.userText || this.#host.state() !== 'open') {
          this.#showError(active, this.#s().errorNotSent);
          this.#endTurn(active, StopReason.Error, '');
          return;
        }
        active.resent = true;
        active.orphan = false;
        active.chatLive = true;
        active.abort = new AbortController();
        void this.#runChat(active, active.userText);
      }, REPLAY_FLUSH_MS);
    }
  }

  /** @param {any} e params of an agent/event */
  #onEvent(e) {
    if (!e || typeof e !== 'object') return;
    if (e.type === EventType.ToolRejected) {
      this.#onToolRejected(e);
      return;
    }
    if (this.#replay && typeof e.seq === 'number' && e.seq <= this.#replay.until) {
      this.#replay.events.push(e);
      if (e.seq >= this.#replay.until) this.#flushReplay();
      return;
    }
    this.#flushReplay();
    this.#apply(e);
  }

  /** Applies the buffered replay, minus what the restored transcript already shows. */
  #flushReplay() {
    const r = this.#replay;
    if (!r) return;
    this.#replay = null;
    clearTimeout(r.timer);
    // The journal's events (up to lastSeq) and the agent's replay (after it), once each, in order.
    const bySeq = new Map(r.events.map((e) => [e.seq, e]));
    r.events = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
    /** @type {Map<string, any[]>} */
    const byTurn = new Map();
    for (const e of r.events) {
      if (!this.#restored.has(e.turnId)) continue;
      const list = byTurn.get(e.turnId) ?? [];
      list.push(e);
      byTurn.set(e.turnId, list);
    }
    /** @type {Set<any>} */
    const keep = new Set();
    for (const [turnId, events] of byTurn) {
      for (const e of filterReplay(events, /** @type {import('./transcript.js').RestoredTurn} */ (this.#restored.get(turnId)))) keep.add(e);
    }
    for (const e of r.events) {
      if (!this.#restored.has(e.turnId) || keep.has(e)) this.#apply(e);
    }
  }

  /** @param {any} e */
  #apply(e) {
    const restored = this.#restored.get(e.turnId);
    if (restored?.finished) return;
    const view = this.#viewFor(e.turnId);
    if (view.done && e.type !== EventType.TurnEnd) return;
    this.#journalAdd(view, e);
    switch (e.type) {
      case EventType.TurnStart:
        this.#adoptIfIdle(view);
        break;
      case EventType.TextDelta:
        if (typeof e.delta !== 'string' || !e.delta) break;
        this.#adoptIfIdle(view);
        view.setThinking(false);
        view.appendText(e.delta);
        this.#host.view.scroll();
        break;
      case EventType.ToolCall:
        this.#adoptIfIdle(view);
        view.endText();
        view.setThinking(false);
        view.toolCall(e.callId, e.name, e.arguments);
        this.#host.toolCalled(e.name);
        break;
      case EventType.ToolResult:
        view.toolResult(e.callId, e.name, e.isError === true, e.text);
        if (!view.done) view.setThinking(true);
        break;
      case EventType.Error:
        this.#showError(view, typeof e.message === 'string' && e.message ? e.message : this.#s().errorGeneric);
        break;
      case EventType.TurnEnd:
        if (!view.done) this.#endTurn(view, e.stopReason, typeof e.text === 'string' ? e.text : '');
        break;
      default:
        // Clients ignore event types they do not know.
        break;
    }
  }

  /** @param {any} e */
  #onToolRejected(e) {
    const name = String(e.name ?? '');
    const reason = String(e.reason ?? '');
    console.warn(`byomcp: page tool ${JSON.stringify(name)} was rejected by the agent: ${reason}`);
    const key = `${name}\u0000${reason}`;
    if (this.#rejected.has(key)) return;
    this.#rejected.add(key);
    const note = makeNote(this.#host.view.doc(), format(this.#s().toolRejected, { name }));
    note.classList.add('rejected');
    note.title = reason;
    this.#host.log.append(note);
    this.#host.view.scroll();
  }

  // ---- turns ----------------------------------------------------------------------------

  /**
   * @param {string|null} id
   * @param {string|null} userText
   * @returns {TurnView}
   */
  #newView(id, userText) {
    const view = new TurnView(this.#host.view, id, userText);
    this.#host.log.append(view.el);
    if (id) this.#views.set(id, view);
    return view;
  }

  /**
   * @param {TurnView} view
   * @param {string} id
   */
  #bind(view, id) {
    view.id = id;
    /** @type {any} */ (view).orphan = false;
    view.setQueued(false);
    this.#views.set(id, view);
  }

  /**
   * The view an event belongs to: known by turnId, else the turn this page is waiting for,
   * else a new one (a turn started elsewhere, e.g. before this page loaded).
   * @param {unknown} turnId
   * @returns {TurnView}
   */
  #viewFor(turnId) {
    const id = typeof turnId === 'string' && turnId ? turnId : null;
    if (id) {
      const v = this.#views.get(id);
      if (v) return v;
    }
    const a = this.#active;
    if (a && !a.done && !a.id) {
      if (id) this.#bind(a, id);
      return a;
    }
    if (!id && a && !a.done) return a;
    return this.#newView(id, null);
  }

  /**
   * Makes a turn that is running without this page having started it (restored, or replayed)
   * the active one, so Stop works on it.
   * @param {TurnView} view
   */
  #adoptIfIdle(view) {
    if (!this.#active && !view.done) {
      this.#setActive(view);
      view.setThinking(true);
    }
  }

  /** @param {TurnView|null} view */
  #setActive(view) {
    this.#active = view;
    this.#host.activeChanged(view);
  }

  /**
   * @param {TurnView} view
   * @param {string} stopReason
   * @param {string} text the turn's final text, as the agent reports it
   */
  #endTurn(view, stopReason, text) {
    if (view.done) return;
    const answer = view.finish(stopReason, text, this.#lastUserText ? this.#retry : null);
    if (stopReason === StopReason.Cancelled && view.id) this.#rememberStopped(view.id);
    if (answer) this.#host.announce(format(this.#s().answerAnnouncement, { text: answer }));
    if (this.#active === view) this.#setActive(null);
    this.#host.turnEnded();
  }

  /**
   * @param {TurnView} view
   * @param {string} message
   */
  #showError(view, message) {
    view.showError(message, this.#lastUserText ? this.#retry : null);
  }

  /**
   * @param {unknown} err
   * @returns {string}
   */
  #errorText(err) {
    const s = this.#s();
    if (err instanceof RpcError) {
      if (err.code === ErrorCode.TurnInProgress || err.code === ErrorCode.SessionBusy) return s.errorBusy;
      if (err.code === ErrorCode.RateLimited) return s.errorRateLimited;
      if (err.code === ErrorCode.TextTooLong) return s.errorTooLong;
      return err.message || s.errorGeneric;
    }
    if (err instanceof ClosedError) return s.errorNotSent;
    return err instanceof Error && err.message ? err.message : s.errorGeneric;
  }

  /**
   * @param {import('./transcript.js').RestoredTurn} t
   * @param {boolean} ended a later turn exists, so this one is over even if its messages stop short
   */
  #restoreTurn(t, ended) {
    const view = this.#newView(t.turnId, t.userText);
    /** @type {any} */ (view).restored = t;
    if (t.turnId) this.#restored.set(t.turnId, t);
    if (t.userText) this.#lastUserText = t.userText;
    for (const item of t.items) {
      if (item.kind === 'text') {
        view.addText(item.text);
      } else {
        const state = item.result !== undefined ? (item.isError ? 'error' : 'ok') : t.finished || ended ? 'interrupted' : 'running';
        view.toolCall(item.callId, item.name, item.args, item.result !== undefined ? { result: item.result, state } : { state });
      }
    }
    if (t.turnId && this.#stoppedTurns().includes(t.turnId)) {
      view.addNote(this.#s().stopped);
      t.finished = true;
    }
    if (t.finished || ended || !t.turnId) {
      view.done = true;
      view.interruptTools();
    }
  }

  /** @returns {string[]} ids of the turns stopped in this tab */
  #stoppedTurns() {
    try {
      const v = JSON.parse(this.#storage?.getItem(STOPPED_KEY) ?? '[]');
      return Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
    } catch {
      return [];
    }
  }

  /** @param {string} turnId */
  #rememberStopped(turnId) {
    const ids = this.#stoppedTurns().filter((x) => x !== turnId);
    ids.push(turnId);
    try {
      this.#storage?.setItem(STOPPED_KEY, JSON.stringify(ids.slice(-MAX_STOPPED)));
    } catch {
      // Storage full or forbidden: the note is then not shown after a reload.
    }
  }

  // ---- the running turn's journal ----------------------------------------------------------

  /**
   * Records an event of a running turn in the journal.
   * @param {TurnView} view
   * @param {any} e
   */
  #journalAdd(view, e) {
    if (typeof e.seq !== 'number' || !view.id || !this.#sessionId || !this.#storage) return;
    if (e.type === EventType.TurnEnd) {
      if (this.#journal?.turnId === view.id) this.#journalClear();
      return;
    }
    let j = this.#journal;
    if (!j || j.turnId !== view.id || j.sessionId !== this.#sessionId) {
      j = this.#journal = { sessionId: this.#sessionId, turnId: view.id, userText: view.userText, events: [], size: 0 };
    }
    const last = j.events[j.events.length - 1];
    if (last && e.seq <= last.seq) return;
    if (j.size > MAX_JOURNAL_CHARS) return;
    if (e.type === EventType.TextDelta && last?.type === EventType.TextDelta) {
      last.delta += e.delta;
      last.seq = e.seq;
      j.size += String(e.delta ?? '').length;
    } else {
      const copy = { ...e };
      j.events.push(copy);
      j.size += JSON.stringify(copy).length;
    }
    // A tool result is often followed by the tool navigating away: write it at once.
    if (e.type === EventType.ToolResult) this.#journalWrite();
    else if (this.#journalTimer === undefined) this.#journalTimer = setTimeout(() => this.#journalWrite(), 250);
  }

  #journalWrite() {
    clearTimeout(this.#journalTimer);
    this.#journalTimer = undefined;
    const j = this.#journal;
    if (!j) return;
    try {
      this.#storage?.setItem(TURN_KEY, JSON.stringify({ sessionId: j.sessionId, turnId: j.turnId, userText: j.userText, events: j.events }));
    } catch {
      // Storage full or forbidden: a page load mid-turn then shows only what the agent replays.
    }
  }

  #journalClear() {
    clearTimeout(this.#journalTimer);
    this.#journalTimer = undefined;
    this.#journal = null;
    try {
      this.#storage?.removeItem(TURN_KEY);
    } catch {
      // nothing to clean up then
    }
  }

  /**
   * On a page's first session: takes back the journal of a turn that was running when the
   * previous page went away, makes sure the transcript has a view for it, and returns the
   * events to apply (with the replay) — none when the turn has ended in the meantime.
   * @param {string} sessionId
   * @param {number} lastSeq
   * @returns {any[]}
   */
  #resumeJournal(sessionId, lastSeq) {
    /** @type {any} */
    let saved = null;
    try {
      saved = JSON.parse(this.#storage?.getItem(TURN_KEY) ?? 'null');
    } catch {
      saved = null;
    }
    this.#journal = null;
    if (!saved || saved.sessionId !== sessionId || typeof saved.turnId !== 'string' || !Array.isArray(saved.events)) {
      if (saved) this.#journalClear();
      return [];
    }
    let t = this.#restored.get(saved.turnId);
    if (!t) {
      // The stored messages do not have the turn yet: start it from what the journal knows.
      t = { turnId: saved.turnId, userText: typeof saved.userText === 'string' ? saved.userText : null, items: [], calls: new Set(), results: new Set(), finished: false };
      const view = this.#newView(t.turnId, t.userText);
      /** @type {any} */ (view).restored = t;
      this.#restored.set(t.turnId, t);
    }
    const view = this.#views.get(saved.turnId);
    if (t.finished || !view || view.done) {
      this.#journalClear();
      return [];
    }
    const events = saved.events.filter((/** @type {any} */ e) => e && typeof e.seq === 'number' && e.seq <= lastSeq && e.turnId === saved.turnId);
    this.#journal = { sessionId, turnId: saved.turnId, userText: saved.userText ?? null, events: events.map((/** @type {any} */ e) => ({ ...e })), size: JSON.stringify(events).length };
    return events;
  }

  #clear() {
    this.#views.clear();
    this.#restored.clear();
    if (this.#active) {
      this.#active.done = true;
      this.#setActive(null);
    }
    this.#host.log.replaceChildren();
  }
}
