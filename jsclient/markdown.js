// @ts-check
/**
 * @file A small, safe Markdown renderer for model text in the chat widget.
 * It parses a subset (paragraphs, lists, bold/italic, inline code, code blocks, links; headings
 * become bold paragraphs) into a tree and builds DOM nodes from it with createElement and
 * createTextNode only — never innerHTML — so model text can never become markup or script.
 * Links keep only http(s) and mailto targets and open in a new tab with rel="noopener noreferrer".
 * A link to byomcp:say is a suggestion, not a place: [“Show me SUVs”](byomcp:say) becomes a
 * button (class "suggestion") whose text, without its enclosing quotation marks, the chat
 * element sends as the visitor's message when it is clicked.
 */

/**
 * @typedef {{type: 'text', value: string}
 *   | {type: 'br'}
 *   | {type: 'code', value: string}
 *   | {type: 'strong', children: Inline[]}
 *   | {type: 'em', children: Inline[]}
 *   | {type: 'link', href: string, children: Inline[]}
 *   | {type: 'say', text: string}} Inline
 * @typedef {{type: 'paragraph', children: Inline[]}
 *   | {type: 'heading', level: number, children: Inline[]}
 *   | {type: 'codeblock', lang: string, text: string}
 *   | {type: 'list', ordered: boolean, start: number, items: Block[][]}} Block
 * @typedef {{base?: string, noLinks?: boolean, depth?: number}} ParseOptions base resolves relative links (without
 *   it they are dropped); noLinks is set inside link labels
 */

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

