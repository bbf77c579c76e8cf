// Unit tests of the safe Markdown renderer, against a minimal fake DOM that records exactly
// which nodes were built (it has no innerHTML, so any use of it would fail).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMarkdown, parseInline, renderMarkdown, safeHref, MarkdownStream, markdownWork } from '../markdown.js';

class FakeNode {
  constructor(doc) {
    this.ownerDocument = doc;
    this.parentNode = null;
    this.childNodes = [];
  }
  appendChild(n) {
    return this.insertBefore(n, null);
  }
  insertBefore(n, ref) {
    const nodes = n.nodeType === 11 ? [...n.childNodes] : [n];
    if (n.nodeType === 11) n.childNodes = [];
    for (const c of nodes) {
      if (c.parentNode) c.parentNode.childNodes.splice(c.parentNode.childNodes.indexOf(c), 1);
      c.parentNode = this;
      const at = ref ? this.childNodes.indexOf(ref) : -1;
      if (at === -1) this.childNodes.push(c);
      else this.childNodes.splice(at, 0, c);
    }
    return n;
  }
  replaceChildren(...ns) {
    for (const c of this.childNodes) c.parentNode = null;
    this.childNodes = [];
    for (const n of ns) this.appendChild(n);
  }
  remove() {
    if (this.parentNode) this.parentNode.childNodes.splice(this.parentNode.childNodes.indexOf(this), 1);
    this.parentNode = null;
  }
  get textContent() {
    return this.childNodes.map((c) => c.textContent).join('');
  }
}
class FakeText extends FakeNode {
  constructor(doc, data) {
    super(doc);
    this.nodeType = 3;
    this.data = data;
  }
  get textContent() {
    return this.data;
  }
}
class FakeElement extends FakeNode {
  constructor(doc, tag) {
    super(doc);
    this.nodeType = 1;
    this.tagName = tag.toUpperCase();
    this.attributes = new Map();
    this.className = '';
  }
  setAttribute(k, v) {
    this.attributes.set(k, String(v));
  }
  getAttribute(k) {
    return this.attributes.get(k) ?? null;
  }
}
class FakeFragment extends FakeNode {
  constructor(doc) {
    super(doc);
    this.nodeType = 11;
  }
}
const doc = {
  createElement: (t) => new FakeElement(doc, t),
  createTextNode: (d) => new FakeText(doc, d),
  createDocumentFragment: () => new FakeFragment(doc),
};

/** Serialises fake nodes to an HTML-like string (text escaped) for assertions. */
function html(node) {
  if (node.nodeType === 3) return node.data.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const inner = node.childNodes.map(html).join('');
  if (node.nodeType !== 1) return inner;
  const tag = node.tagName.toLowerCase();
  const attrs = [...node.attributes].map(([k, v]) => ` ${k}="${v}"`).join('');
  const cls = node.className ? ` class="${node.className}"` : '';
  return tag === 'br' ? '<br>' : `<${tag}${cls}${attrs}>${inner}</${tag}>`;
}

const render = (src, opts) => html(renderMarkdown(src, doc, opts));

test('renders the supported subset', () => {
  const cases = [
    ['paragraphs', 'one\n\ntwo', '<p>one</p><p>two</p>'],
    ['line break inside a paragraph', 'a\nb', '<p>a<br>b</p>'],
    ['bold', 'a **b** c', '<p>a <strong>b</strong> c</p>'],
    ['bold underscores', '__b__', '<p><strong>b</strong></p>'],
    ['italic', '*i* and _j_', '<p><em>i</em> and <em>j</em></p>'],
    ['bold italic', '***x***', '<p><strong><em>x</em></strong></p>'],
    ['snake_case is not emphasis', 'get_price_summary and max_price', '<p>get_price_summary and max_price</p>'],
    ['lone asterisks stay', 'a * b * c', '<p>a * b * c</p>'],
    ['unclosed bold stays', '**open', '<p>**open</p>'],
    ['inline code', 'run `a <b> **c**` now', '<p>run <code>a &lt;b&gt; **c**</code> now</p>'],
    ['double backtick code', '``a ` b``', '<p><code>a ` b</code></p>'],
    ['escapes', '\\*not\\* bold', '<p>*not* bold</p>'],
    ['unordered list', '- a\n- **b**\n* c', '<ul><li>a</li><li><strong>b</strong></li></ul><ul><li>c</li></ul>'],
    ['ordered list with start', '3. x\n4. y', '<ol start="3"><li>x</li><li>y</li></ol>'],
    ['loose list stays one list', '1. x\n\n2. y', '<ol><li>x</li><li>y</li></ol>'],
    ['nested list', '- a\n  - b\n  - c\n- d', '<ul><li>a<ul><li>b</li><li>c</li></ul></li><li>d</li></ul>'],
    ['lazy continuation', '- a\nstill a', '<ul><li>a<br>still a</li></ul>'],
    ['code block in list item', '1. run:\n   ```\n   go test\n   ```', '<ol><li><p>run:</p><pre><code>go test</code></pre></li></ol>'],
    ['code block', '```js\nlet a = "<b>";\n\nx\n```\nafter', '<pre><code data-lang="js">let a = "&lt;b&gt;";\n\nx</code></pre><p>after</p>'],
    ['unterminated code block', '```\ncode', '<pre><code>code</code></pre>'],
    ['heading becomes bold paragraph', '## Title\ntext', '<p class="md-heading"><strong>Title</strong></p><p>text</p>'],
    ['html is text', '<img src=x onerror=alert(1)>', '<p>&lt;img src=x onerror=alert(1)&gt;</p>'],
  ];
  for (const [name, src, want] of cases) {
    assert.equal(render(src), want, name);
  }
});

