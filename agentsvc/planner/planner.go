// Package planner is the offline planner: a deterministic router, not a language model, that
// maps the visitor's words to the page's tools, resolves the things they name from what the
// conversation has seen, and answers in plain words.
package planner

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
)

// Notice is the note for the site owner. It ends the first reply of a conversation only.
const Notice = "(Offline planner — this is the offline planner, not a language model: it follows simple requests only. Site owner: set OPENAI_API_KEY, OPENROUTER_API_KEY or GEMINI_API_KEY, or run Ollama, for a real agent.)"

// TerminalNotice is Notice for a person at a terminal (NewForTerminal), who sets the key.
const TerminalNotice = "(Offline planner — this is the offline planner, not a language model: it follows simple requests only. Set OPENAI_API_KEY, OPENROUTER_API_KEY or GEMINI_API_KEY, or run Ollama, for a real agent.)"

// place is what the planner's replies call where it is: a page's visitor, or a terminal.
type place struct {
	here    string // "on this page"
	canDo   string // "Here is what I can do on this page"
	noTools string // a sentence: there are no tools
	self    string // a sentence: who is speaking
	bye     string
	notice  string
	say     bool // suggestions are written as SayLink links: the widget shows them as buttons
}

var (
	onPage     = place{"on this page", "Here is what I can do on this page", "This page offers no actions I can take right now.", "I'm the page's assistant.", "Goodbye, and enjoy the rest of your visit!", Notice, true}
	inTerminal = place{"here", "Here is what I can do", "No tools are available to me right now.", "I'm byomcp's offline planner.", "Goodbye!", TerminalNotice, false}
)

// threshold is the lowest score of a tool the planner will consider.
const threshold = 1.5

// Planner is the offline planner. It is stateless and safe for concurrent use: everything it
// knows comes from the request, so the same request on the same day gets the same response.
type Planner struct {
	now   func() time.Time
	place *place
}

var _ llm.Model = (*Planner)(nil)

// New returns the offline planner.
func New() *Planner { return &Planner{now: time.Now, place: &onPage} }

// NewForTerminal returns the offline planner for `byomcp chat`, whose replies speak of a terminal.
func NewForTerminal() *Planner { return &Planner{now: time.Now, place: &inTerminal} }

// maxRead bounds the messages the planner reads of a conversation: it reads them on every
// call, so reading all made each call of a long conversation dearer (278 ms at 801 messages,
// BenchmarkStreamLongConversation; 59 ms with this bound). This many hold a visitor's last
// twenty to thirty turns; what was said before them is forgotten.
const maxRead = 120

// window is what the planner reads of msgs: the system messages they start with, and the
// messages from the first visitor's message among the last maxRead on; cut tells whether
// any were left out.
func window(msgs []chat.Message) (read []chat.Message, cut bool) {
	head := 0
	for head < len(msgs) && msgs[head].Role == chat.RoleSystem {
		head++
	}
	if len(msgs)-head <= maxRead {
		return msgs, false
	}
	from := len(msgs) - maxRead
	for from < len(msgs) && msgs[from].Role != chat.RoleUser {
		from++
	}
	if from == len(msgs) {
		return msgs, false // one turn of more calls than that: all of it
	}
	return append(slices.Clone(msgs[:head]), msgs[from:]...), true
}

// Name implements llm.Model.
func (*Planner) Name() string { return "offline planner" }

// Stream implements llm.Model. It reads the conversation like a model: the last user message
// and, when this turn already called tools, their results; it answers with the next tool
// call of its plan or with a reply for the visitor.
func (p *Planner) Stream(ctx context.Context, req llm.Request, onDelta func(delta string)) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := time.Now
	if p.now != nil {
		now = p.now
	}
	read, cut := window(req.Messages)
	c := newConv(llm.Request{Messages: read, Tools: req.Tools}, now())
	c.firstReply = c.firstReply && !cut
	c.place = cmp.Or(p.place, c.place)
	a := c.next()
	if a.call != nil {
		prefix := "planner-1-"
		if a.call.opens {
			prefix = openCallPrefix // read back by newConv: the turn goes on on the opened page
		}
		n := 1 // the call's number: one more than the assistant's messages
		for _, m := range req.Messages {
			if m.Role == chat.RoleAssistant {
				n++
			}
		}
		id := fmt.Sprintf("%s%d", prefix, n)
		if c.page != nil {
			id += pageMark + url.PathEscape(c.page.id) // read back by newConv: the item of the page the call was made on
		}
		call := chat.ToolCall{ID: id, Name: a.call.def.Name, Arguments: a.call.arguments()}
		return &llm.Response{ToolCalls: []chat.ToolCall{call}, FinishReason: "tool_calls"}, nil
	}
	text := a.text
	if c.then != "" {
		text += " Then, as you asked: " + c.offer([]string{c.then}, "or", true) + "."
	}
	if c.firstReply {
		text += "\n\n" + c.place.notice
	}
	for _, chunk := range chunkRe.FindAllString(text, -1) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if onDelta != nil {
			onDelta(chunk)
		}
	}
	return &llm.Response{Text: text, FinishReason: "stop"}, nil
}

