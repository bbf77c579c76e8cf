// @ts-check
/**
 * @file How a tool is named to the visitor (its title, else its name made readable): used by the
 * panel for every tool call, and by the confirmation card (confirm-card.js, loaded only when a
 * confirmation is asked).
 */

/**
 * Makes an identifier readable: `book_test_drive` → "Book test drive", `annualIncome` →
 * "Annual income", `get-quote.v2` → "Get quote v2".
 * @param {string} id
 * @returns {string}
 */
export function humanize(id) {
  const words = String(id ?? '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_.\-]+/)
    .filter(Boolean)
    .map((w, i) => (i > 0 && !/^[A-Z0-9]{2,}$/.test(w) ? w.toLowerCase() : w));
  if (words.length === 0) return '';
  const first = words[0];
  words[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return words.join(' ');
}

/**
 * @typedef {object} ToolInfo what the page registered for a tool (ToolHost.listTools()), or
 *   what agent/confirm's params.tool says of a server tool
 * @property {string} name
 * @property {string} [title]
 * @property {string} [description]
 * @property {any} [inputSchema]
 * @property {any} [annotations]
 * @property {Record<string, unknown>} [_meta] `byomcp/summary`: the call's one-line summary
 * @property {(args: any) => unknown} [summary] a page tool's summary function (_meta's, kept
 *   off the wire)
 * @property {() => any} [cardSchema] the schema as the visitor reads it (a declarative form's
 *   labels and option texts), when it differs from inputSchema
 */

/**
 * The name a visitor reads for a tool: its title, else annotations.title, else its name made
 * readable.
 * @param {string} name
 * @param {ToolInfo|null|undefined} info
 * @returns {string}
 */
export function toolLabel(name, info) {
  const t = typeof info?.title === 'string' && info.title.trim() ? info.title : info?.annotations?.title;
  return typeof t === 'string' && t.trim() ? t.trim() : humanize(name) || String(name ?? '');
}
