// @ts-check
/**
 * @file The `<byomcp-chat>` custom element: the chat panel a visitor talks to the agent with.
 * It renders an AgentClient's session and events (streamed text, tool calls, errors,
 * confirmations) in a Shadow DOM themed by CSS variables and ::part, and is keyboard accessible.
 *
 * Theming: --byomcp-accent, --byomcp-accent-fg, --byomcp-bg, --byomcp-fg, --byomcp-muted,
 * --byomcp-border, --byomcp-surface, --byomcp-font, --byomcp-radius, --byomcp-width,
 * --byomcp-height, --byomcp-offset, --byomcp-z-index; parts: launcher, panel, header, title,
 * status, close, banner, transcript, message, user, assistant, tool, note, error, retry, confirm,
 * confirm-ok, confirm-cancel, composer, input, send, stop, suggestion, footer.
 */

import { EventType, StopReason, ErrorCode } from './protocol.js';
import { ClosedError, RpcError } from './wsrpc.js';
import { MarkdownStream, renderMarkdown } from './markdown.js';
import { DEFAULT_STRINGS, resolveStrings, format } from './strings.js';
import { buildConfirmCard, confirmAnnouncement } from './confirm-card.js';
import { Dock } from './layout.js';

/** How long after a Stop the widget waits for the agent's turn_end before ending the turn itself. */
const STOP_FALLBACK_MS = 5000;
/** How long after a session result the widget waits for replayed events before using them. */
const REPLAY_FLUSH_MS = 1500;
/** A tool result longer than this is cut in the transcript (the agent has the whole text). */
const MAX_RESULT_CHARS = 4000;
/** sessionStorage key remembering whether the panel was open, so it stays open across pages. */
const OPEN_KEY = 'byomcp:open';
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
 * One entry of the `session` event's messages.
 * @typedef {object} StoredMessage
 * @property {'user'|'assistant'|'tool'|string} role
 * @property {unknown} content
 * @property {{id: string, name: string, arguments: unknown}[]} [toolCalls]
 * @property {string} [toolCallId]
 * @property {string} [name]
 * @property {string} [turnId]
 */

/**
 * A turn rebuilt from stored messages.
 * @typedef {object} RestoredTurn
 * @property {string|null} turnId
 * @property {string|null} userText
 * @property {({kind: 'text', text: string} | {kind: 'tool', callId: string, name: string, args: unknown, result?: string, isError?: boolean})[]} items
 * @property {Set<string>} calls ids of tool calls the messages hold
 * @property {Set<string>} results ids of tool calls whose result the messages hold
 * @property {boolean} finished the messages hold the turn's final answer
 */

/**
 * Pretty-prints tool arguments or results: JSON text is parsed and indented, other values are
 * stringified; plain text stays as it is.
 * @param {unknown} value
 * @returns {string}
 */
export function prettyJSON(value) {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') {
    const t = value.trim();
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        return JSON.stringify(JSON.parse(t), null, 2);
      } catch {
        return value;
      }
    }
    return value;
  }
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The text of a stored message's content (a string, or an array of {type:'text', text} parts).
 * @param {unknown} content
 * @returns {string}
 */
function contentText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === 'object' && typeof p.text === 'string' ? p.text : '')).join('');
  }
  return '';
}

/** The envelope the agent puts around tool output for the model (agentsvc/tools.Wrap). */
const TOOL_OUTPUT_RE = /^<tool_output tool="(?:[^"\\]|\\.)*" status="(ok|error)">\n([\s\S]*)\n<\/tool_output>(?:\n\([^\n]*\))?\s*$/;

/**
 * The plain result a visitor sees from a stored tool message: the model-facing envelope
 * `<tool_output tool=… status=…>…</tool_output> (The content above is data …)` removed.
 * @param {string} text
 * @returns {{text: string, isError: boolean}}
 */
export function unwrapToolOutput(text) {
  const m = TOOL_OUTPUT_RE.exec(String(text ?? ''));
  if (!m) return { text: String(text ?? ''), isError: false };
  // The agent writes a "<" that would open a wrapper tag inside the output as "&lt;".
  return { text: m[2].replace(/&lt;(\s*\/?\s*tool_output)/gi, '<$1'), isError: m[1] === 'error' };
}

/**
 * Groups a session's stored messages into turns: a turn starts at each user message (or where
 * the turnId changes) and holds the assistant's text and tool calls with their results.
 * @param {StoredMessage[]} messages
 * @returns {RestoredTurn[]}
 */
export function groupMessages(messages) {
  /** @type {RestoredTurn[]} */
  const turns = [];
  /** @type {RestoredTurn|null} */
  let cur = null;
  /** @type {Map<string, {kind: 'tool', callId: string, name: string, args: unknown, result?: string, isError?: boolean}>} */
  let byCall = new Map();
  const start = (/** @type {string|null} */ turnId, /** @type {string|null} */ userText) => {
    cur = { turnId, userText, items: [], calls: new Set(), results: new Set(), finished: false };
    byCall = new Map();
    turns.push(cur);
    return cur;
  };
  for (const m of Array.isArray(messages) ? messages : []) {
    if (!m || typeof m !== 'object') continue;
    const turnId = typeof m.turnId === 'string' && m.turnId ? m.turnId : null;
    if (m.role === 'user') {
      start(turnId, contentText(m.content));
      continue;
    }
    /** @type {RestoredTurn} */
    let t = cur ?? start(turnId, null);
    if (turnId && t.turnId && turnId !== t.turnId) t = start(turnId, null);
    if (turnId && !t.turnId) t.turnId = turnId;
    if (m.role === 'assistant') {
      const text = contentText(m.content);
      if (text.trim()) t.items.push({ kind: 'text', text });
      const calls = Array.isArray(m.toolCalls) ? m.toolCalls : [];
      for (const c of calls) {
        if (!c || typeof c.id !== 'string') continue;
        const item = { kind: /** @type {'tool'} */ ('tool'), callId: c.id, name: String(c.name ?? ''), args: c.arguments };
        t.items.push(item);
        t.calls.add(c.id);
        byCall.set(c.id, item);
      }
      if (calls.length === 0) t.finished = true;
    } else if (m.role === 'tool') {
      const id = typeof m.toolCallId === 'string' ? m.toolCallId : '';
      let item = byCall.get(id);
      if (!item) {
        item = { kind: 'tool', callId: id, name: String(m.name ?? ''), args: undefined };
        t.items.push(item);
        byCall.set(id, item);
      }
      const plain = unwrapToolOutput(contentText(m.content));
      item.result = plain.text;
      item.isError = plain.isError;
      if (id) t.results.add(id);
    }
  }
  return turns;
}

/**
 * Drops the replayed events of a restored turn that its stored messages already show: tool
 * calls and results the messages hold, and text streamed before the last of those (it belongs
 * to model calls whose message is stored). What is left is new: the answer still being written.
 * @param {any[]} events replayed agent/event params of one turn, in seq order
 * @param {RestoredTurn} turn
 * @returns {any[]}
 */
export function filterReplay(events, turn) {
  if (turn.finished) return [];
  const covered = (/** @type {any} */ e) =>
    (e.type === EventType.ToolCall && turn.calls.has(e.callId)) || (e.type === EventType.ToolResult && turn.results.has(e.callId));
  let last = -1;
  events.forEach((e, i) => {
    if (covered(e)) last = i;
  });
  return events.filter((e, i) => !covered(e) && !(e.type === EventType.TextDelta && i < last));
}