// chunkRe is a streamed chunk: a word and the whitespace around it. The chunks join to the text.
var chunkRe = regexp.MustCompile(`[ \n\t]*[^ \n\t]+[ \n\t]*|[ \n\t]+`)

// action is what the planner does next: call a tool or reply.
type action struct {
	call *plan
	text string
}

// call is one tool call of the conversation and its result.
type call struct {
	name   string
	args   string
	result string // raw tool message content
	done   bool   // its result came
	opened bool   // an openFor call: the turn goes on on the item's page
	page   bool   // no call: the item the page's address names, opened before the turn (openPage)
	on     string // the item of the page the call was made on, as its id says (pageMark)
	left   bool   // no call: the item of a page the visitor came to by a link, and left (pagesLeft)
	at     int    // the index of its result among the messages (of the call, until it came)
}

// conv is one model call's view of the conversation.
type conv struct {
	tools    []chat.ToolDef
	msgs     []chat.Message
	lastUser int
	reread   bool // the request is read again on the page the turn opened for it (goOn)
	start    int  // the first message of this turn's calls on this page (after the visitor's, or an opened page's)
	text     string
	// then is a second request said after the first with "then" ("… and then book a test
	// drive for Monday at 1pm"): the turn does the first and offers this one.
	then       string
	before     *memory // what the results before this turn showed
	now        *memory // including this turn's results
	calls      []call  // every call of the conversation, in order
	done       []call  // this turn's, with their results
	firstReply bool
	place      *place
	today      time.Time
	vocab      map[string]bool // every word of every tool
	// unanswered is the request of the question the visitor's message does not answer ("60
	// months at 5% with 10% down", then "and at 72?"): its values stay, as a call's do.
	unanswered *plan
	// answering is the tool of the question the message is read as the answer to (answers):
	// its answer may commit ("i make about 120k a year" when the application asked for it).
	answering string
	// page is the item of the page the visitor came to by a link (openPage), named by the
	// page's title until a result names it.
	page *item
	// named: the message only names an item, after a request the planner could not do on the
	// page (forItem); text is that request with the name.
	named bool
}