const FENCE_OPEN_RE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING_OPEN_RE = /^ {0,3}(#{1,6})[ \t]/;
const LIST_ITEM_RE = /^( *)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
const ESCAPABLE = /[\\`*_{}[\]()#+\-.!>~|<]/;

/**
 * Returns the href to use for a link target, or null when the target is not allowed
 * (only http:, https: and mailto: survive, after the URL parser normalised them).
 * @param {string} raw
 * @param {string} [base] document URL for relative targets
 * @returns {string | null}
 */
export function safeHref(raw, base) {
  const s = raw.trim();
  if (!s) return null;
  let url;
  try {
    url = base ? new URL(s, base) : new URL(s);
  } catch {
    return null;
  }
  return ALLOWED_PROTOCOLS.has(url.protocol) ? url.href : null;
}

/**
 * Parses Markdown source into blocks.
 * @param {string} src
 * @param {ParseOptions} [opts]
 * @returns {Block[]}
 */
export function parseMarkdown(src, opts = {}) {
  const lines = src.replace(/\r\n?/g, '\n').split('\n').map(expandTabs);
  return parseBlocks(lines, opts);
}

/** @param {string} line */
function expandTabs(line) {
  const m = /^[ \t]+/.exec(line);
  if (!m || !m[0].includes('\t')) return line;
  let col = 0;
  for (const ch of m[0]) col = ch === '\t' ? col + 4 - (col % 4) : col + 1;
  return ' '.repeat(col) + line.slice(m[0].length);
}

/**
 * Matches a code fence line: three or more ` or ~, then an optional language word; the rest
 * of the line holds no backtick. (Written without a regular expression whose parts overlap:
 * one over "```" and 40,000 letters and a "`" backtracked quadratically.)
 * @param {string} line
 * @returns {{marker: string, lang: string} | null}
 */
function matchFence(line) {
  markdownWork.steps += line.length;
  const m = FENCE_OPEN_RE.exec(line);
  if (!m) return null;
  const rest = line.slice(m[0].length);
  if (rest.includes('`')) return null;
  const info = rest.trim();
  let end = 0;
  while (end < info.length && !SPACE_RE.test(info[end])) end++;
  return { marker: m[1], lang: info.slice(0, end) };
}

/**
 * Matches an ATX heading: one to six #, a space, the text, and an optional closing run of #
 * after a space. (The lazy regular expression it replaces was quadratic in trailing spaces.)
 * @param {string} line
 * @returns {{level: number, text: string} | null}
 */
function matchHeading(line) {
  markdownWork.steps += line.length;
  const m = HEADING_OPEN_RE.exec(line);
  if (!m) return null;
  const raw = line.slice(m[0].length);
  const isSpace = (/** @type {string} */ ch) => ch === ' ' || ch === '\t';
  let from = 0;
  let to = raw.length;
  while (from < to && isSpace(raw[from])) from++;
  while (to > from && isSpace(raw[to - 1])) to--;
  // A closing run of # goes when a space inside the text precedes it.
  let hashes = to;
  while (hashes > from && raw[hashes - 1] === '#') hashes--;
  if (hashes < to && hashes > from && isSpace(raw[hashes - 1])) {
    to = hashes;
    while (to > from && isSpace(raw[to - 1])) to--;
  }
  return { level: m[1].length, text: raw.slice(from, to) };
}

/** @param {string} line */
function isBlank(line) {
  return line.trim() === '';
}

/** @param {string} line */
function indentOf(line) {
  return line.length - line.trimStart().length;
}

/** @param {string} line */
function startsBlock(line) {
  return matchFence(line) !== null || matchHeading(line) !== null || isListItem(line);
}

/** @param {string} line */
function isListItem(line) {
  const m = LIST_ITEM_RE.exec(line);
  // "-" alone or "1." alone starts an (empty) item only when nothing follows; "**bold**" is not one.
  return !!m && (m[3] !== undefined || line.trim() === m[2]);
}

/**
 * @param {string[]} lines
 * @param {ParseOptions} opts
 * @returns {Block[]}
 */
function parseBlocks(lines, opts) {
  /** @type {Block[]} */
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = matchFence(line);
    if (fence) {
      const marker = fence.marker;
      const indent = indentOf(line);
      const body = [];
      i++;
      while (i < lines.length) {
        const l = lines[i];
        const t = l.trim();
        if (t.startsWith(marker[0].repeat(marker.length)) && /^([`~])\1*$/.test(t) && t[0] === marker[0]) {
          i++;
          break;
        }
        body.push(l.slice(Math.min(indent, indentOf(l))));
        i++;
      }
      out.push({ type: 'codeblock', lang: fence.lang, text: body.join('\n') });
      continue;
    }
    const heading = matchHeading(line);
    if (heading) {
      out.push({ type: 'heading', level: heading.level, children: parseInline(heading.text, opts) });
      i++;
      continue;
    }
    if (isListItem(line)) {
      i = parseList(lines, i, out, opts);
      continue;
    }
    const para = [line.trim()];
    i++;
    while (i < lines.length && !isBlank(lines[i]) && !startsBlock(lines[i])) {
      para.push(lines[i].trim());
      i++;
    }
    out.push({ type: 'paragraph', children: parseInline(para.join('\n'), opts) });
  }
  return out;
}

/**
 * Parses one list starting at lines[start] and appends it to out.
 * @param {string[]} lines
 * @param {number} start
 * @param {Block[]} out
 * @param {ParseOptions} opts
 * @returns {number} index of the first line after the list
 */
function parseList(lines, start, out, opts) {
  const first = /** @type {RegExpExecArray} */ (LIST_ITEM_RE.exec(lines[start]));
  const baseIndent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const delim = ordered ? first[2].slice(-1) : first[2];
  /** @type {Block[][]} */
  const items = [];
  let i = start;
  while (i < lines.length) {
    const m = LIST_ITEM_RE.exec(lines[i]);
    if (!m || !isListItem(lines[i]) || m[1].length !== baseIndent) break;
    const sameKind = ordered ? /\d/.test(m[2]) && m[2].endsWith(delim) : m[2] === delim;
    if (!sameKind) break;
    const content = m[3] ?? '';
    const contentIndent = content ? lines[i].length - content.length : baseIndent + m[2].length + 1;
    const body = [content.trim()];
    i++;
    while (i < lines.length) {
      const l = lines[i];
      if (isBlank(l)) {
        // A blank line continues the item only if more indented content follows.
        let j = i + 1;
        while (j < lines.length && isBlank(lines[j])) j++;
        if (j < lines.length && indentOf(lines[j]) > baseIndent) {
          for (; i < j; i++) body.push('');
          continue;
        }
        break;
      }
      const ind = indentOf(l);
      if (ind > baseIndent) {
        body.push(l.slice(Math.min(ind, contentIndent)));
        i++;
        continue;
      }
      // Lazy continuation of the item's paragraph.
      const prev = body[body.length - 1];
      if (prev !== '' && !startsBlock(l) && !matchFence(prev.trimStart())) {
        body.push(l.trim());
        i++;
        continue;
      }
      break;
    }
    items.push(parseBlocks(body, opts));
    // Blank lines between items of the same list keep the list going.
    let j = i;
    while (j < lines.length && isBlank(lines[j])) j++;
    if (j > i && j < lines.length) {
      const n = LIST_ITEM_RE.exec(lines[j]);
      if (n && isListItem(lines[j]) && n[1].length === baseIndent && (ordered ? n[2].endsWith(delim) && /\d/.test(n[2]) : n[2] === delim)) {
        i = j;
        continue;
      }
      break;
    }
  }
  out.push({ type: 'list', ordered, start: ordered ? parseInt(first[2], 10) : 1, items });
  return i;
}

/**
 * Work done by the parser, in steps (characters scanned, positions visited, search probes).
 * Every scan is linear in its input and nesting is capped, so rendering n characters costs
 * O(n log n) steps whatever they are; tests read this counter to check it without timing.
 */
export const markdownWork = { steps: 0 };

/**
 * Emphasis and link labels nested deeper than this are rendered as text: a guard that keeps
 * the recursion bounded (the closing rules already keep real nesting to a few levels).
 */
const MAX_NESTING = 16;

const WORD_RE = /[\p{L}\p{N}]/u;
const SPACE_RE = /\s/;
const ANGLE_LINK_RE = /<((?:https?:\/\/|mailto:)[^\s<>]+)>/iy;
const BARE_URL_RE = /https?:\/\/[^\s<>]+/iy;
const LINK_TARGET_RE = /\(\s*<?([^\s<>()]*(?:\([^\s()]*\)[^\s<>()]*)*)>?(?:\s+("[^"]*"|'[^']*'))?\s*\)/y;
const URL_TRAILING_PUNCT = new Set(['.', ',', ';', ':', '!', '?', "'", '"', '*', '_']);

/**
 * @typedef {{j: number, close: number}} Closer a run of * or _ that can close emphasis: the run
 *   starts at j, the emphasis text ends at close
 * @typedef {{
 *   brackets: Int32Array,
 *   ticks: Map<number, number[]>,
 *   closers: Record<string, Closer[][]>,
 * }} InlineScan
 */

/**
 * One pass over s that finds, for each "[", its matching "]" (a backslash skips the next
 * character, as in link labels), the start of every run of backticks by length, and every run
 * of * or _ that can close emphasis of one or two characters. The parser then looks each
 * closer up instead of scanning forward from every opener (40,000 "[" took 3-4.6 s).
 * @param {string} s
 * @returns {InlineScan}
 */
function scanInline(s) {
  markdownWork.steps += s.length;
  const brackets = new Int32Array(s.length).fill(-1);
  /** @type {number[]} */
  const open = [];
  /** @type {Map<number, number[]>} */
  const ticks = new Map();
  /** @type {Record<string, Closer[][]>} */
  const closers = { '*': [[], [], []], _: [[], [], []] };
  for (let j = 0; j < s.length; j++) {
    const c = s[j];
    if (c === '\\') {
      j++;
      continue;
    }
    if (c === '[') open.push(j);
    else if (c === ']' && open.length) brackets[/** @type {number} */ (open.pop())] = j;
  }
  for (let j = 0; j < s.length; ) {
    const c = s[j];
    if (c !== '`' && c !== '*' && c !== '_') {
      j++;
      continue;
    }
    let e = j + 1;
    while (s[e] === c) e++;
    const run = e - j;
    if (c === '`') {
      let list = ticks.get(run);
      if (!list) ticks.set(run, (list = []));
      list.push(j);
    } else {
      const wordAfter = c === '_' && e < s.length && WORD_RE.test(s[e]);
      if (!wordAfter && run === 1 && !SPACE_RE.test(s[j - 1] ?? '')) closers[c][1].push({ j, close: j });
      if (!wordAfter && run >= 2 && !SPACE_RE.test(s[e - 3] ?? '')) closers[c][2].push({ j, close: e - 2 });
    }
    j = e;
  }
  return { brackets, ticks, closers };
}

/**
 * Index of the first element of a sorted list whose key is at least min.
 * @template T
 * @param {T[]} list
 * @param {number} min
 * @param {(x: T) => number} key
 */
function lowerBound(list, min, key) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    markdownWork.steps++;
    const mid = (lo + hi) >>> 1;
    if (key(list[mid]) < min) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** @param {number} x */
const self = (x) => x;
/** @param {Closer} x */
const runStart = (x) => x.j;

/**
 * Parses inline Markdown (code spans, bold, italic, links, autolinks, line breaks).
 * @param {string} s
 * @param {ParseOptions} [opts]
 * @returns {Inline[]}
 */
export function parseInline(s, opts = {}) {
  /** @type {Inline[]} */
  const out = [];
  const depth = opts.depth ?? 0;
  const nest = depth < MAX_NESTING;
  const scan = scanInline(s);
  let buf = '';
  const flush = () => {
    if (buf) out.push({ type: 'text', value: buf });
    buf = '';
  };
  let i = 0;
  while (i < s.length) {
    markdownWork.steps++;
    const c = s[i];
    if (c === '\\' && i + 1 < s.length && ESCAPABLE.test(s[i + 1])) {
      buf += s[i + 1];
      i += 2;
      continue;
    }
    if (c === '\n') {
      flush();
      out.push({ type: 'br' });
      i++;
      continue;
    }
    if (c === '`') {
      let k = 1;
      while (s[i + k] === '`') k++;
      markdownWork.steps += k;
      // The closing run has exactly as many backticks; runs start after this one.
      const runs = scan.ticks.get(k) ?? [];
      const at = lowerBound(runs, i + k, self);
      if (at < runs.length) {
        const j = runs[at];
        let code = s.slice(i + k, j).replace(/\n/g, ' ');
        markdownWork.steps += j - i;
        if (code.length > 1 && code.startsWith(' ') && code.endsWith(' ') && code.trim()) code = code.slice(1, -1);
        flush();
        out.push({ type: 'code', value: code });
        i = j + k;
        continue;
      }
      buf += '`'.repeat(k);
      i += k;
      continue;
    }
    if (c === '*' || c === '_') {
      const emph = nest ? matchEmphasis(s, i, scan) : null;
      if (emph) {
        flush();
        out.push({ type: emph.strong ? 'strong' : 'em', children: parseInline(emph.inner, { ...opts, depth: depth + 1 }) });
        i = emph.end;
        continue;
      }
      let k = 1;
      while (s[i + k] === c) k++;
      markdownWork.steps += k;
      buf += c.repeat(k);
      i += k;
      continue;
    }
    if (c === '[' && !opts.noLinks && nest) {
      const link = matchLink(s, i, scan);
      if (link) {
        flush();
        const href = safeHref(link.target, opts.base);
        const children = parseInline(link.label, { ...opts, noLinks: true, depth: depth + 1 });
        const say = link.label.replace(/^\s*[“"](.*)[”"]\s*$/s, '$1').trim();
        if (link.target.trim() === 'byomcp:say' && say) out.push({ type: 'say', text: say });
        else if (href) out.push({ type: 'link', href, children });
        else out.push(...children);
        i = link.end;
        continue;
      }
    }
    if (c === '<' && !opts.noLinks) {
      ANGLE_LINK_RE.lastIndex = i;
      const m = ANGLE_LINK_RE.exec(s);
      if (m) {
        markdownWork.steps += m[0].length;
        const href = safeHref(m[1]);
        if (href) {
          flush();
          out.push({ type: 'link', href, children: [{ type: 'text', value: m[1] }] });
          i += m[0].length;
          continue;
        }
      }
    }
    if ((c === 'h' || c === 'H') && !opts.noLinks && (i === 0 || !/[\p{L}\p{N}/]/u.test(s[i - 1]))) {
      BARE_URL_RE.lastIndex = i;
      const m = BARE_URL_RE.exec(s);
      if (m) {
        markdownWork.steps += m[0].length;
        let end = m[0].length;
        while (end > 0 && URL_TRAILING_PUNCT.has(m[0][end - 1])) end--;
        // Keep a closing parenthesis only when the URL opened one.
        let opens = 0;
        let closes = 0;
        for (let k = 0; k < end; k++) {
          if (m[0][k] === '(') opens++;
          else if (m[0][k] === ')') closes++;
        }
        while (end > 0 && m[0][end - 1] === ')' && opens < closes) {
          end--;
          closes--;
        }
        const url = m[0].slice(0, end);
        const href = safeHref(url);
        if (href) {
          flush();
          out.push({ type: 'link', href, children: [{ type: 'text', value: url }] });
          i += url.length;
          continue;
        }
      }
    }
    buf += c;
    i++;
  }
  flush();
  return out;
}

/**
 * Matches emphasis opened at s[i]: "**x**"/"__x__" is strong, "*x*"/"_x_" is em. It closes at
 * the first run after the opening one that can close it (looked up in scan).
 * @param {string} s
 * @param {number} i index of the opening * or _
 * @param {InlineScan} scan
 * @returns {{strong: boolean, inner: string, end: number} | null}
 */
function matchEmphasis(s, i, scan) {
  const c = s[i];
  let k = 1;
  while (s[i + k] === c) k++;
  if (k > 3) return null;
  // "_" inside a word (snake_case) is not emphasis.
  if (c === '_' && i > 0 && WORD_RE.test(s[i - 1])) return null;
  for (const n of k >= 2 ? [2, 1] : [1]) {
    const start = i + n;
    if (start >= s.length || SPACE_RE.test(s[start])) continue;
    // "***x": the opening run's last character closes a one-character emphasis around the second.
    if (k === 3 && n === 1 && !(c === '_' && i + 3 < s.length && WORD_RE.test(s[i + 3]))) {
      return { strong: false, inner: s.slice(start, i + 2), end: i + 3 };
    }
    const list = scan.closers[c][n];
    const at = lowerBound(list, i + k, runStart);
    if (at < list.length) {
      const { close } = list[at];
      markdownWork.steps += close - start;
      return { strong: n === 2, inner: s.slice(start, close), end: close + n };
    }
  }
  return null;
}

/**
 * @param {string} s
 * @param {number} i index of "["
 * @param {InlineScan} scan
 * @returns {{label: string, target: string, end: number} | null}
 */
function matchLink(s, i, scan) {
  const j = scan.brackets[i];
  if (j < 0 || s[j + 1] !== '(') return null;
  LINK_TARGET_RE.lastIndex = j + 1;
  const m = LINK_TARGET_RE.exec(s);
  if (!m) return null;
  markdownWork.steps += j - i + m[0].length;
  return { label: s.slice(i + 1, j), target: m[1], end: j + 1 + m[0].length };
}

/**
 * Builds DOM nodes for parsed blocks (createElement/createTextNode only).
 * @param {Block[]} blocks
 * @param {Document} doc
 * @returns {DocumentFragment}
 */
export function buildBlocks(blocks, doc) {
  const frag = doc.createDocumentFragment();
  for (const b of blocks) frag.appendChild(buildBlock(b, doc));
  return frag;
}

/**
 * @param {Block} b
 * @param {Document} doc
 * @returns {Node}
 */
function buildBlock(b, doc) {
  switch (b.type) {
    case 'paragraph': {
      const p = doc.createElement('p');
      p.appendChild(buildInline(b.children, doc));
      return p;
    }
    case 'heading': {
      const p = doc.createElement('p');
      p.className = 'md-heading';
      const strong = doc.createElement('strong');
      strong.appendChild(buildInline(b.children, doc));
      p.appendChild(strong);
      return p;
    }
    case 'codeblock': {
      const pre = doc.createElement('pre');
      const code = doc.createElement('code');
      if (b.lang) code.setAttribute('data-lang', b.lang);
      code.appendChild(doc.createTextNode(b.text));
      pre.appendChild(code);
      return pre;
    }
    case 'list': {
      const list = doc.createElement(b.ordered ? 'ol' : 'ul');
      if (b.ordered && b.start !== 1) list.setAttribute('start', String(b.start));
      for (const item of b.items) {
        const li = doc.createElement('li');
        // A tight item (one paragraph, maybe a nested list) renders its text without a <p>.
        const tight = item.length >= 1 && item[0].type === 'paragraph' && item.slice(1).every((x) => x.type === 'list');
        if (tight) {
          const [para, ...rest] = item;
          if (para.type === 'paragraph') li.appendChild(buildInline(para.children, doc));
          for (const r of rest) li.appendChild(buildBlock(r, doc));
        } else {
          li.appendChild(buildBlocks(item, doc));
        }
        list.appendChild(li);
      }
      return list;
    }
  }
}

/**
 * @param {Inline[]} nodes
 * @param {Document} doc
 * @returns {DocumentFragment}
 */
function buildInline(nodes, doc) {
  const frag = doc.createDocumentFragment();
  for (const n of nodes) {
    switch (n.type) {
      case 'text':
        frag.appendChild(doc.createTextNode(n.value));
        break;
      case 'br':
        frag.appendChild(doc.createElement('br'));
        break;
      case 'code': {
        const code = doc.createElement('code');
        code.appendChild(doc.createTextNode(n.value));
        frag.appendChild(code);
        break;
      }
      case 'strong':
      case 'em': {
        const el = doc.createElement(n.type);
        el.appendChild(buildInline(n.children, doc));
        frag.appendChild(el);
        break;
      }
      case 'link': {
        const a = doc.createElement('a');
        a.setAttribute('href', n.href);
        a.setAttribute('target', '_blank');
        a.setAttribute('rel', 'noopener noreferrer');
        a.appendChild(buildInline(n.children, doc));
        frag.appendChild(a);
        break;
      }
      case 'say': {
        const b = doc.createElement('button');
        b.setAttribute('type', 'button');
        b.className = 'suggestion';
        b.setAttribute('part', 'suggestion');
        b.appendChild(doc.createTextNode(n.text));
        frag.appendChild(b);
        break;
      }
    }
  }
  return frag;
}

/**
 * Renders Markdown source to a DocumentFragment.
 * @param {string} src
 * @param {Document} doc
 * @param {ParseOptions} [opts]
 * @returns {DocumentFragment}
 */
export function renderMarkdown(src, doc, opts = {}) {
  return buildBlocks(parseMarkdown(src, opts), doc);
}

/**
 * Renders a stream of text deltas into one container. Finished blocks are appended once and
 * never touched again; only the block still being written (the tail) is rebuilt, at most once
 * per animation frame, so the cost per token does not grow with the message or the transcript.
 */
export class MarkdownStream {
  /**
   * @param {Element} container the message node; the stream owns its children
   * @param {{doc?: Document, base?: string, schedule?: (cb: () => void) => unknown}} [opts]
   */
  constructor(container, opts = {}) {
    this.container = container;
    this.doc = opts.doc ?? container.ownerDocument;
    this.base = opts.base;
    this.schedule = opts.schedule ?? ((cb) => (globalThis.requestAnimationFrame ?? ((f) => setTimeout(f, 16)))(cb));
    this.src = '';
    this.committed = 0;
    this.pending = false;
    this.done = false;
    /** @type {Element} */
    this.tail = this.doc.createElement('div');
    this.tail.className = 'md-tail';
    container.appendChild(this.tail);
  }

  /** The full source received so far. */
  get text() {
    return this.src;
  }

  /**
   * Appends a delta and schedules a render of the tail.
   * @param {string} delta
   */
  append(delta) {
    if (this.done || !delta) return;
    this.src += delta;
    if (!this.pending) {
      this.pending = true;
      this.schedule(() => {
        this.pending = false;
        if (!this.done) this.flush();
      });
    }
  }

  /** Renders what has been received now (commits finished blocks, rebuilds the tail). */
  flush() {
    const cut = this.boundary();
    if (cut > this.committed) {
      this.container.insertBefore(renderMarkdown(this.src.slice(this.committed, cut), this.doc, { base: this.base }), this.tail);
      this.committed = cut;
    }
    this.tail.replaceChildren(renderMarkdown(this.src.slice(this.committed), this.doc, { base: this.base }));
  }

  /** Renders the rest and removes the tail wrapper; later deltas are ignored. */
  finish() {
    if (this.done) return;
    this.done = true;
    const rest = this.src.slice(this.committed);
    this.tail.remove();
    if (rest.trim()) this.container.appendChild(renderMarkdown(rest, this.doc, { base: this.base }));
    this.committed = this.src.length;
  }

  /**
   * The end of the last finished top-level block: a blank line outside a code fence that is
   * followed by a complete line starting a new paragraph-level block (not a list item or an
   * indented continuation, which could still belong to the block before).
   * @returns {number}
   */
  boundary() {
    const s = this.src;
    let pos = this.committed;
    let best = this.committed;
    /** @type {string | null} */
    let fence = null;
    let prevBlank = false;
    let blankEnd = -1;
    while (pos < s.length) {
      const nl = s.indexOf('\n', pos);
      if (nl === -1) break; // incomplete last line
      const line = expandTabs(s.slice(pos, nl));
      if (fence) {
        if (line.trim().startsWith(fence) && /^([`~])\1*$/.test(line.trim())) fence = null;
        prevBlank = false;
      } else if (isBlank(line)) {
        prevBlank = true;
        blankEnd = nl + 1;
      } else {
        if (prevBlank && indentOf(line) === 0 && !isListItem(line)) best = blankEnd;
        prevBlank = false;
        const f = matchFence(line);
        if (f) fence = f.marker;
      }
      pos = nl + 1;
    }
    return best;
  }
}