test('links keep only http(s) and mailto targets', () => {
  const link = (href, text) => `<a href="${href}" target="_blank" rel="noopener noreferrer">${text}</a>`;
  const cases = [
    ['https link', '[site](https://example.com/a?b=1)', `<p>${link('https://example.com/a?b=1', 'site')}</p>`],
    ['mailto link', '[mail](mailto:a@example.com)', `<p>${link('mailto:a@example.com', 'mail')}</p>`],
    ['javascript dropped, label kept', '[x](javascript:alert(1))', '<p>x</p>'],
    ['mixed-case javascript dropped', '[x](JaVaScRiPt:alert(1))', '<p>x</p>'],
    ['data url dropped', '[x](data:text/html,hi)', '<p>x</p>'],
    ['relative dropped without base', '[car](/car.html?id=c01)', '<p>car</p>'],
    ['bold label', '[**b**](http://a.test)', `<p>${link('http://a.test/', '<strong>b</strong>')}</p>`],
    ['autolink trims punctuation', 'see https://a.test/x.', `<p>see ${link('https://a.test/x', 'https://a.test/x')}.</p>`],
    ['autolink keeps balanced parens', 'https://a.test/wiki/A_(b)', `<p>${link('https://a.test/wiki/A_(b)', 'https://a.test/wiki/A_(b)')}</p>`],
    ['angle autolink', '<https://a.test>', `<p>${link('https://a.test/', 'https://a.test')}</p>`],
    ['javascript text is not linked', 'javascript:alert(1)', '<p>javascript:alert(1)</p>'],
  ];
  for (const [name, src, want] of cases) {
    assert.equal(render(src), want, name);
  }
  assert.equal(
    render('[car](/car.html?id=c01)', { base: 'http://127.0.0.1:8080/index.html' }),
    `<p>${link('http://127.0.0.1:8080/car.html?id=c01', 'car')}</p>`,
  );
});

test('a byomcp:say link is a suggestion button with its text unquoted; other schemes stay text', () => {
  const say = (text) => `<button class="suggestion" type="button" part="suggestion">${text}</button>`;
  const cases = [
    ['curly quotes dropped', 'try [“search cars suv”](byomcp:say) or [“sort cars”](byomcp:say).', `<p>try ${say('search cars suv')} or ${say('sort cars')}.</p>`],
    ['straight quotes dropped', '["go to financing"](byomcp:say)', `<p>${say('go to financing')}</p>`],
    ['no quotes', '[Show me SUVs](byomcp:say)', `<p>${say('Show me SUVs')}</p>`],
    ['markup in the label is its text', '[**<b>x</b>**](byomcp:say)', `<p>${say('**&lt;b&gt;x&lt;/b&gt;**')}</p>`],
    ['empty label stays nothing', '[“”](byomcp:say)', '<p>“”</p>'],
    ['another byomcp target is no suggestion', '[x](byomcp:run)', '<p>x</p>'],
  ];
  for (const [name, src, want] of cases) {
    assert.equal(render(src), want, name);
  }
});

test('safeHref', () => {
  const cases = [
    ['https://x.test', undefined, 'https://x.test/'],
    ['  http://x.test/a  ', undefined, 'http://x.test/a'],
    ['java\tscript:alert(1)', undefined, null],
    ['vbscript:x', undefined, null],
    ['file:///etc/passwd', undefined, null],
    ['', undefined, null],
    ['//evil.test/x', 'https://site.test/', 'https://evil.test/x'],
    ['javascript:alert(1)', 'https://site.test/', null],
  ];
  for (const [raw, base, want] of cases) {
    assert.equal(safeHref(raw, base), want, JSON.stringify(raw));
  }
});

test('parse tree shapes', () => {
  assert.deepEqual(parseInline('a\nb'), [{ type: 'text', value: 'a' }, { type: 'br' }, { type: 'text', value: 'b' }]);
  const blocks = parseMarkdown('- a\n- b');
  assert.equal(blocks.length, 1);
  assert.equal(blocks[0].type, 'list');
  assert.equal(blocks[0].items.length, 2);
});