// newConv reads the request: the calls and their results, the last user message, and what
// the results showed before this turn and since.
func newConv(req llm.Request, now time.Time) *conv {
	c := &conv{tools: req.Tools, msgs: slices.Clone(req.Messages), lastUser: -1, today: now, place: &onPage, vocab: map[string]bool{}}
	req.Messages = c.msgs
	byID := map[string]int{}
	for i, m := range req.Messages {
		switch m.Role {
		case chat.RoleUser:
			c.lastUser = i
			c.msgs[i].Content = writtenFigures(m.Content) // in every message the same: "15 000 down"
		case chat.RoleAssistant:
			for _, tc := range m.ToolCalls {
				byID[tc.ID] = len(c.calls)
				opened := strings.HasPrefix(tc.ID, openCallPrefix)
				_, on, _ := strings.Cut(tc.ID, pageMark)
				if on, _ = url.PathUnescape(on); !strings.HasPrefix(tc.ID, "planner-") {
					on = "" // (a model's call, not the planner's)
				}
				c.calls = append(c.calls, call{name: tc.Name, args: tc.Arguments, opened: opened, at: i, on: on})
			}
		case chat.RoleTool:
			k, ok := byID[m.ToolCallID]
			if !ok {
				k = len(c.calls)
				c.calls = append(c.calls, call{})
			}
			c.calls[k].name = cmp.Or(c.calls[k].name, m.Name)
			c.calls[k].result, c.calls[k].done, c.calls[k].at = m.Content, true, i
		}
	}
	c.pagesLeft()
	earlier := req.Messages
	if c.lastUser >= 0 {
		earlier = req.Messages[:c.lastUser]
		c.text = goesForRe.ReplaceAllString(spokenArithmetic(strings.TrimSpace(req.Messages[c.lastUser].Content)), "cost")
		c.text = kindCostRe.ReplaceAllString(c.text, "how much are $1$2") // "what do your sedans cost"
		c.text = withoutRe.ReplaceAllString(c.text, "without")            // "w/o the sound package"
		c.text = hashPlace.ReplaceAllString(c.text, "${1}number $2")      // "open #2", as typed on a phone
		c.text = howBout.ReplaceAllString(c.text, "what about")           // "how bout the other tesla"
		c.text = compareThis.ReplaceAllString(c.text, "compare it")       // "compare this car with the Ioniq 5": as "it" is
		c.text = stillThere.ReplaceAllString(c.text, "do you have $1")    // "is the tacoma still available?": is it listed
		if c.hasParam(noteParam) {
			c.text = tellThem.ReplaceAllString(c.text, "note that ") // "tell the salesperson that I'll bring my wife": a note
		}
		c.done = slices.DeleteFunc(slices.Clone(c.calls), func(k call) bool { return !k.done || k.at <= c.lastUser })
	}
	c.start = c.lastUser + 1
	c.firstReply = !slices.ContainsFunc(earlier, func(m chat.Message) bool {
		return m.Role == chat.RoleAssistant && strings.TrimSpace(m.Content) != ""
	})
	c.before = remember(earlier).learnTitles(req.Tools)
	c.now = remember(req.Messages).learnTitles(req.Tools)
	c.openPage(req.Messages)
	for _, t := range req.Tools {
		for w := range vocabulary(t, parseSchema(t.Parameters)) {
			c.vocab[w] = true
			c.vocab[compact(w)] = true
		}
	}
	c.text = c.withChoiceAgain(c.text)
	if said, ok := c.forItem(); ok {
		c.text, c.named = said, true
	} else if m := closeThen.FindStringSubmatch(c.text); m != nil && slices.ContainsFunc(c.done, func(d call) bool { return strings.HasPrefix(d.name, "close") && d.opened }) {
		c.text = m[1] // closed first (closeFirst): the rest, on the page it left
	}
	if m := thenNext.FindStringSubmatch(c.text); m != nil && !c.named && c.splitsThen() {
		c.text, c.then = m[1], strings.TrimRight(m[2], " ?!.")
	}
	return c
}

// splitsThen reports that the turn reads only the first of two requests said with "then": it
// starts with it, and when that went to another page (the payment, then a booking) it ends it
// and offers the second. A first one done here goes on with the second (thenGo: "make it blue
// and then book a test drive for Sunday").
func (c *conv) splitsThen() bool {
	for _, k := range c.calls {
		if k.at > c.lastUser { // this turn's first call decides
			return named(k.name, goesFirst)
		}
	}
	return true
}

// next decides the planner's next step.
func (c *conv) next() action {
	if c.lastUser < 0 || c.text == "" {
		if len(c.done) > 0 {
			return action{text: c.summary()}
		}
		return action{text: c.greeting("Hi!")}
	}
	for _, d := range c.done {
		if out := unwrap(d.result); out.isError {
			return action{text: c.failure(d, out)}
		}
	}
	if c.pageChanged() {
		if n := len(c.done); n >= 2 && c.done[n-1].name != c.done[n-2].name && named(c.done[n-1].name, commitFirst) &&
			noArguments(c.done[n-1].args) && !navTool(c.toolDef(c.done[n-2].name)) {
			return action{text: c.summary()} // a form filled again on arrival, then sent: what the page said
		}
		if p := c.refill(); p != nil && c.done[len(c.done)-1].args == p.arguments() {
			// The form filled again on arrival is sent when the visitor's own words have a verb of
			// sending ("go back to the booking page and submit it"; not a request before them
			// that c.text carries, nor "can i drive the corolla instead"); else the turn says
			// where it went, then what the form holds.
			sends := asksToSend(tokenize(c.msgs[c.lastUser].Content))
			for _, t := range c.senders() {
				if sends && !c.calledThisTurn(t.Name, false) {
					return action{call: &plan{def: t, schema: parseSchema(t.Parameters), values: map[string]any{}}}
				}
			}
			went := *c
			went.done = c.done[:len(c.done)-1]
			return action{text: went.summary() + " " + c.summary()}
		}
		// A tool of this turn opened another page: the plan was made for the page it left, so
		// the turn ends by saying what was done. Unless the page was opened for the visitor's
		// words (openFor): there they are read again, once. k is the turn's last openFor call.
		k := len(c.done) - 1
		for k >= 0 && !c.done[k].opened {
			k--
		}
		if k >= 0 {
			on := *c
			on.done = c.done[k+1:]
			on.start = c.done[k].at + 1
			if !on.pageChanged() {
				return c.goOn(&on, k)
			}
		}
		return c.arrive()
	}
	return c.intent().step(c)
}