const ICON_CHAT =
  '<svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 3C6.9 3 3 6.6 3 11c0 2.1.9 4 2.4 5.4-.2 1.5-.8 2.9-1.8 4 2.1-.1 4-.8 5.5-1.9 1 .3 1.9.5 2.9.5 5.1 0 9-3.6 9-8s-3.9-8-9-8Zm-4 9.3a1.3 1.3 0 1 1 0-2.6 1.3 1.3 0 0 1 0 2.6Zm4 0a1.3 1.3 0 1 1 0-2.6 1.3 1.3 0 0 1 0 2.6Zm4 0a1.3 1.3 0 1 1 0-2.6 1.3 1.3 0 0 1 0 2.6Z"/></svg>';
const ICON_CLOSE =
  '<svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false"><path fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" d="M6 6l12 12M18 6 6 18"/></svg>';
const ICON_SEND =
  '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"><path fill="currentColor" d="M3.4 20.4 21 12 3.4 3.6 3.3 10l12.2 2-12.2 2 .1 6.4Z"/></svg>';
const ICON_STOP =
  '<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false"><rect x="6" y="6" width="12" height="12" rx="2" fill="currentColor"/></svg>';
const ICON_SPARK =
  '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 2.5l1.9 5.6 5.6 1.9-5.6 1.9L12 17.5l-1.9-5.6L4.5 10l5.6-1.9L12 2.5Zm6.5 11 .9 2.6 2.6.9-2.6.9-.9 2.6-.9-2.6-2.6-.9 2.6-.9.9-2.6Z"/></svg>';