test('stream appends finished blocks once and rebuilds only the tail', () => {
  const container = doc.createElement('div');
  const queued = [];
  const s = new MarkdownStream(container, { doc, schedule: (cb) => queued.push(cb) });
  const src = 'Intro.\n\nHere are **two** cars:\n- RAV4\n- CR-V\n\nBoth are `hybrid`.\nSee [site](https://a.test).\n\nBye.';
  const pieces = src.match(/.{1,3}/gs);
  const seen = new Set();
  for (const p of pieces) {
    s.append(p);
    while (queued.length) queued.shift()();
    // Nodes committed before the tail are never replaced.
    for (const c of container.childNodes) {
      if (c.className === 'md-tail') break;
      seen.add(c);
    }
    for (const c of seen) assert.equal(c.parentNode, container, 'a committed block was removed');
  }
  assert.equal(queued.length, 0);
  assert.ok(seen.size >= 2, `got ${seen.size} committed blocks, want at least 2`);
  s.finish();
  const want = doc.createElement('div');
  want.appendChild(renderMarkdown(src, doc));
  assert.equal(html(container), html(want));
  assert.equal(s.text, src);
  s.append('ignored');
  assert.equal(s.text, src);
});

test('stream does not commit inside a code fence or a loose list', () => {
  const container = doc.createElement('div');
  const s = new MarkdownStream(container, { doc, schedule: () => {} });
  s.append('```\na\n\nb\n');
  assert.equal(s.boundary(), 0);
  s.append('```\n\nnext para\n');
  assert.equal(s.boundary(), '```\na\n\nb\n```\n\n'.length);
  const t = new MarkdownStream(doc.createElement('div'), { doc, schedule: () => {} });
  t.append('1. a\n\n2. b\n');
  assert.equal(t.boundary(), 0);
});

test('stream flushes on a scheduled frame without finish', () => {
  const container = doc.createElement('div');
  let cb;
  const s = new MarkdownStream(container, { doc, schedule: (f) => (cb = f) });
  s.append('**hi**');
  assert.equal(container.textContent, '');
  cb();
  assert.equal(html(container), '<div><div class="md-tail"><p><strong>hi</strong></p></div></div>');
});

// Issue 11, #12: an answer of 40,000 "[" blocked the page's main thread for seconds (each "["
// scanned to the end for its "]"). The parser counts its work in markdownWork.steps (every
// character scanned, every position visited, every search probe), so linear cost is checked
// without timing: the work for 4n characters is about four times the work for n, and a few
// steps per character.
test('pathological inputs cost work linear in their length', () => {
  const tickRuns = (n) => {
    let s = '';
    for (let k = 1; s.length < n; k++) s += '`'.repeat(k) + 'x';
    return s.slice(0, n);
  };
  const cases = {
    '[': (n) => '['.repeat(n),
    '*': (n) => '*'.repeat(n),
    '`': (n) => '`'.repeat(n),
    _: (n) => '_'.repeat(n),
    'nested [[[': (n) => '['.repeat(n / 2) + ']'.repeat(n / 2) + '(https://a.test)',
    'unclosed [[[ with ](': (n) => '[['.repeat(n / 4) + '](',
    '![': (n) => '!['.repeat(n / 2),
    '[a](': (n) => '[a]('.repeat(n / 4),
    '*a ': (n) => '*a '.repeat(n / 4),
    '_a ': (n) => '_a '.repeat(n / 4),
    '**a ': (n) => '**a '.repeat(n / 4),
    'nested emphasis': (n) => '*a _'.repeat(n / 8) + 'b_ a*'.repeat(n / 8),
    'backtick runs of every length': tickRuns,
    'heading with a long gap': (n) => '# a' + ' '.repeat(n) + 'b',
    'fence with a backtick': (n) => '```' + 'a'.repeat(n) + '`',
    'URL with trailing dots': (n) => 'http://a.test/' + '.'.repeat(n) + 'a',
    'URL with closing parens': (n) => 'http://a.test/' + ')'.repeat(n),
    '<http://': (n) => '<http://a'.repeat(n / 9),
  };
  const work = (src) => {
    markdownWork.steps = 0;
    const out = render(src);
    return { steps: markdownWork.steps, out };
  };
  for (const [name, gen] of Object.entries(cases)) {
    const small = work(gen(10000));
    const big = work(gen(40000));
    assert.ok(big.steps <= 5 * small.steps, `${name}: ${small.steps} steps for 10,000 characters, ${big.steps} for 40,000: want linear`);
    assert.ok(big.steps <= 10 * 40000, `${name}: ${big.steps} steps for 40,000 characters, want at most 10 per character`);
  }
  // And the output is right: text that is not Markdown stays text, all of it.
  for (const ch of ['[', '*', '_']) assert.equal(render(ch.repeat(40000)), `<p>${ch.repeat(40000)}</p>`, `40,000 ${ch}`);
  assert.equal(render('!['.repeat(20000)), `<p>${'!['.repeat(20000)}</p>`);
  assert.equal(render('a' + '`'.repeat(40000)), `<p>a${'`'.repeat(40000)}</p>`);
  const nested = render('['.repeat(20000) + ']'.repeat(20000) + '(https://a.test)');
  assert.ok(nested.startsWith('<p><a href="https://a.test/" target="_blank" rel="noopener noreferrer">' + '['.repeat(19999)), 'nested brackets: the outer pair is the link');
  assert.equal(render('# a' + ' '.repeat(40000) + 'b ##'), `<p class="md-heading"><strong>a${' '.repeat(40000)}b</strong></p>`);
});