// senders are the page's tools that send what it holds and take nothing: book_test_drive,
// the button under a form.
func (c *conv) senders() []chat.ToolDef {
	var out []chat.ToolDef
	for _, t := range c.tools {
		if named(t.Name, commitFirst) && !navTool(t) && len(parseSchema(t.Parameters).props) == 0 {
			out = append(out, t)
		}
	}
	return out
}

// asksToSend reports a verb of sending a form: "submit it", "confirm", "book it".
func asksToSend(toks []token) bool {
	for i, t := range toks {
		if t.kind == kindWord && sendWords[strings.ToLower(t.raw)] || wordAt(toks, i, "book") && wordAt(toks, i+1, "it", "that", "this", "now") {
			return true
		}
	}
	return false
}

// sendWords ask to send a form that is filled.
var sendWords = rawSet(`submit confirm send finalize finalise`)

// arrive ends a turn that opened another page: what was done is said, once a form of the
// page that the conversation filled and did not send is filled again (the page came back
// empty: "actually can I drive the Mustang instead", "take me back to the booking page").
func (c *conv) arrive() action {
	if p := c.refill(); p != nil && !c.calledThisTurn(p.def.Name, false) {
		return action{call: p}
	}
	// A form whose contact details the visitor gave before: what else it needs is asked
	// ("I'd like to test drive the Outback" after "I'm Daniel Osei, daniel.osei@mail.com").
	for _, t := range c.tools {
		if named(t.Name, commitFirst) {
			continue
		}
		s := parseSchema(t.Parameters)
		p := &plan{def: t, schema: s, values: map[string]any{}}
		p.missing = p.unset()
		if c.contactsSaid(p, p.values); len(p.values) > 0 && len(p.missing) > 0 {
			return action{text: c.summary() + " " + c.askFilling(p, c.text)}
		}
	}
	return action{text: c.summary()}
}

// askFilling asks for what the plan still misses and names the values it has, given before,
// that the form will get: "… I need your date and time. I'll fill in your name and email."
func (c *conv) askFilling(p *plan, text string) string {
	var kept []string
	for _, q := range p.schema.props {
		if p.values[q.name] != nil {
			kept = append(kept, identPhrase(q.name))
		}
	}
	ask := c.askMissing(p, text).reply
	if len(kept) > 0 {
		ask += " I'll fill in your " + joinList(kept, "and") + "."
	}
	return ask
}

// refill is the plan that fills again the form of this page the conversation's last call of a
// tool here filled (its result says that the form was not submitted); nil when there is none,
// or a call since sent it.
func (c *conv) refill() *plan {
	for k := range c.earlierCalls {
		if t := c.toolDef(k.name); c.offers(k.name) && !navTool(t) {
			if !strings.Contains(unwrap(k.result).text, "not submitted") {
				return nil
			}
			return argsPlan(t, parseSchema(t.Parameters), k.args)
		}
	}
	return nil
}

// restore is the plan that sets again the values the conversation's last call of a tool of
// this page set for the item on screen, when the page also sends something (a calculator
// beside its application); nil when there is none, or it is a form refill fills again.
func (c *conv) restore() *plan {
	if !slices.ContainsFunc(c.tools, func(t chat.ToolDef) bool { return named(t.Name, commitFirst) && !navTool(t) }) {
		return nil
	}
	here := c.saidOf(len(c.msgs), "")
	for k := range c.earlierCalls {
		t := c.toolDef(k.name)
		if !c.offers(k.name) || navTool(t) || named(k.name, commitFirst) || noArguments(k.args) {
			continue
		}
		if strings.Contains(unwrap(k.result).text, "not submitted") || here == "" {
			return nil
		}
		if c.saidOf(k.at, "") != here {
			continue // (the Golf's payment on the same terms, then "apply for the Outback loan": the Outback's)
		}
		return argsPlan(t, parseSchema(t.Parameters), k.args)
	}
	return nil
}

