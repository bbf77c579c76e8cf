// @ts-check
/**
 * @file One turn of `<byomcp-chat>` on screen: the visitor's message, then the assistant's
 * streamed text, tool calls with their results, errors and notes, and the typing indicator.
 * Rendering only; what to show and when comes from the conversation (conversation.js).
 */

import { StopReason } from './protocol.js';
import { MarkdownStream, renderMarkdown } from './markdown.js';
import { format } from './strings.js';
import { prettyJSON } from './transcript.js';
import { isDeclined } from './tools.js';

/** A tool result longer than this is cut in the transcript (the agent has the whole text). */
const MAX_RESULT_CHARS = 4000;

/**
 * What a turn view needs from its element.
 * @typedef {object} ViewContext
 * @property {() => Document} doc
 * @property {() => Record<string, string>} strings the current strings
 * @property {(force?: boolean) => void} scroll keeps the transcript at its end (force: pin it there)
 * @property {(name: string) => string} [toolName] the name a visitor reads for a tool (its title,
 *   else its name made readable)
 * @property {(name: string) => string} [toolLabel] the tool as its confirmation card names it
 */

/**
 * Creates an element; text goes in with textContent (never as markup).
 * @param {Document} doc
 * @param {string} tag
 * @param {string} [className]
 * @param {string} [text]
 * @returns {HTMLElement}
 */