const STYLE = `
:host {
  all: initial;
  --_accent: var(--byomcp-accent, #2563eb);
  --_accent-fg: var(--byomcp-accent-fg, #ffffff);
  --_bg: var(--byomcp-bg, #ffffff);
  --_fg: var(--byomcp-fg, #111827);
  --_muted: var(--byomcp-muted, #6b7280);
  --_border: var(--byomcp-border, #e5e7eb);
  --_surface: var(--byomcp-surface, #f3f4f6);
  --_font: var(--byomcp-font, ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif);
  --_radius: var(--byomcp-radius, 16px);
  --_width: var(--byomcp-width, 400px);
  --_height: var(--byomcp-height, 640px);
  --_offset: var(--byomcp-offset, 20px);
  --_z: var(--byomcp-z-index, 2147483000);
  --_label: var(--byomcp-label, #4b5563);
  --_danger: #b91c1c;
  --_ok: #15803d;
  font-family: var(--_font);
  font-size: 15px;
  line-height: 1.5;
  color: var(--_fg);
}
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
button { font: inherit; color: inherit; cursor: pointer; }
button:disabled { cursor: default; opacity: .55; }
:focus-visible { outline: 3px solid var(--_accent); outline-offset: 2px; }
.sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }

.launcher {
  position: fixed; z-index: var(--_z);
  right: calc(var(--_offset) + env(safe-area-inset-right, 0px));
  bottom: calc(var(--_offset) + env(safe-area-inset-bottom, 0px));
  width: 60px; height: 60px; border-radius: 50%; border: 0;
  display: grid; place-items: center;
  background: var(--_accent); color: var(--_accent-fg);
  box-shadow: 0 10px 25px -5px rgb(0 0 0 / .3), 0 4px 8px -4px rgb(0 0 0 / .2);
  transition: transform .15s ease, box-shadow .15s ease;
}
.launcher:hover { transform: translateY(-2px) scale(1.03); }
.launcher:focus-visible { outline-offset: 4px; }
.launcher .icon-close { display: none; }
:host([open]) .launcher .icon-chat { display: none; }
:host([open]) .launcher .icon-close { display: block; }
.launcher .badge {
  position: absolute; top: 2px; right: 2px; width: 14px; height: 14px; border-radius: 50%;
  background: #f59e0b; border: 2px solid var(--_bg);
}

.panel {
  position: fixed; z-index: var(--_z);
  right: calc(var(--_offset) + env(safe-area-inset-right, 0px));
  bottom: calc(var(--_offset) + 76px + env(safe-area-inset-bottom, 0px));
  width: min(var(--_width), calc(100vw - 2 * var(--_offset)));
  height: min(var(--_height), calc(100vh - 2 * var(--_offset) - 96px));
  display: flex; flex-direction: column; overflow: hidden;
  background: var(--_bg); color: var(--_fg);
  border: 1px solid var(--_border); border-radius: var(--_radius);
  box-shadow: 0 24px 60px -12px rgb(15 23 42 / .35), 0 8px 20px -8px rgb(15 23 42 / .2);
  opacity: 0; transform: translateY(12px) scale(.98); transform-origin: bottom right;
  visibility: hidden; pointer-events: none;
  transition: opacity .18s ease, transform .18s ease, visibility 0s linear .18s;
}
:host([open]) .panel {
  opacity: 1; transform: none; visibility: visible; pointer-events: auto;
  transition: opacity .18s ease, transform .18s ease, visibility 0s;
}

.header {
  display: flex; align-items: center; gap: 12px; padding: 14px 14px 14px 16px;
  background: var(--_accent); color: var(--_accent-fg);
}
.avatar {
  flex: none; width: 38px; height: 38px; border-radius: 50%; display: grid; place-items: center;
  background: rgb(255 255 255 / .18);
}
.heading { flex: 1; min-width: 0; }
.title { margin: 0; font-size: 16px; font-weight: 650; line-height: 1.25; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.status { margin: 2px 0 0; font-size: 12.5px; opacity: .92; display: flex; align-items: center; gap: 6px; }
.dot { width: 8px; height: 8px; border-radius: 50%; background: #fbbf24; flex: none; }
.status[data-state="open"] .dot { background: #4ade80; }
.status[data-state="closed"] .dot, .status[data-state="idle"] .dot { background: #9ca3af; }
.close {
  flex: none; width: 44px; height: 44px; border-radius: 10px; border: 0; display: grid; place-items: center;
  background: transparent; color: inherit;
}
.close:hover { background: rgb(255 255 255 / .16); }
.close:focus-visible { outline-color: var(--_accent-fg); outline-offset: 0; }

.banner {
  display: flex; align-items: center; gap: 8px; padding: 8px 16px; font-size: 13px;
  background: #fffbeb; color: #92400e; border-bottom: 1px solid #fde68a;
}

.transcript {
  flex: 1; min-height: 0; overflow-y: auto; overscroll-behavior: contain; padding: 16px 16px 8px;
  scroll-behavior: auto;
}
.transcript:focus-visible { outline-offset: -3px; }
.empty { padding: 8px 2px 4px; }
.greeting { margin: 0 0 14px; color: var(--_fg); }
.suggestions { display: flex; flex-wrap: wrap; gap: 8px; }
.suggestion {
  min-height: 44px; border: 1px solid var(--_border); background: var(--_bg); border-radius: 999px; padding: 7px 14px;
  font-size: 13.5px; text-align: left; line-height: 1.3;
}
.suggestion:hover { border-color: var(--_accent); color: var(--_accent); }
.has-messages .empty { display: none; }

.turn { margin: 0 0 14px; }
.user {
  margin: 0 0 10px auto; max-width: 85%; width: fit-content;
  padding: 9px 13px; border-radius: 16px 16px 4px 16px;
  background: var(--_accent); color: var(--_accent-fg);
  white-space: pre-wrap; overflow-wrap: anywhere;
}
.assistant { max-width: 100%; overflow-wrap: anywhere; }
.text > :first-child, .text .md-tail > :first-child { margin-top: 0; }
.text > :last-child, .text .md-tail > :last-child { margin-bottom: 0; }
.text { margin: 0 0 8px; }
.md-tail { display: contents; }
.text p { margin: 0 0 .6em; }
.text ul, .text ol { margin: 0 0 .6em; padding-left: 1.4em; }
.text li { margin: .15em 0; }
.text li > ul, .text li > ol { margin: .15em 0; }
.text code {
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88em;
  background: var(--_surface); border-radius: 5px; padding: .1em .35em;
}
.text pre {
  margin: 0 0 .6em; padding: 10px 12px; border-radius: 10px; overflow-x: auto;
  background: #0f172a; color: #e2e8f0; font-size: 13px; line-height: 1.45;
}
.text pre code { background: none; padding: 0; color: inherit; font-size: inherit; }
.text a { color: var(--_accent); text-decoration: underline; text-underline-offset: 2px; }

.tool {
  margin: 0 0 8px; border: 1px solid var(--_border); border-radius: 12px; background: var(--_surface);
  font-size: 13.5px;
}
.tool > summary {
  list-style: none; display: flex; align-items: center; gap: 8px; min-height: 44px; padding: 7px 11px; cursor: pointer;
  border-radius: 12px; color: var(--_fg);
}
.tool > summary::-webkit-details-marker { display: none; }
.tool > summary::after {
  content: ""; margin-left: auto; width: 7px; height: 7px; flex: none;
  border-right: 2px solid var(--_muted); border-bottom: 2px solid var(--_muted);
  transform: rotate(-45deg); transition: transform .15s ease;
}
.tool[open] > summary::after { transform: rotate(45deg); }
.tool-title { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.tool-icon { flex: none; width: 16px; height: 16px; border-radius: 50%; display: grid; place-items: center; font-size: 11px; font-weight: 700; color: #fff; }
.tool[data-state="running"] .tool-icon { border: 2px solid var(--_border); border-top-color: var(--_accent); animation: spin .8s linear infinite; }
.tool[data-state="ok"] .tool-icon { background: var(--_ok); }
.tool[data-state="ok"] .tool-icon::before { content: "✓"; }
.tool[data-state="error"] .tool-icon { background: var(--_danger); }
.tool[data-state="error"] .tool-icon::before { content: "!"; }
.tool[data-state="interrupted"] .tool-icon { background: var(--_muted); }
.tool[data-state="interrupted"] .tool-icon::before { content: "–"; }
.tool-body { padding: 0 11px 10px; }
.tool-label { margin: 6px 0 3px; font-size: 11.5px; font-weight: 650; text-transform: uppercase; letter-spacing: .04em; color: var(--_label); }
.tool-pre {
  margin: 0; padding: 8px 10px; border-radius: 8px; background: var(--_bg); border: 1px solid var(--_border);
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; line-height: 1.45;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 220px; overflow-y: auto;
}
.tool[data-state="error"] .tool-pre.result { color: var(--_danger); }

.note { margin: 0 0 8px; font-size: 12.5px; color: var(--_label); }
.queued { margin: -4px 0 10px auto; width: fit-content; font-size: 12.5px; color: var(--_label); }
.banner[data-kind="refused"] { background: #fef2f2; color: var(--_danger); border-bottom-color: #fecaca; }
.transcript-wrap { position: relative; flex: 1; min-height: 0; display: flex; flex-direction: column; }
.new-messages {
  position: absolute; left: 50%; bottom: 10px; transform: translateX(-50%); min-height: 44px; padding: 6px 16px;
  border-radius: 999px; border: 0; background: var(--_fg); color: var(--_bg); font-size: 13.5px; font-weight: 600;
  box-shadow: 0 6px 16px -6px rgb(15 23 42 / .45);
}
.error {
  margin: 0 0 8px; padding: 9px 12px; border-radius: 12px; font-size: 14px;
  background: #fef2f2; color: var(--_danger); border: 1px solid #fecaca;
  display: flex; align-items: center; gap: 10px; flex-wrap: wrap;
}
.error-text { flex: 1; min-width: 12em; }
.retry {
  min-height: 44px; min-width: 44px; border: 1px solid currentColor; background: var(--_bg); color: var(--_danger); border-radius: 8px; padding: 4px 14px; font-size: 13.5px;
}

.confirm {
  margin: 0 0 10px; padding: 12px 14px; border-radius: 14px; border: 1.5px solid var(--_accent);
  background: var(--_bg); box-shadow: 0 6px 18px -8px rgb(15 23 42 / .25);
}
.confirm:focus-visible { outline-offset: 2px; }
.confirm-title { margin: 0 0 2px; font-size: 13px; color: var(--_label); }
.confirm-action { margin: 0 0 4px; font-weight: 650; font-size: 15.5px; }
.confirm-body { margin: 0 0 8px; font-size: 14px; color: var(--_label); }
.confirm-args { margin: 0 0 10px; display: grid; grid-template-columns: minmax(7em, auto) 1fr; gap: 5px 12px; font-size: 14px; }
.confirm-args dt { color: var(--_label); }
.confirm-args dt small { display: block; font-size: 12px; }
.confirm-args dd { margin: 0; overflow-wrap: anywhere; white-space: pre-wrap; font-weight: 600; }
.confirm-actions { display: flex; justify-content: flex-end; gap: 8px; }
.confirm-hint { margin: 8px 0 0; font-size: 12px; color: var(--_label); text-align: right; }
.btn { min-height: 44px; min-width: 44px; border-radius: 10px; padding: 7px 18px; font-weight: 600; font-size: 14px; }
.btn-secondary { border: 1px solid var(--_border); background: var(--_bg); }
.btn-primary { border: 1px solid var(--_accent); background: var(--_accent); color: var(--_accent-fg); }

.thinking { display: flex; gap: 4px; padding: 6px 2px 10px; }
.thinking span { width: 7px; height: 7px; border-radius: 50%; background: var(--_muted); opacity: .5; animation: blink 1.2s infinite ease-in-out; }
.thinking span:nth-child(2) { animation-delay: .2s; }
.thinking span:nth-child(3) { animation-delay: .4s; }

.composer {
  display: flex; align-items: flex-end; gap: 8px; margin: 0; padding: 10px 12px;
  border-top: 1px solid var(--_border); background: var(--_bg);
}
.input {
  flex: 1; resize: none; min-height: 44px; max-height: 140px; padding: 10px 12px;
  border: 1px solid var(--_border); border-radius: 12px; background: var(--_bg); color: var(--_fg);
  font: inherit; line-height: 1.4; outline: none;
}
.input:focus-visible { border-color: var(--_accent); outline: 2px solid var(--_accent); outline-offset: 0; }
.input::placeholder { color: var(--_muted); }
.send, .stop {
  flex: none; width: 44px; height: 44px; border-radius: 12px; border: 0; display: grid; place-items: center;
  background: var(--_accent); color: var(--_accent-fg);
}
.stop { background: var(--_fg); color: var(--_bg); }
.footer { margin: 0; padding: 0 12px 8px; text-align: center; font-size: 11px; color: var(--_label); background: var(--_bg); }

/* Docked: a side panel the page makes room for (the widget sets --byomcp-dock-inset on <html>). */
:host([layout="docked"]) .panel {
  top: 0; right: 0; bottom: 0; width: var(--_width); height: auto; max-height: none;
  border-radius: 0; border-width: 0 0 0 1px; box-shadow: -8px 0 24px -16px rgb(15 23 42 / .35);
  transform: translateX(16px); transform-origin: right center;
}
:host([layout="docked"][open]) .panel { transform: none; }
:host([layout="docked"][open]) .launcher { display: none; }

@keyframes spin { to { transform: rotate(360deg); } }
@keyframes blink { 0%, 80%, 100% { opacity: .25; } 40% { opacity: .9; } }

@media (max-width: 600px) {
  .panel {
    inset: 0; width: 100%; height: 100%; height: 100dvh; border-radius: 0; border: 0;
    padding: env(safe-area-inset-top, 0px) env(safe-area-inset-right, 0px) env(safe-area-inset-bottom, 0px) env(safe-area-inset-left, 0px);
    background: var(--_accent);
    transform: translateY(24px);
  }
  .panel > :not(.header) { background-color: var(--_bg); }
  .transcript, .banner + .transcript { background: var(--_bg); }
  :host([open]) .launcher { display: none; }
  .input { font-size: 16px; }
  :host([sheet]) .panel {
    top: auto; height: min(46dvh, 420px); border-radius: 16px 16px 0 0;
    box-shadow: 0 -12px 32px -12px rgb(15 23 42 / .45);
  }
  :host([sheet]) .panel > .footer { display: none; }
}
@media (prefers-reduced-motion: reduce) {
  .panel, :host([open]) .panel, .launcher { transition: none; }
  .thinking span, .tool[data-state="running"] .tool-icon { animation-duration: 0s; }
}
@media (forced-colors: active) {
  .launcher, .send, .stop, .user, .btn-primary { border: 1px solid CanvasText; }
}
`;