// argsPlan is the plan of a call made before, with its arguments; nil when it had none.
func argsPlan(t chat.ToolDef, s *schema, args string) *plan {
	var raw map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &raw) != nil || len(raw) == 0 {
		return nil
	}
	p := &plan{def: t, schema: s, values: make(map[string]any, len(raw))}
	for name, v := range raw {
		p.values[name] = v
	}
	return p
}

// figuresOnly is text without the words that named the page it went to, when only figures are
// left ("financing 60" is "60" on the calculator); else text.
func figuresOnly(text string, went chat.ToolDef) string {
	where := whereWords(went)
	var figures []string
	for _, t := range tokenize(text) {
		switch {
		case t.kind == kindNumber:
			figures = append(figures, t.raw)
		case t.kind == kindPunct || t.kind == kindWord && (stopWords[t.norm] || goingWords[t.norm] || politeWords[t.norm] || slices.ContainsFunc(where, func(w string) bool { return wordsMatch(t.norm, w) })):
		default:
			return text
		}
	}
	if len(figures) == 0 {
		return text
	}
	return strings.Join(figures, " ")
}

// withoutRe is "without" as people shorten it: "w/o".
var withoutRe = regexp.MustCompile(`(?i)\bw/o\b`)

// goesForRe is a price asked as what a thing goes for: "whats this go for", "what does the
// civic go for?" (not "let's go for the red one").
var goesForRe = regexp.MustCompile(`(?i)\bgo(?:es)? for\b(?:\s*$|\s*[?.!,])`)

// kindCostRe asks what a kind of thing costs, in the plural: "what do your sedans cost", "how
// much do suvs cost".
var kindCostRe = regexp.MustCompile(`(?i)\b(?:what|how much)\s+do\s+((?:your|the|all|those|these)\s+)?([a-z]+s)\s+cost\b`)

// pageMark joins to a call's id the item of the page the call was made on: a page the
// visitor came to by a link, and left, is known by it later ("go back", "book that one").
const pageMark = "@"

// pagesLeft puts an opening call of the item before the earlier turns' calls made on its page
// when no call opened it (the visitor came by a link): as openPage does for the page of now.
func (c *conv) pagesLeft() {
	open, here := "", map[string]bool{} // (the page of now: openPage)
	if _, u := pageOf(c.msgs); u != nil {
		for _, vs := range u.Query() {
			for _, v := range vs {
				here[v] = true
			}
		}
	}
	for i := 0; i < len(c.calls); i++ {
		k := c.calls[i]
		if id := openedID(k); id != "" {
			open = id
		}
		if k.on == "" || k.on == open || here[k.on] || k.at >= c.lastUser {
			continue
		}
		p := c.pageCall(call{}, "id", k.on)
		p.page, p.left, p.at = false, true, k.at
		c.calls = slices.Insert(c.calls, i, p)
		open = k.on
		i++
	}
}

// openCallPrefix starts the id of an openFor call.
const openCallPrefix = "planner-open-"