export function make(doc, tag, className = '', text) {
  const el = doc.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

/**
 * A small note line of the transcript ("Stopped.", "Confirmed: …").
 * @param {Document} doc
 * @param {string} text
 * @returns {HTMLElement}
 */
export function makeNote(doc, text) {
  const p = make(doc, 'p', 'note', text);
  p.setAttribute('part', 'note');
  return p;
}

/** One turn on screen. */
export class TurnView {
  /** @type {string|null} the turnId, once the agent named it */
  id;
  /** @type {string|null} the id this page gave its message (agent/chat clientTurnId) */
  clientTurnId = null;
  /** @type {string|null} what the user asked, when known */
  userText;
  /** the turn's container */
  el;
  /** where the assistant's text, tools and notes go */
  body;
  /** @type {MarkdownStream|null} the text segment being written */
  stream = null;
  /** @type {Map<string, HTMLDetailsElement>} tool-call entries by callId */
  tools = new Map();
  /** @type {HTMLElement|null} the typing indicator, while shown */
  thinking = null;
  done = false;
  /** the user pressed Stop */
  stopping = false;
  /** this page's agent/chat request for the turn is still pending */
  chatLive = false;
  /** @type {AbortController|null} aborts the pending agent/chat */
  abort = null;
  /** the message waits for the connection */
  queued = false;
  /** @type {ReturnType<typeof setTimeout>|undefined} ends a stopped turn if turn_end is late */
  stopTimer;
  #ctx;

  /**
   * Builds the turn's elements (not yet in the document).
   * @param {ViewContext} ctx
   * @param {string|null} id
   * @param {string|null} userText
   */
  constructor(ctx, id, userText) {
    this.#ctx = ctx;
    this.id = id;
    this.userText = userText;
    const s = ctx.strings();
    this.el = this.#make('div', 'turn');
    if (userText !== null) {
      const u = this.#make('div', 'user');
      u.setAttribute('part', 'message user');
      u.dir = 'auto'; // each message in the direction of its own words (chat-element.js #applyStrings)
      const label = this.#make('span', 'sr-only', `${s.you}: `);
      label.dir = 'auto'; // an element with dir is not read for its parent's direction
      u.append(label, this.#make('span', 'user-text', userText));
      this.el.append(u);
    }
    this.body = this.#make('div', 'assistant');
    this.body.setAttribute('part', 'message assistant');
    this.body.append(this.#make('span', 'sr-only', `${s.assistant}: `));
    this.el.append(this.body);
  }

  /**
   * @param {string} tag
   * @param {string} [className]
   * @param {string} [text]
   */
  #make(tag, className = '', text) {
    return make(this.#ctx.doc(), tag, className, text);
  }

  #base() {
    return this.#ctx.doc().baseURI;
  }

  /**
   * Shows or hides "waiting for the connection" under the visitor's message.
   * @param {boolean} on
   * @param {string} [text]
   */
  setQueued(on, text = '') {
    this.queued = on;
    const q = this.el.querySelector('.queued');
    if (!on) {
      q?.remove();
      return;
    }
    if (q) return;
    const p = this.#make('p', 'queued', text);
    p.setAttribute('role', 'status');
    this.el.querySelector('.user')?.after(p);
  }

  /**
   * Shows or hides the typing indicator (always last in the turn).
   * @param {boolean} on
   */
  setThinking(on) {
    if (on && !this.thinking && !this.done) {
      const t = this.#make('div', 'thinking');
      t.setAttribute('role', 'img');
      t.setAttribute('aria-label', this.#ctx.strings().thinking);
      t.append(this.#make('span'), this.#make('span'), this.#make('span'));
      this.thinking = t;
      this.body.append(t);
      this.#ctx.scroll();
    } else if (!on && this.thinking) {
      this.thinking.remove();
      this.thinking = null;
    } else if (on && this.thinking && this.thinking !== this.body.lastElementChild) {
      this.body.append(this.thinking);
    }
  }

  /**
   * Adds streamed text to the current text segment (started when needed).
   * @param {string} delta
   */
  appendText(delta) {
    if (!this.stream) {
      const seg = this.#make('div', 'text');
      seg.dir = 'auto';
      this.body.append(seg);
      this.stream = new MarkdownStream(seg, { base: this.#base() });
    }
    this.stream.append(delta);
  }

  /** Renders the streamed text now rather than on the next frame. */
  flushText() {
    this.stream?.flush();
  }

  /** Ends the current text segment: the next text starts a new one. */
  endText() {
    if (this.stream) {
      this.stream.finish();
      this.stream = null;
    }
  }

  /**
   * Adds a whole text segment (Markdown).
   * @param {string} text
   */
  addText(text) {
    const seg = this.#make('div', 'text');
    seg.dir = 'auto';
    seg.append(renderMarkdown(text, this.#ctx.doc(), { base: this.#base() }));
    this.insert(seg);
  }

  /**
   * Inserts node at the end of the turn, before the typing indicator.
   * @param {Node} node
   */
  insert(node) {
    if (this.thinking) this.body.insertBefore(node, this.thinking);
    else this.body.append(node);
  }

  /** @param {string} text */
  addNote(text) {
    this.body.append(makeNote(this.#ctx.doc(), text));
  }

  /**
   * Adds a tool call entry (once per callId), optionally with its result or final state.
   * @param {string} callId
   * @param {string} name
   * @param {unknown} args
   * @param {{result?: string, state?: string}} [opts]
   */
  toolCall(callId, name, args, opts = {}) {
    const s = this.#ctx.strings();
    const id = String(callId ?? '');
    if (id && this.tools.has(id)) return;
    const d = /** @type {HTMLDetailsElement} */ (this.#make('details', 'tool'));
    d.setAttribute('part', 'tool');
    d.dataset.name = String(name ?? '');
    d.dataset.callId = id;
    const summary = this.#make('summary');
    const icon = this.#make('span', 'tool-icon');
    icon.setAttribute('aria-hidden', 'true');
    summary.append(icon, this.#make('span', 'tool-title'));
    const body = this.#make('div', 'tool-body');
    const argsText = prettyJSON(args);
    body.append(this.#make('p', 'tool-label', s.toolArguments), this.#pre('tool-pre args', argsText && argsText !== '{}' ? argsText : s.noArguments));
    d.append(summary, body);
    // The call's confirmation may have come before its tool_call event: keep the call first.
    const card = [...this.body.querySelectorAll('.confirm')].find((c) => /** @type {HTMLElement} */ (c).dataset.name === d.dataset.name);
    if (card) card.before(d);
    else this.insert(d);
    if (id) this.tools.set(id, d);
    this.setToolState(d, 'running');
    if (opts.result !== undefined) this.#setToolResult(d, opts.state ?? 'ok', opts.result);
    else if (opts.state) this.setToolState(d, opts.state);
    this.#ctx.scroll();
  }

  /**
   * Shows a tool call's result (adding the call when its tool_call was not seen). A call the
   * visitor declined reads as declined, not failed; restored (the page was not there when the
   * visitor answered), it gets the "You declined …" note the confirmation card left, or the
   * "You allowed …" one when allowed (this tab remembers the calls its visitor allowed).
   * @param {string} callId
   * @param {string} name
   * @param {boolean} isError
   * @param {unknown} text
   * @param {{restored?: boolean, allowed?: boolean}} [opts]
   */
  toolResult(callId, name, isError, text, { restored = false, allowed = false } = {}) {
    let d = this.tools.get(String(callId ?? ''));
    if (!d) {
      this.toolCall(callId, name, undefined);
      d = /** @type {HTMLDetailsElement} */ (this.tools.get(String(callId ?? '')) ?? this.body.querySelector('details.tool:last-of-type'));
    }
    const declined = isDeclined(isError, text);
    if (d) this.#setToolResult(d, declined ? 'declined' : isError ? 'error' : 'ok', typeof text === 'string' ? text : prettyJSON(text));
    if (d && declined && restored) this.declinedNote(d);
    else if (d && allowed && restored) this.allowedNote(d);
    this.#ctx.scroll();
  }

  /**
   * Puts the note of a declined confirmation ("You declined …") after a tool call's entry.
   * @param {HTMLElement} d
   */
  declinedNote(d) {
    this.#answerNote(d, this.#ctx.strings().declined);
  }

  /**
   * Puts the note of an allowed confirmation ("You allowed …") after a tool call's entry.
   * @param {HTMLElement} d
   */
  allowedNote(d) {
    this.#answerNote(d, this.#ctx.strings().confirmed);
  }

  /** @param {HTMLElement} d @param {string} tpl */
  #answerNote(d, tpl) {
    const raw = d.dataset.name ?? '';
    d.after(makeNote(this.#ctx.doc(), format(tpl, { name: this.#ctx.toolLabel?.(raw) ?? raw })));
  }

  /**
   * @param {HTMLDetailsElement} d
   * @param {string} state
   * @param {string} text
   */
  #setToolResult(d, state, text) {
    const s = this.#ctx.strings();
    const body = /** @type {HTMLElement} */ (d.querySelector('.tool-body'));
    body.querySelectorAll('.result, .result-label').forEach((n) => n.remove());
    const shown = text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}…` : text;
    const label = this.#make('p', 'tool-label result-label', state === 'error' ? s.toolError : s.toolResult);
    body.append(label, this.#pre('tool-pre result', prettyJSON(shown)));
    this.setToolState(d, state);
  }

  /**
   * @param {HTMLDetailsElement} d
   * @param {string} state running | ok | error | declined | interrupted
   */
  setToolState(d, state) {
    const s = this.#ctx.strings();
    d.dataset.state = state;
    const tpl = { running: s.toolRunning, ok: s.toolDone, error: s.toolFailed, declined: s.toolDeclined, interrupted: s.toolDone }[state] ?? s.toolDone;
    const title = /** @type {HTMLElement} */ (d.querySelector('.tool-title'));
    const raw = d.dataset.name ?? '';
    let name = this.#ctx.toolName?.(raw) ?? raw;
    if (tpl.startsWith('{name}')) name = name.charAt(0).toUpperCase() + name.slice(1); // "Search cars failed"
    title.textContent = format(tpl, { name });
  }

  /** Marks the tool calls still running as interrupted (the turn is over). */
  interruptTools() {
    for (const d of this.tools.values()) if (d.dataset.state === 'running') this.setToolState(d, 'interrupted');
  }

  /**
   * Shows an error, with a Retry button when onRetry is given (the button goes away when
   * onRetry returns true).
   * @param {string} message
   * @param {(() => boolean)|null} onRetry
   */
  showError(message, onRetry) {
    const s = this.#ctx.strings();
    this.setThinking(false);
    this.endText();
    const box = this.#make('div', 'error');
    box.setAttribute('part', 'error');
    box.setAttribute('role', 'alert');
    box.append(this.#make('span', 'error-text', message));
    if (onRetry) {
      const retry = this.#make('button', 'retry', s.retry);
      retry.setAttribute('type', 'button');
      retry.setAttribute('part', 'retry');
      retry.setAttribute('aria-label', s.retryLabel);
      retry.addEventListener('click', () => {
        if (onRetry()) retry.remove();
      });
      box.append(retry);
    }
    this.insert(box);
    this.#ctx.scroll(true);
  }

  /**
   * Shows the end of the turn: the final text when none was streamed, tools still running as
   * interrupted, and a note for a stopped or cut-short answer.
   * @param {string} stopReason
   * @param {string} text the turn's final text, as the agent reports it
   * @param {(() => boolean)|null} onRetry for the error shown when the turn failed without one
   * @returns {string} the answer to announce ('' when none)
   */
  finish(stopReason, text, onRetry) {
    const s = this.#ctx.strings();
    this.done = true;
    clearTimeout(this.stopTimer);
    this.setThinking(false);
    const hadText = !!this.body.querySelector('.text') || !!this.stream?.text;
    this.endText();
    if (!hadText && text && stopReason !== StopReason.Error) this.addText(text);
    this.interruptTools();
    if (stopReason === StopReason.Error && !this.body.querySelector('.error')) this.showError(s.errorGeneric, onRetry);
    if (stopReason === StopReason.Cancelled) this.addNote(s.stopped);
    else if (stopReason === StopReason.MaxIterations) this.addNote(s.maxIterations);
    if (stopReason !== StopReason.End && stopReason !== StopReason.MaxIterations) return '';
    const segs = this.body.querySelectorAll('.text');
    const last = segs[segs.length - 1];
    return (last?.textContent ?? text).trim();
  }

  /**
   * A box of tool text; it may scroll, so it is reachable by keyboard.
   * @param {string} className
   * @param {string} text
   */
  #pre(className, text) {
    const pre = this.#make('pre', className, text);
    pre.tabIndex = 0;
    return pre;
  }
}