const TEMPLATE = `
<style>${STYLE}</style>
<button class="launcher" part="launcher" type="button" aria-expanded="false" aria-controls="panel">
  <span class="icon-chat">${ICON_CHAT}</span><span class="icon-close">${ICON_CLOSE}</span>
  <span class="badge" hidden></span>
</button>
<section class="panel" id="panel" part="panel" role="dialog" aria-modal="false" aria-labelledby="title">
  <div class="header" part="header">
    <div class="avatar" aria-hidden="true">${ICON_SPARK}</div>
    <div class="heading">
      <h2 class="title" id="title" part="title"></h2>
      <p class="status" part="status" data-state="idle"><span class="dot" aria-hidden="true"></span><span class="status-text"></span></p>
    </div>
    <button class="close" part="close" type="button">${ICON_CLOSE}</button>
  </div>
  <div class="banner" part="banner" role="status" hidden><span class="banner-text"></span></div>
  <div class="transcript-wrap">
    <div class="transcript" part="transcript" role="region" tabindex="0">
      <div class="empty">
        <p class="greeting"></p>
        <div class="suggestions"></div>
      </div>
      <div class="log"></div>
    </div>
    <button class="new-messages" part="new-messages" type="button" hidden></button>
  </div>
  <form class="composer" part="composer">
    <textarea class="input" part="input" rows="1" enterkeyhint="send"></textarea>
    <button class="send" part="send" type="submit">${ICON_SEND}</button>
    <button class="stop" part="stop" type="button" hidden>${ICON_STOP}</button>
  </form>
  <p class="footer" part="footer"></p>
  <div class="sr-only live" aria-live="polite" aria-atomic="true"></div>
</section>
`;

/**
 * What the widget keeps for one turn on screen.
 * @typedef {object} TurnView
 * @property {string|null} id the turnId, once an event (or the stored messages) named it
 * @property {HTMLElement} el the turn's container
 * @property {HTMLElement} body where the assistant's text, tools and notes go
 * @property {MarkdownStream|null} stream the text segment being written
 * @property {Map<string, HTMLDetailsElement>} tools tool-call entries by callId
 * @property {HTMLElement|null} thinking the typing indicator, while shown
 * @property {boolean} done
 * @property {boolean} stopping the user pressed Stop
 * @property {boolean} chatLive this page's agent/chat request for the turn is still pending
 * @property {AbortController|null} abort aborts the pending agent/chat
 * @property {RestoredTurn|null} restored set when the turn was rebuilt from stored messages
 * @property {boolean} [orphan] the socket dropped before the agent named this turn
 * @property {ReturnType<typeof setTimeout>} [stopTimer] ends a stopped turn if turn_end is late
 * @property {string|null} userText what the user asked, when this page knows it
 * @property {boolean} [queued] the message waited for the connection
 * @property {boolean} [resent] the message was sent again after the socket it went out on died
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

const Base = /** @type {typeof HTMLElement} */ (globalThis.HTMLElement ?? class {});

/**
 * The chat widget. Call attach() with an AgentClient (and its ToolHost) to bring it to life.
 */