// goOn reads the visitor's words again on the page the openFor call c.done[k] opened (on: the
// turn as seen from there). What that page can do runs; else the turn says what was opened.
func (c *conv) goOn(on *conv, k int) action {
	if len(on.tools) == 0 {
		// No tools: the page has none, or registers them later than the agent waits (LateTools).
		return action{text: c.summary() + " Once the page has loaded, ask me again there."}
	}
	opened := c.toolDef(c.done[k].name)
	hop := navTool(opened)
	toks := tokenize(c.text)
	if hop && hubTool(opened) && c.anotherItem(toks) {
		return c.arrive() // "i want a different car": the list to choose from
	}
	// "go back to the car": the list, then the car the visitor came from
	if it := c.openedLast(); it != nil && (c.backToItem(toks, hop) || c.backAlone(toks)) && !backToOne.MatchString(c.text) { // ("back to the previous car": read again)
		if in, ok := on.openFor(it); ok && hop && hubTool(opened) {
			return in.step(on)
		}
		if !hop {
			return c.arrive() // back on its page
		}
	}
	if hop && (goesTo(opened, toks) || on.goesHere(toks)) {
		return c.arrive() // "back to the list", "take me to the calculator": here it is
	}
	if !hop && c.onlyNames(c.pointedText(c.text, c.done[k])) {
		return c.arrive() // "ok back to the explorer", "go back to the other one": its page is opened
	}
	l := on.lister()
	// The names are known when this turn listed them already: one lookup a turn.
	lookup := l == nil || !slices.ContainsFunc(c.done[:k], func(d call) bool { return d.name == l.def.Name })
	on.reread = true
	// What the page showed on arrival, not what later steps returned: the plan must not
	// change under its own feet.
	on.before = remember(c.msgs[:on.start]).learnTitles(on.tools)
	// The values the visitor set on this page before, set again on arrival when the request
	// sends what they shaped ("back to financing, and apply": the terms chosen, not the
	// page's defaults): the call is this turn's first here, and the request is read without it.
	restore := on.restore()
	restored := restore != nil && len(on.done) > 0 && on.done[0].name == restore.def.Name && on.done[0].args == restore.arguments()
	done := on.done
	if restored {
		on.done = on.done[1:]
	}
	pointed := c.done[k]
	for i := k - 1; i >= 0 && hop && openedID(pointed) == ""; i-- {
		if openedID(c.done[i]) != "" {
			pointed = c.done[i] // "book the first one for monday 9am": the car opened on the way
		}
	}
	asked := c.pointedText(c.text, pointed)
	if hop {
		asked = figuresOnly(asked, opened) // "financing 60": the 60 of the calculator, no application
	}
	in := on.understand(asked, lookup)
	if first := in.first(on); restored && (first == nil || !named(first.def.Name, commitFirst)) {
		on.done, restored = done, false // the request's own call ("monthly again?")
		in = on.understand(asked, lookup)
	}
	if in.steps == nil && strings.HasPrefix(in.reply, "Sorry") {
		if part := on.partsHere(asked, lookup); part != "" {
			in = on.understand(part, lookup)
		} else if q := on.questionHere(asked, lookup); q.reply != "" {
			in = q // "ok lets go with the odyssey, what colours can i get it in": the colours
		}
	}
	a := in.step(on)
	if restore != nil && !restored && len(on.done) == 0 && a.call != nil && named(a.call.def.Name, commitFirst) {
		return action{call: restore}
	}
	switch {
	case len(on.done) > 0:
		if a.call == nil && a.text != "" {
			// which car "the cheapest tesla" of "… per month over 60 months" is, or "the
			// civic" of "what would the civic cost a month": said, it can be recalled by name
			for _, d := range slices.Backward(c.done[:k]) {
				if it := cmp.Or(c.now.items[openedID(d)], c.before.items[openedID(d)]); it != nil && !strings.Contains(a.text, title(it)) {
					a.text = "For " + theTitle(it) + ": " + lowerFirst(a.text)
					break
				}
			}
		}
		return a
	case a.call != nil:
		if len(a.call.values) > 0 || navTool(a.call.def) || !hop || l != nil && a.call.def.Name == l.def.Name {
			return a
		}
		// A call with nothing of the request's (book_test_drive {} after going to the booking
		// page for "book a test drive"): the page is where the visitor wanted to be.
		return c.arrive()
	case strings.HasPrefix(a.text, "Sorry"):
		if c.onlyNames(asked) || c.asksNothing(asked) || c.asksNothing(withoutWords(asked, identWords(ownName(c.done[k].name)))) {
			// "pull up the Outback", "Thank you. I'd like to look at the Ioniq more closely",
			// "take me to the financing page with that configuration": the page is what was asked
			return c.arrive()
		}
		text := c.summary() + " I can't do that on this page either."
		if sug := on.suggestions(3); len(sug) > 0 {
			text += " Here I can do things like " + c.offer(sug, "or", true) + "."
		}
		return action{text: text}
	case hop && in.asked == nil && (len(in.choices) == 0 || strings.HasSuffix(in.reply, "?")) && !hubTool(opened):
		// (an answer that lists choices is given: "whats the monthly on the tacoma" names the terms)
		// Gone somewhere for the request's words, the page is where the visitor wanted to be:
		// no guess at what else the words meant there. (Gone to the list for another item,
		// the answer there is what was asked.)
		return c.arrive()
	}
	return action{text: c.summary() + " " + a.text}
}

