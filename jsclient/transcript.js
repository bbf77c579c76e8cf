// @ts-check
/**
 * @file The transcript model of `<byomcp-chat>`: a session's stored messages grouped into turns
 * (the visitor's message, the assistant's text, tool calls with their plain results), and how
 * tool arguments and results are printed. No DOM here.
 */

/**
 * One entry of the `session` event's messages.
 * @typedef {object} StoredMessage
 * @property {'user'|'assistant'|'tool'|string} role
 * @property {unknown} content
 * @property {{id: string, name: string, arguments: unknown}[]} [toolCalls]
 * @property {string} [toolCallId]
 * @property {string} [name]
 * @property {string} [turnId]
 * @property {{stopReason: string, error?: string}} [end] on a turn's last message when the
 *   turn did not end with its answer: how it ended (agentsvc's chat.Message.End)
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
 * @property {{stopReason: string, error: string}|null} end how the turn ended when not with
 *   its answer (cancelled, error, max_iterations), as the agent stored it
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
export function contentText(content) {
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
    cur = { turnId, userText, items: [], calls: new Set(), results: new Set(), finished: false, end: null };
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
      if (calls.length === 0 && !turnEnd(m)) t.finished = true;
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
    t.end = turnEnd(m) ?? t.end;
  }
  return turns;
}

/**
 * How a stored message says its turn ended (its end member), or null when it does not.
 * @param {StoredMessage} m
 * @returns {{stopReason: string, error: string}|null}
 */
function turnEnd(m) {
  const end = m.end;
  if (!end || typeof end !== 'object' || typeof end.stopReason !== 'string' || !end.stopReason) return null;
  return { stopReason: end.stopReason, error: typeof end.error === 'string' ? end.error : '' };
}