export class ChatElement extends Base {
  /** @type {ShadowRoot} */ #root;
  /** @type {Record<string, string>} */ #s = { ...DEFAULT_STRINGS };
  /** @type {any} */ #client = null;
  /** @type {Storage|null} */ #storage = null;
  /** @type {Record<string, HTMLElement>} */ #el = {};
  /** @type {Map<string, TurnView>} */ #views = new Map();
  /** @type {TurnView|null} */ #active = null;
  /** @type {string|null} */ #sessionId = null;
  /** @type {Map<string, RestoredTurn>} */ #restored = new Map();
  /** @type {{until: number, events: any[], timer: ReturnType<typeof setTimeout>}|null} */ #replay = null;
  #lastUserText = '';
  #pinned = true;
  #scrollQueued = false;
  /** @type {Set<string>} */ #rejected = new Set();
  #pendingConfirms = 0;
  /** @type {string} */ #state = 'idle';
  /** @type {Journal|null} */ #journal = null;
  /** @type {ReturnType<typeof setTimeout>|undefined} */ #journalTimer;
  /** @type {(name: string) => any} */ #toolInfoFn = () => null;
  /** @type {Dock|null} */ #dock = null;
  /** the transcript's scrollTop after the last scroll event, to tell the reader scrolling up */
  #lastScrollTop = 0;
  /** @type {{origin: string, message: string}|null} */ #refused = null;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#root.innerHTML = TEMPLATE; // static markup only; all text below goes in via textContent
    const q = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (this.#root.querySelector(sel));
    this.#el = {
      launcher: q('.launcher'),
      badge: q('.badge'),
      panel: q('.panel'),
      title: q('.title'),
      status: q('.status'),
      statusText: q('.status-text'),
      close: q('.close'),
      banner: q('.banner'),
      bannerText: q('.banner-text'),
      transcript: q('.transcript'),
      newMessages: q('.new-messages'),
      greeting: q('.greeting'),
      suggestions: q('.suggestions'),
      log: q('.log'),
      form: q('.composer'),
      input: q('.input'),
      send: q('.send'),
      stop: q('.stop'),
      footer: q('.footer'),
      live: q('.live'),
    };
    this.#applyStrings();
    this.#wire();
  }

  /**
   * Connects the element to an agent client and configures it.
   * toolInfo(name) returns what the page registered for a tool (title, inputSchema, annotations)
   * or null; layout is the data-layout choice (see layout.js).
   * @param {{client: any, strings?: Record<string, string>, suggestions?: string[], storage?: Storage|null,
   *   toolInfo?: (name: string) => any, layout?: 'auto'|'docked'|'floating'}} options
   */
  attach({ client, strings, suggestions = [], storage = safeSessionStorage(), toolInfo, layout = 'auto' }) {
    if (this.#client) throw new Error('byomcp-chat: already attached');
    this.#client = client;
    this.#storage = storage;
    if (typeof toolInfo === 'function') this.#toolInfoFn = toolInfo;
    this.#dock = new Dock(this, layout);
    this.#s = resolveStrings(strings);
    this.#applyStrings();
    this.#renderSuggestions(suggestions);
    client.addEventListener('state', (/** @type {any} */ e) => this.#onState(e.detail));
    client.addEventListener('session', (/** @type {any} */ e) => this.#onSession(e.detail));
    client.addEventListener('agent-event', (/** @type {any} */ e) => this.#onEvent(e.detail));
    client.addEventListener('error', (/** @type {any} */ e) => console.warn('byomcp:', e.detail?.message ?? e.detail));
    client.addEventListener('refused', (/** @type {any} */ e) => this.#onRefused(e.detail));
    globalThis.addEventListener?.('pagehide', () => this.#journalWrite());
    this.#onState({ state: client.state });
    this.#setActive(null);
    if (this.#storage?.getItem(OPEN_KEY) === '1') this.open({ focus: false });
  }

  /**
   * Applies settings that arrive after attach (the site's, from the agent's GET /v1/site):
   * strings replace the attached ones (the caller merges what must win), suggestions replace
   * the buttons.
   * @param {{strings?: Record<string, string>, suggestions?: string[]}} options
   */
  configure({ strings, suggestions }) {
    if (strings) {
      this.#s = resolveStrings(strings);
      this.#applyStrings();
    }
    if (suggestions) this.#renderSuggestions(suggestions);
  }

  /** Whether the panel is open. */
  get isOpen() {
    return this.hasAttribute('open');
  }

  /**
   * Opens the panel.
   * @param {{focus?: boolean}} [options] focus the message box (default true)
   */
  open({ focus = true } = {}) {
    if (!this.isOpen) {
      this.setAttribute('open', '');
      this.#el.launcher.setAttribute('aria-expanded', 'true');
      this.#el.launcher.setAttribute('aria-label', this.#s.launcherClose);
      this.#el.badge.hidden = true;
      this.#remember(true);
      this.#dock?.setOpen(true);
      this.#scrollToEnd(true);
    }
    if (focus) this.#el.input.focus();
  }

  /**
   * Closes the panel.
   * @param {{focusLauncher?: boolean}} [options] move focus to the launcher (default true)
   */
  close({ focusLauncher = true } = {}) {
    if (this.isOpen) {
      this.removeAttribute('open');
      this.#el.launcher.setAttribute('aria-expanded', 'false');
      this.#el.launcher.setAttribute('aria-label', this.#s.launcherOpen);
      this.#remember(false);
      this.#dock?.setOpen(false);
      this.#setSheet(false);
    }
    if (focusLauncher) this.#el.launcher.focus();
  }

  /** Opens the panel when closed, closes it when open. */
  toggle() {
    if (this.isOpen) this.close();
    else this.open();
  }

  /**
   * Sends a message as the user (as if typed), unless a turn is running.
   * @param {string} text
   * @returns {Promise<void>} settles when the turn ends
   */
  async send(text) {
    const t = text.trim();
    if (!t || this.#active || !this.#client) return;
    this.#lastUserText = t;
    const view = this.#newView(null, t);
    view.abort = new AbortController();
    view.chatLive = true;
    this.#setActive(view);
    this.#markQueued(view);
    this.#scrollToEnd(true);
    await this.#runChat(view, t);
  }

  /**
   * Shows whether a turn's message is waiting for the connection (instead of typing dots).
   * @param {TurnView} view
   */
  #markQueued(view) {
    if (this.#state === 'open') {
      this.#setThinking(view, true);
      return;
    }
    view.queued = true;
    if (!view.el.querySelector('.queued')) {
      const q = this.#make('p', 'queued', this.#s.queued);
      q.setAttribute('role', 'status');
      view.el.querySelector('.user')?.after(q);
    }
    this.#onState({ state: this.#state });
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
        view.orphan = true;
        return;
      }
      this.#showError(view, this.#errorText(err));
      this.#endTurn(view, StopReason.Error, '');
    }
  }

  /**
   * Asks the user to confirm a tool call inside the panel (opening it when closed). Resolves
   * true on Confirm, false on Cancel or when signal aborts (the card is then withdrawn).
   * @param {{name: string, args?: unknown, annotations?: unknown, signal?: AbortSignal, tool?: import('./confirm-card.js').ToolInfo}} request
   *   tool: what the page registered (title, inputSchema), to label the call; looked up with the
   *   toolInfo function given to attach() when absent
   * @returns {Promise<boolean>}
   */
  confirm({ name, args, signal, tool }) {
    return new Promise((resolve) => {
      if (signal?.aborted) {
        resolve(false);
        return;
      }
      const s = this.#s;
      const info = tool ?? this.#toolInfo(name);
      let settled = false;
      /** @type {HTMLElement} */
      let card;
      const finish = (/** @type {boolean} */ approved, /** @type {string} */ noteText) => {
        if (settled) return;
        settled = true;
        this.#pendingConfirms--;
        signal?.removeEventListener('abort', onAbort);
        const hadFocus = this.#root.activeElement && card.contains(this.#root.activeElement);
        card.replaceWith(this.#note(format(noteText, { name: label })));
        if (hadFocus) this.#el.input.focus();
        resolve(approved);
      };
      const onAbort = () => finish(false, s.confirmDismissed);
      const built = buildConfirmCard({
        doc: this.#doc(),
        strings: s,
        name,
        args,
        info,
        onAnswer: (approved) => finish(approved, approved ? s.confirmed : s.declined),
      });
      card = built.card;
      const label = built.label;

      const view = this.#active && !this.#active.done ? this.#active : null;
      const anchor = view ? [...view.tools.values()].reverse().find((d) => d.dataset.name === name && d.dataset.state === 'running') : null;
      if (anchor) anchor.after(card);
      else (view ? view.body : this.#el.log).append(card);
      this.#markHasMessages();
      this.#pendingConfirms++;
      signal?.addEventListener('abort', onAbort, { once: true });

      // The visitor must see the whole card: the panel opens full size (not as a bottom sheet),
      // and the card is scrolled into view now and after the layout settles.
      this.#setSheet(false);
      if (!this.isOpen) this.open({ focus: false });
      this.#reveal(card);
      card.focus({ preventScroll: true });
      this.#announce(confirmAnnouncement(s, label));
    });
  }

  // ---- wiring ---------------------------------------------------------------------------

  #wire() {
    const el = this.#el;
    el.launcher.addEventListener('click', () => this.toggle());
    el.close.addEventListener('click', () => this.close());
    el.panel.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !e.defaultPrevented) {
        e.preventDefault();
        this.close();
      }
    });
    el.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.#submit();
    });
    el.input.addEventListener('keydown', (/** @type {KeyboardEvent} */ e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
        e.preventDefault();
        this.#submit();
      }
    });
    el.input.addEventListener('input', () => this.#autosize());
    el.stop.addEventListener('click', () => this.#stop());
    // Stick to the bottom unless the reader scrolls up: content growing never unpins, only the
    // reader moving up does; reaching the end again pins.
    el.transcript.addEventListener('scroll', () => {
      const t = el.transcript;
      const atEnd = t.scrollHeight - t.scrollTop - t.clientHeight < 24;
      if (atEnd) this.#pinned = true;
      else if (t.scrollTop < this.#lastScrollTop - 2) this.#pinned = false;
      this.#lastScrollTop = t.scrollTop;
      if (this.#pinned) el.newMessages.hidden = true;
    });
    el.newMessages.addEventListener('click', () => {
      this.#scrollToEnd(true);
      el.newMessages.hidden = true;
      el.input.focus();
    });
    // Whatever changes the transcript's height (streamed text, Markdown settling, a card, the
    // panel resizing) keeps a pinned reader at the end.
    if (typeof ResizeObserver === 'function') {
      const ro = new ResizeObserver(() => this.#followEnd());
      ro.observe(el.log);
      ro.observe(el.transcript);
    }
    // The phone's bottom sheet goes back to full size when the visitor turns to the panel.
    el.input.addEventListener('focus', () => this.#setSheet(false));
    el.panel.addEventListener('pointerdown', () => this.#setSheet(false));
  }

  #submit() {
    const input = /** @type {HTMLTextAreaElement} */ (this.#el.input);
    const text = input.value.trim();
    if (!text || this.#active) return;
    input.value = '';
    this.#autosize();
    void this.send(text);
  }

  #autosize() {
    const input = this.#el.input;
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight + 2, 140)}px`;
  }

  #applyStrings() {
    const s = this.#s;
    const el = this.#el;
    el.title.textContent = s.title;
    el.launcher.setAttribute('aria-label', this.isOpen ? s.launcherClose : s.launcherOpen);
    el.panel.setAttribute('aria-label', s.panelLabel);
    el.close.setAttribute('aria-label', s.close);
    el.transcript.setAttribute('aria-label', s.transcriptLabel);
    el.greeting.textContent = s.greeting;
    el.input.setAttribute('aria-label', s.inputLabel);
    el.input.setAttribute('placeholder', s.inputPlaceholder);
    el.send.setAttribute('aria-label', s.send);
    el.stop.setAttribute('aria-label', s.stopLabel);
    el.footer.textContent = s.poweredBy;
    el.newMessages.textContent = s.newMessages;
    this.#onState({ state: this.#state });
  }

  /** @param {string[]} suggestions */
  #renderSuggestions(suggestions) {
    const box = this.#el.suggestions;
    box.replaceChildren();
    for (const text of Array.isArray(suggestions) ? suggestions : []) {
      if (typeof text !== 'string' || !text.trim()) continue;
      const b = this.#make('button', 'suggestion', text);
      b.setAttribute('type', 'button');
      b.setAttribute('part', 'suggestion');
      b.addEventListener('click', () => {
        void this.send(text);
        this.#el.input.focus();
      });
      box.append(b);
    }
  }

  /** @param {boolean} open */
  #remember(open) {
    try {
      this.#storage?.setItem(OPEN_KEY, open ? '1' : '0');
    } catch {
      // Storage may be full or forbidden; the panel just will not reopen by itself.
    }
  }

  // ---- client events --------------------------------------------------------------------

  /** @param {{state: string}} detail */
  #onState({ state }) {
    this.#state = state ?? 'idle';
    const s = this.#s;
    const text = { idle: s.disconnected, connecting: s.connecting, open: s.subtitle || s.connected, reconnecting: s.reconnecting, closed: s.disconnected }[this.#state] ?? this.#state;
    const open = this.#state === 'open';
    if (open) this.#refused = null;
    this.#el.status.dataset.state = this.#state;
    this.#el.statusText.textContent = text;
    const lost = this.#state === 'reconnecting';
    const banner = this.#el.banner;
    banner.hidden = !lost && !this.#refused;
    if (this.#refused) {
      banner.dataset.kind = 'refused';
      this.#el.bannerText.textContent = this.#refused.message;
    } else {
      banner.dataset.kind = 'offline';
      const busy = this.#active && !this.#active.done;
      const offline = globalThis.navigator?.onLine === false;
      this.#el.bannerText.textContent = busy && !this.#active?.queued ? `${s.reconnecting} ${s.errorConnection}` : offline || this.#active?.queued ? s.offline : s.reconnecting;
    }
    // A turn waiting for the connection shows that, not typing dots.
    const a = this.#active;
    if (a && !a.done) {
      if (!open && a.thinking) this.#setThinking(a, false);
      else if (open && !a.thinking && !a.stream && this.#pendingConfirms === 0) this.#setThinking(a, true);
      a.el.querySelector('.queued')?.toggleAttribute('hidden', open);
    }
  }

  /** @param {{origin: string, message: string}} detail */
  #onRefused(detail) {
    const origin = String(detail?.origin ?? '');
    this.#refused = { origin, message: format(this.#s.refusedOrigin, { origin: origin || globalThis.location?.origin || '' }) };
    console.error(`byomcp: ${this.#refused.message}${detail?.message ? ` (agent: ${detail.message})` : ''}`);
    this.#onState({ state: this.#state });
  }

  /** @param {{sessionId: string, resumed: boolean, messages: StoredMessage[], seq: number}} detail */
  #onSession(detail) {
    const sameSession = this.#sessionId !== null && this.#sessionId === detail.sessionId;
    if (!sameSession) {
      // First session of this page, or the agent lost ours: show what the agent has.
      this.#flushReplay();
      this.#clearTranscript();
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
      this.#scrollToEnd(true);
    }
    const active = this.#active;
    if (active && !active.done && active.orphan) {
      // Our message went out on a socket that died: unless the replay names its turn shortly
      // (the agent got it), send it again now that the connection is back, once.
      setTimeout(() => {
        if (active.done || active.id || this.#active !== active) return;
        if (active.resent || !active.userText || this.#state !== 'open') {
          this.#showError(active, this.#s.errorNotSent);
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
      for (const e of filterReplay(events, /** @type {RestoredTurn} */ (this.#restored.get(turnId)))) keep.add(e);
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
        this.#setThinking(view, false);
        this.#textStream(view).append(e.delta);
        this.#scrollToEnd();
        break;
      case EventType.ToolCall:
        this.#adoptIfIdle(view);
        this.#endText(view);
        this.#setThinking(view, false);
        this.#toolCall(view, e.callId, e.name, e.arguments);
        if (this.#changesPage(e.name)) this.#setSheet(true);
        break;
      case EventType.ToolResult:
        this.#toolResult(view, e.callId, e.name, e.isError === true, e.text);
        if (!view.done) this.#setThinking(view, true);
        break;
      case EventType.Error:
        this.#showError(view, typeof e.message === 'string' && e.message ? e.message : this.#s.errorGeneric);
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
    const note = this.#note(format(this.#s.toolRejected, { name }));
    note.classList.add('rejected');
    note.title = reason;
    this.#el.log.append(note);
    this.#markHasMessages();
    this.#scrollToEnd();
  }

  // ---- turns ----------------------------------------------------------------------------

  /**
   * @param {string|null} id
   * @param {string|null} userText
   * @returns {TurnView}
   */
  #newView(id, userText) {
    const el = this.#make('div', 'turn');
    if (userText !== null) {
      const u = this.#make('div', 'user');
      u.setAttribute('part', 'message user');
      u.append(this.#make('span', 'sr-only', `${this.#s.you}: `), this.#make('span', 'user-text', userText));
      el.append(u);
    }
    const body = this.#make('div', 'assistant');
    body.setAttribute('part', 'message assistant');
    body.append(this.#make('span', 'sr-only', `${this.#s.assistant}: `));
    el.append(body);
    this.#el.log.append(el);
    this.#markHasMessages();
    /** @type {TurnView} */
    const view = { id, el, body, stream: null, tools: new Map(), thinking: null, done: false, stopping: false, chatLive: false, abort: null, restored: null, userText };
    if (id) this.#views.set(id, view);
    return view;
  }

  /**
   * @param {TurnView} view
   * @param {string} id
   */
  #bind(view, id) {
    view.id = id;
    view.orphan = false;
    view.queued = false;
    view.el.querySelector('.queued')?.remove();
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
    const v = this.#newView(id, null);
    return v;
  }

  /**
   * Makes a turn that is running without this page having started it (restored, or replayed)
   * the active one, so Stop works on it.
   * @param {TurnView} view
   */
  #adoptIfIdle(view) {
    if (!this.#active && !view.done) {
      this.#setActive(view);
      this.#setThinking(view, true);
    }
  }

  /** @param {TurnView|null} view */
  #setActive(view) {
    this.#active = view;
    const busy = !!view;
    this.#el.send.hidden = busy;
    this.#el.stop.hidden = !busy;
    /** @type {HTMLButtonElement} */ (this.#el.stop).disabled = false;
    this.#el.stop.setAttribute('aria-label', this.#s.stopLabel);
    this.setAttribute('aria-busy', String(busy));
    if (!busy && this.#root.activeElement === this.#el.stop) this.#el.input.focus();
  }

  /**
   * The markdown stream of the turn's current text segment, created when needed.
   * @param {TurnView} view
   * @returns {MarkdownStream}
   */
  #textStream(view) {
    if (!view.stream) {
      const seg = this.#make('div', 'text');
      view.body.append(seg);
      view.stream = new MarkdownStream(seg, { base: this.#base() });
    }
    return view.stream;
  }

  /** @param {TurnView} view */
  #endText(view) {
    if (view.stream) {
      view.stream.finish();
      view.stream = null;
    }
  }

  /**
   * @param {TurnView} view
   * @param {boolean} on
   */
  #setThinking(view, on) {
    if (on && !view.thinking && !view.done) {
      const t = this.#make('div', 'thinking');
      t.setAttribute('role', 'img');
      t.setAttribute('aria-label', this.#s.thinking);
      t.append(this.#make('span'), this.#make('span'), this.#make('span'));
      view.thinking = t;
      view.body.append(t);
      this.#scrollToEnd();
    } else if (!on && view.thinking) {
      view.thinking.remove();
      view.thinking = null;
    } else if (on && view.thinking && view.thinking !== view.body.lastElementChild) {
      view.body.append(view.thinking);
    }
  }

  /**
   * @param {TurnView} view
   * @param {string} callId
   * @param {string} name
   * @param {unknown} args
   * @param {{result?: string, state?: string}} [opts]
   */
  #toolCall(view, callId, name, args, opts = {}) {
    const id = String(callId ?? '');
    if (id && view.tools.has(id)) return;
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
    body.append(
      this.#make('p', 'tool-label', this.#s.toolArguments),
      this.#pre('tool-pre args', argsText && argsText !== '{}' ? argsText : this.#s.noArguments),
    );
    d.append(summary, body);
    // The call's confirmation may have come before its tool_call event: keep the call first.
    const card = [...view.body.querySelectorAll('.confirm')].find((c) => /** @type {HTMLElement} */ (c).dataset.name === d.dataset.name);
    if (card) card.before(d);
    else this.#insertBeforeThinking(view, d);
    if (id) view.tools.set(id, d);
    this.#setToolState(d, 'running');
    if (opts.result !== undefined) this.#setToolResult(d, opts.state ?? 'ok', opts.result);
    else if (opts.state) this.#setToolState(d, opts.state);
    this.#scrollToEnd();
  }

  /**
   * @param {TurnView} view
   * @param {string} callId
   * @param {string} name
   * @param {boolean} isError
   * @param {unknown} text
   */
  #toolResult(view, callId, name, isError, text) {
    let d = view.tools.get(String(callId ?? ''));
    if (!d) {
      this.#toolCall(view, callId, name, undefined);
      d = /** @type {HTMLDetailsElement} */ (view.tools.get(String(callId ?? '')) ?? view.body.querySelector('details.tool:last-of-type'));
    }
    if (d) this.#setToolResult(d, isError ? 'error' : 'ok', typeof text === 'string' ? text : prettyJSON(text));
    this.#scrollToEnd();
  }

  /**
   * @param {HTMLDetailsElement} d
   * @param {string} state
   * @param {string} text
   */
  #setToolResult(d, state, text) {
    const body = /** @type {HTMLElement} */ (d.querySelector('.tool-body'));
    body.querySelectorAll('.result, .result-label').forEach((n) => n.remove());
    const shown = text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}…` : text;
    const label = this.#make('p', 'tool-label result-label', state === 'error' ? this.#s.toolError : this.#s.toolResult);
    body.append(label, this.#pre('tool-pre result', prettyJSON(shown)));
    this.#setToolState(d, state);
  }

  /**
   * @param {HTMLDetailsElement} d
   * @param {string} state running | ok | error | interrupted
   */
  #setToolState(d, state) {
    d.dataset.state = state;
    const name = d.dataset.name ?? '';
    const tpl = { running: this.#s.toolRunning, ok: this.#s.toolDone, error: this.#s.toolFailed, interrupted: this.#s.toolDone }[state] ?? this.#s.toolDone;
    const title = /** @type {HTMLElement} */ (d.querySelector('.tool-title'));
    title.textContent = format(tpl, { name });
  }

  /**
   * @param {TurnView} view
   * @param {Node} node
   */
  #insertBeforeThinking(view, node) {
    if (view.thinking) view.body.insertBefore(node, view.thinking);
    else view.body.append(node);
  }

  /**
   * @param {TurnView} view
   * @param {string} stopReason
   * @param {string} text the turn's final text, as the agent reports it
   */
  #endTurn(view, stopReason, text) {
    if (view.done) return;
    view.done = true;
    clearTimeout(view.stopTimer);
    this.#setThinking(view, false);
    const hadText = !!view.body.querySelector('.text') || !!view.stream?.text;
    this.#endText(view);
    if (!hadText && text && stopReason !== StopReason.Error) {
      const seg = this.#make('div', 'text');
      seg.append(renderMarkdown(text, this.#doc(), { base: this.#base() }));
      this.#insertBeforeThinking(view, seg);
    }
    for (const d of view.tools.values()) if (d.dataset.state === 'running') this.#setToolState(d, 'interrupted');
    if (stopReason === StopReason.Error && !view.body.querySelector('.error')) this.#showError(view, this.#s.errorGeneric);
    if (stopReason === StopReason.Cancelled) {
      view.body.append(this.#note(this.#s.stopped));
      if (view.id) this.#rememberStopped(view.id);
    }
    else if (stopReason === StopReason.MaxIterations) view.body.append(this.#note(this.#s.maxIterations));
    if (stopReason === StopReason.End || stopReason === StopReason.MaxIterations) {
      const segs = view.body.querySelectorAll('.text');
      const last = segs[segs.length - 1];
      const answer = (last?.textContent ?? text).trim();
      if (answer) this.#announce(format(this.#s.answerAnnouncement, { text: answer }));
    }
    if (this.#active === view) this.#setActive(null);
    if (!this.isOpen) this.#el.badge.hidden = false;
    this.#onState({ state: this.#state });
    this.#scrollToEnd();
  }

  #stop() {
    const view = this.#active;
    if (!view || view.done || view.stopping) return;
    view.stopping = true;
    // A disabled button loses focus to <body>: keep the visitor in the composer.
    if (this.#root.activeElement === this.#el.stop) this.#el.input.focus();
    /** @type {HTMLButtonElement} */ (this.#el.stop).disabled = true;
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

  /**
   * @param {TurnView} view
   * @param {string} message
   */
  #showError(view, message) {
    this.#setThinking(view, false);
    this.#endText(view);
    const box = this.#make('div', 'error');
    box.setAttribute('part', 'error');
    box.setAttribute('role', 'alert');
    box.append(this.#make('span', 'error-text', message));
    if (this.#lastUserText) {
      const retry = this.#make('button', 'retry', this.#s.retry);
      retry.setAttribute('type', 'button');
      retry.setAttribute('part', 'retry');
      retry.setAttribute('aria-label', this.#s.retryLabel);
      retry.addEventListener('click', () => {
        if (this.#active) return;
        retry.remove();
        void this.send(this.#lastUserText);
      });
      box.append(retry);
    }
    this.#insertBeforeThinking(view, box);
    this.#scrollToEnd(true);
  }

  /**
   * @param {unknown} err
   * @returns {string}
   */
  #errorText(err) {
    const s = this.#s;
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
   * @param {RestoredTurn} t
   * @param {boolean} ended a later turn exists, so this one is over even if its messages stop short
   */
  #restoreTurn(t, ended) {
    const view = this.#newView(t.turnId, t.userText);
    view.restored = t;
    if (t.turnId) this.#restored.set(t.turnId, t);
    if (t.userText) this.#lastUserText = t.userText;
    for (const item of t.items) {
      if (item.kind === 'text') {
        const seg = this.#make('div', 'text');
        seg.append(renderMarkdown(item.text, this.#doc(), { base: this.#base() }));
        view.body.append(seg);
      } else {
        const state = item.result !== undefined ? (item.isError ? 'error' : 'ok') : t.finished || ended ? 'interrupted' : 'running';
        this.#toolCall(view, item.callId, item.name, item.args, item.result !== undefined ? { result: item.result, state } : { state });
      }
    }
    if (t.turnId && this.#stoppedTurns().includes(t.turnId)) {
      view.body.append(this.#note(this.#s.stopped));
      t.finished = true;
    }
    if (t.finished || ended || !t.turnId) {
      view.done = true;
      for (const d of view.tools.values()) if (d.dataset.state === 'running') this.#setToolState(d, 'interrupted');
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
      view.restored = t;
      this.#restored.set(t.turnId, t);
    }
    const view = this.#views.get(saved.turnId);
    if (t.finished || !view || view.done) {
      this.#journalClear();
      return [];
    }
    const events = saved.events.filter((e) => e && typeof e.seq === 'number' && e.seq <= lastSeq && e.turnId === saved.turnId);
    this.#journal = { sessionId, turnId: saved.turnId, userText: saved.userText ?? null, events: events.map((e) => ({ ...e })), size: JSON.stringify(events).length };
    return events;
  }

  #clearTranscript() {
    this.#views.clear();
    this.#restored.clear();
    if (this.#active) {
      this.#active.done = true;
      this.#setActive(null);
    }
    this.#el.log.replaceChildren();
    this.#el.transcript.classList.remove('has-messages');
  }

  // ---- small helpers --------------------------------------------------------------------

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

  /**
   * @param {string} text
   * @returns {HTMLElement}
   */
  #note(text) {
    const p = this.#make('p', 'note', text);
    p.setAttribute('part', 'note');
    return p;
  }

  /**
   * Creates an element; text goes in with textContent (never as markup).
   * @param {string} tag
   * @param {string} [className]
   * @param {string} [text]
   * @returns {HTMLElement}
   */
  #make(tag, className = '', text) {
    const el = this.#doc().createElement(tag);
    if (className) el.className = className;
    if (text !== undefined) el.textContent = text;
    return el;
  }

  #doc() {
    return this.ownerDocument ?? document;
  }

  #base() {
    return this.#doc().baseURI;
  }

  #markHasMessages() {
    this.#el.transcript.classList.add('has-messages');
  }

  /** @param {string} text */
  #announce(text) {
    const live = this.#el.live;
    live.textContent = '';
    setTimeout(() => {
      live.textContent = text;
    }, 60);
  }

  /** Keeps a pinned reader at the end; tells an unpinned one that there is more below. */
  #followEnd() {
    const t = this.#el.transcript;
    if (this.#pinned) {
      t.scrollTop = t.scrollHeight;
      this.#lastScrollTop = t.scrollTop;
      return;
    }
    if (t.scrollHeight - t.scrollTop - t.clientHeight > 24) this.#el.newMessages.hidden = false;
  }

  /**
   * Scrolls el fully into the transcript's view (its bottom edge first, then its top if it is
   * taller than the view), now and once more after layout has settled.
   * @param {HTMLElement} el
   */
  #reveal(el) {
    const place = () => {
      if (!el.isConnected) return;
      const t = this.#el.transcript;
      const tr = t.getBoundingClientRect();
      const r = el.getBoundingClientRect();
      let delta = 0;
      if (r.bottom > tr.bottom) delta = r.bottom - tr.bottom + 8;
      if (r.top - delta < tr.top) delta = r.top - tr.top - 8;
      t.scrollTop += delta;
      this.#lastScrollTop = t.scrollTop;
      this.#pinned = t.scrollHeight - t.scrollTop - t.clientHeight < 24;
    };
    place();
    const raf = globalThis.requestAnimationFrame ?? ((/** @type {() => void} */ f) => setTimeout(f, 16));
    raf(() => raf(place));
  }

  /**
   * On a phone, shrinks the full-screen panel to a bottom sheet (so the visitor sees the page
   * change) or back. Only while open, and never while a confirmation waits.
   * @param {boolean} on
   */
  #setSheet(on) {
    const phone = globalThis.matchMedia?.('(max-width: 600px)')?.matches === true;
    this.toggleAttribute('sheet', on && phone && this.isOpen && this.#pendingConfirms === 0);
  }

  /**
   * Whether a tool call may change what the page shows: a page tool not marked read-only.
   * @param {unknown} name
   */
  #changesPage(name) {
    const info = this.#toolInfo(String(name ?? ''));
    return !!info && info.annotations?.readOnlyHint !== true;
  }

  /**
   * What the page registered for a tool, or null.
   * @param {string} name
   */
  #toolInfo(name) {
    try {
      return this.#toolInfoFn(name) ?? null;
    } catch {
      return null;
    }
  }

  /**
   * Scrolls the transcript to its end on the next frame, if the reader was at the end (or force).
   * @param {boolean} [force]
   */
  #scrollToEnd(force = false) {
    if (force) this.#pinned = true;
    if (this.#scrollQueued) return;
    this.#scrollQueued = true;
    const raf = globalThis.requestAnimationFrame ?? ((/** @type {() => void} */ f) => setTimeout(f, 16));
    raf(() => {
      this.#scrollQueued = false;
      if (!this.#pinned) {
        this.#followEnd();
        return;
      }
      const t = this.#el.transcript;
      t.scrollTop = t.scrollHeight;
      this.#lastScrollTop = t.scrollTop;
      this.#el.newMessages.hidden = true;
    });
  }
}

/**
 * Defines the custom element (once) and returns its class.
 * @param {string} [tag]
 * @returns {CustomElementConstructor}
 */
export function defineChatElement(tag = 'byomcp-chat') {
  const existing = customElements.get(tag);
  if (existing) return existing;
  customElements.define(tag, ChatElement);
  return ChatElement;
}

/** sessionStorage when the page may use it (sandboxed frames throw on access). */
function safeSessionStorage() {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null;
  }
}