// partsHere reads again, together, the parts of the visitor's words (split at "and", "then"
// and commas) that this page does with values ("configure it in green and go to financing, 60
// months": "60 months" on the calculator, the rest done on the page before).
func (c *conv) partsHere(asked string, lookup bool) string {
	parts := partRe.Split(asked, -1)
	n := len(parts)
	here := slices.DeleteFunc(parts, func(part string) bool {
		first := c.understand(part, lookup).first(c)
		return first == nil || len(first.values) == 0
	})
	if len(here) == 0 || len(here) == n {
		return ""
	}
	return strings.Join(here, " , ")
}

// questionHere is the answer this page gives to the first question among the parts of a
// request it cannot do whole; an empty intent when none has one.
func (c *conv) questionHere(asked string, lookup bool) intent {
	for _, part := range partRe.Split(asked, -1) {
		if !isQuestion(part, tokenize(part)) {
			continue
		}
		if in := c.understand(part, lookup); in.steps == nil && !strings.HasPrefix(in.reply, "Sorry") && !strings.HasPrefix(in.reply, "I'm not sure") {
			return in
		}
	}
	return intent{}
}

var partRe = regexp.MustCompile(`(?i)\s*(?:[,;]|\bthen\b|\band\b)\s*`)

// pointedText is the visitor's words with those that picked the opened item by its place
// ("… for the second one") naming it instead ("… for the 2023 Kia Sportage"): on its own
// page "the second one" points at nothing.
func (c *conv) pointedText(text string, opened call) string {
	start, end, ok := pointerSpan(tokenize(text))
	if !ok && !isTheRank.MatchString(text) {
		start, end, ok = rankSpan(tokenize(text)) // "what colours does the cheapest come in"
	}
	var args map[string]any
	if !ok || json.Unmarshal([]byte(opened.args), &args) != nil {
		return text
	}
	for _, v := range args {
		if id, isStr := v.(string); isStr && c.now.items[id] != nil && c.now.items[id].name != id {
			return text[:start] + theTitle(c.now.items[id]) + text[end:]
		}
	}
	return text
}

// howBout is "what about" as typed on a phone: "how bout", "wat abt".
var howBout = regexp.MustCompile(`(?i)\b(?:how|what|wat)\s+(?:'?bout|abt)\b`)

// rankSpan finds "the cheapest", "the newest one": a ranking that picks one item.
func rankSpan(toks []token) (start, end int, ok bool) {
	for i, t := range toks {
		if rankWords[t.norm].field != nil && wordAt(toks, i-1, "the") {
			last := i
			if oneAt(toks, i+1) {
				last++
			}
			return toks[i-1].start, toks[last].end, true
		}
	}
	return 0, 0, false
}

// onlyNames reports a request made only of names of items and words of asking, going or
// replying ("pull up the Outback", "open the second one" once the second one is named, "back
// to the explorer").
func (c *conv) onlyNames(text string) bool {
	names := nameMentions(text, c.now.known(), nil)
	return len(names) > 0 && !slices.ContainsFunc(tokenize(text), func(t token) bool {
		named := slices.ContainsFunc(names, func(m mention) bool { return t.start >= m.start && t.start < m.end })
		return t.kind == kindWord && !named && !stopWords[t.norm] && !requestWords[t.norm] && !goingWords[t.norm] && !replyWords[t.norm] // ("nah open the other one")
	})
}

// asksNothing reports words that ask this page for nothing: no question, no figure or day,
// no word of its tools.
func (c *conv) asksNothing(text string) bool {
	toks := tokenize(text)
	return !isQuestion(text, toks) && !asksField(toks) && !slices.ContainsFunc(toks, func(t token) bool {
		return t.kind == kindNumber || t.kind == kindWord && (calendarWords[t.norm] || c.vocab[t.norm] && !requestWords[t.norm] && !stopWords[t.norm])
	})
}

// withoutWords is text without the words whose normal form is one of ws.
func withoutWords(text string, ws []string) string {
	var kept []string
	for _, t := range tokenize(text) {
		if !slices.Contains(ws, t.norm) {
			kept = append(kept, t.raw)
		}
	}
	return strings.Join(kept, " ")
}

// pageChanged reports a tool this turn called that is no longer offered: a tool navigated.
func (c *conv) pageChanged() bool {
	return slices.ContainsFunc(c.done, func(d call) bool { return !c.offers(d.name) })
}

// offers reports a tool of this page.
func (c *conv) offers(name string) bool {
	return slices.ContainsFunc(c.tools, func(t chat.ToolDef) bool { return t.Name == name })
}
