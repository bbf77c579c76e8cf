package planner

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// reading is the one classification of the visitor's words that every rule reads: the words
// (rewritten for the page's dates, times and list ends), what they point at among the items
// seen, the ranking they ask for, and the page's tools ranked against them. It is made once
// per message (read) and never changed by a rule.
type reading struct {
	said     string  // the words as the visitor wrote them
	text     string  // rewritten: dates, times, "the top trim"
	toks     []token // of text
	question bool
	pronoun  bool    // "it", "this one": the item on screen
	numbers  bool    // figures, times or days: values for some tool
	lookup   bool    // one call of a listing tool may learn names first
	like     bool    // asks for items like the one on screen (similarTo)
	plain    []*plan // the page's tools for text, best first

	mentions  []mention
	ambiguous *mention // a name that fits several items ("the Tesla")
	refs      []*item  // the items the words point at
	text2     string   // text with the items named by their ids
	base      string   // text without the words that picked the items ("cheapest" of "cheapest one")

	order   order // a ranking: "cheapest", "two newest"
	n       int
	rankAt  int
	hasRank bool
	memRank bool    // the ranking is of the items on screen
	tied    []*item // the items on screen that share the one the ranking picked ("the newer of the two", both 2021)
	ranked  []*item // those items (the Toyotas of "which Toyota is the newest?" with all shown)

	ps      []*plan // the page's tools for text2, best first
	toks2   []token
	best    *plan
	unclear bool // the best plan is no clear match: the rules after it look elsewhere
}

// read classifies text once: everything the rules decide from.
func (c *conv) read(text string, lookup bool) *reading {
	r := &reading{said: text, lookup: lookup}
	text = neverMindThe.ReplaceAllString(text, "remove the $1") // "never mind the winter package": not a musing
	text = c.amountSaidBefore(text)
	if rest := cameBefore.ReplaceAllString(text, ""); strings.TrimSpace(rest) != "" {
		text = rest // "Hi, I came by last week. Show me the SUVs, please.": the request
	}
	if rest := musing.ReplaceAllString(greeting.ReplaceAllString(text, ""), ""); rest != "" {
		text = rest // "hi, what colors does it come in", "on second thought, make it white"
	}
	if parts := sentenceEnd.Split(strings.TrimSpace(text), -1); len(parts) > 1 {
		// "too pricey. back": a remark, then only where to go
		last := tokenize(parts[len(parts)-1])
		if anyNorm(last, "back", "return") && !slices.ContainsFunc(last, func(t token) bool {
			return t.kind == kindWord && !goingWords[t.norm] && !stopWords[t.norm] && !politeWords[t.norm]
		}) {
			text = parts[len(parts)-1]
		}
	}
	text = ifSoLast.ReplaceAllString(text, "$1? If so, $2.")
	text = inDetail.ReplaceAllString(text, "open $1") // "look at the cheapest one in more detail": its page
	if c.lister() != nil {
		text = manySeats.ReplaceAllString(text, "family with $0") // "need 7 seats": no filter has seats; a family's kinds
	}
	text = familyOf.ReplaceAllString(text, "$1") // "a family of 5, budget 35k": 5 bounds nothing
	if p := c.termParam(); p != nil && lowestMonthly.MatchString(text) {
		// "whats the lowest monthly i can get": over the longest term the calculator offers
		if en := p.schema.allEnums(); len(en) > 0 && en[0].isNum {
			longest := slices.MaxFunc(en, func(a, b enumValue) int { return cmp.Compare(a.num, b.num) })
			text = lowestMonthly.ReplaceAllString(text, "monthly payment over "+longest.text()+" months")
		}
	}
	text = nothingThat.ReplaceAllString(text, "$1 ")      // "nothing that costs more than 25000": nothing more than
	text = addUpTo.ReplaceAllString(text, "total")        // "what does it add up to?": its total (nothing added)
	text = differenceIf.ReplaceAllString(text, "what if") // "what's the difference if we put 6000 down instead?": worked out
	text = figureShown.ReplaceAllString(text, "$1")       // "whats the price shown now": the price
	if rest := tellMeWhat.ReplaceAllString(text, ""); rest != text && isQuestion(rest, tokenize(rest)) {
		text = rest // "could you tell me what this Outback costs with …": what it costs with …
	} else if rest != text && wordAt(tokenize(rest), 0, "the") {
		text = "what are " + strings.TrimRight(rest, "?.! ") + "?" // "tell me the times I can book": which they are
	}
	if m := aboutThenIt.FindStringSubmatchIndex(text); m != nil {
		// "I've changed my mind about the comfort seats; please remove them": remove the seats
		text = text[m[4]:m[5]] + " " + text[m[2]:m[3]] + text[m[1]:]
	}
	if rest := beforeClause.ReplaceAllString(text, ""); rest != "" {
		text = rest // "Before I book, could you tell me the price of this Audi?": the question
	}
	text = c.respell(text)
	r.like = similarTo.MatchString(text)
	text = c.rewriteSimilar(text)
	text = upFront.ReplaceAllString(text, "down") // "I give 3000 at the start"
	if notDear.MatchString(text) {
		// "a small car, not too expensive, maybe under 25 thousand": the figure says how cheap
		if strings.ContainsAny(notDear.ReplaceAllString(text, ""), "0123456789") {
			text = notDear.ReplaceAllString(text, "")
		} else {
			text = notDear.ReplaceAllString(text, " cheap")
		}
	}
	text = stackUp.ReplaceAllString(text, "compare with") // "how does it stack up vs the golf"
	if howDoI.MatchString(text) {
		text = strings.TrimRight(howDoI.ReplaceAllString(text, "${1}I'd like to "), " ?") // "how do I apply?": the visitor would
	}
	if !differenceOf.MatchString(text) {
		text = differsFrom.ReplaceAllString(text, "compare $1 with") // "how is it different from the cr-v?"
		if m := differenceBetween.FindStringIndex(text); m != nil && anyNorm(tokenize(text[m[1]:]), "and") {
			text = "compare " + strings.TrimRight(text[m[1]:], " ?.!") // "what's the difference between the camry and the cr-v?" ("… between the two?" answers what differs)
		}
	}
	if versus.MatchString(text) && !isQuestion(text, tokenize(text)) {
		text = "compare " + versus.ReplaceAllString(text, "and ") // "rav4 vs cr-v"; "which is cheaper, this vs that?" asks
	}
	if c.hasParam(clockParam) {
		text = timeRefused.ReplaceAllString(text, "")        // "9 is too early, 11": 11
		text = bareHourChange(text)                          // "make it 11 instead": at 11
		text = hourOnDay.ReplaceAllString(text, "at $1 $2")  // "10 on friday"
		text = partHour.ReplaceAllString(text, "$1 at $2$3") // "sat morning 9"
		text = whenCome.ReplaceAllString(text, "what times") // "when can i come in?": the times to choose from
	}
	text = dayRefused.ReplaceAllStringFunc(text, func(m string) string {
		if namesDay(strings.Join(dayRefused.FindStringSubmatch(m)[1:], "")) {
			return "" // "saturday is busy, sunday", "the 13th doesn't work — Saturday the 19th"
		}
		return m
	})
	if m := otherNot.FindStringSubmatchIndex(text); m != nil {
		// "the other one, not the Odyssey" of the two the last reply named: the RAV4
		if named := c.lastNamed(); len(named) == 2 {
			if not := nameMentions(text[m[2]:m[3]], named, nil); len(not) == 1 && len(not[0].items) == 1 {
				keep := named[0]
				if keep == not[0].items[0] {
					keep = named[1]
				}
				text = text[:m[0]] + theTitle(keep) + text[m[1]:]
			}
		}
	}
	if m := decided.FindStringIndex(text); m != nil {
		// "I like the CR-V but we'll go with the RAV4": the one decided on; "the Ioniq is
		// cheaper, we'll go with that one": the one named before it
		what, named := text[m[1]:], nameMentions(text[:m[0]], c.now.known(), nil)
		if itWord.MatchString(what) && len(named) == 1 && len(named[0].items) == 1 {
			what = theTitle(named[0].items[0])
		}
		if len(named) > 0 && len(nameMentions(what, c.now.known(), nil)) == 1 {
			text = "go with " + what
		}
	}
	if m := swapValue.FindStringSubmatchIndex(text); m != nil && c.valuesGiven()[strings.ToLower(text[m[2]:m[3]])] {
		text = text[:m[0]] + "make it " + text[m[1]:] // "swap the Elite for the EX-L": the EX-L
	}
	if m := backToOne.FindStringSubmatchIndex(text); m != nil {
		// "go back to the first one": the first car opened, not the first of a list; "the
		// previous one": the one before the last
		opened := c.openedItems() // the last opened first
		if first := strings.EqualFold(text[m[2]:m[3]], "first"); first && len(opened) > 0 || len(opened) > 1 {
			it := opened[len(opened)-1]
			if !first {
				it = opened[1]
			}
			text = text[:m[0]] + "open " + theTitle(it) + text[m[1]:]
		}
	}
	if m := backToName.FindStringSubmatchIndex(text); m != nil {
		// (with a request after it: "back to the tacoma" alone is its page, by the list)
		rest := strings.Trim(pleaseRe.ReplaceAllString(text[m[1]:], ""), " ,.;!?")
		if w := strings.ToLower(text[m[2]:m[3]]); rest != "" && !hubWords[w] && !goingWords[w] && !c.vocab[normWord(w)] && len(nameMentions(w, c.now.known(), nil)) > 0 {
			text = text[:m[0]] + "open the " + text[m[2]:m[3]] + text[m[1]:] // "back to the RAV4, please; we'd like it in blue"
		} else if ms := nameMentions(w, c.before.known(), nil); len(ms) == 1 && c.vocab[normWord(w)] && c.openedOf(ms[0].items) != nil {
			text = text[:m[0]] + "open " + theTitle(c.openedOf(ms[0].items)) + text[m[1]:] // "go back to the Audi": the one of them opened
		}
	}
	if !noteCue.MatchString(text) {
		text = asWell.ReplaceAllString(text, " too") // (a note's words stay the visitor's: "add a note: Oliver will be driving as well")
		text = youShowed.ReplaceAllString(text, "")  // "the first one you showed me": the first one
	}
	text = cheapestTrim.ReplaceAllString(text, "base trim")                    // "cheapest trim pls": the first the tool lists
	text = makeItChoice.ReplaceAllString(text, "pick the $1")                  // "switch it to the SX trim": a choice, not another car
	text = allTogether.ReplaceAllString(text, "altogether")                    // "how much is it all together"
	text = setNow.ReplaceAllString(text, "which $1$2$3 did I choose?")         // "what trim is it set to now?": the one chosen, not the choices
	text = narrowTo.ReplaceAllString(text, "show only")                        // "narrow it to ones from 2023 or newer"
	text = goWithChoice.ReplaceAllString(text, "set the $2 and take me to $1") // "take me to financing for the EX-L configuration"
	if l := c.oneList(); l != "" {
		text = withEverything.ReplaceAllString(text, "with all the "+l+"s") // "how much with everything"
	}
	if toks := tokenize(text); (!isQuestion(text, toks) || withAll.MatchString(text)) && !anyNorm(toks, "remove", "drop", "delete", "clear", "without", "no", "off") {
		text = c.everyChoice(text) // "add all the packages": each one named; "whats the price with all packages"
	} else {
		text = c.dropThem(text) // "nah remove them" after the packages were added
	}
	text = sameWhen.ReplaceAllString(text, "") // "the A6 instead, same day and time": kept, as every change keeps them
	if opensFromComparison.MatchString(text) {
		text = fromComparison.ReplaceAllString(text, "") // "open the first one in the comparison": that one
	}
	text = restSame.ReplaceAllString(text, "")             // "48 months, keeping the rest the same": what is not said is kept
	text = insteadOfWord.ReplaceAllString(text, "")        // "the Turbo trim instead of Preferred": not the Preferred
	text = costLess.ReplaceAllString(text, "cheaper than") // "which SUVs cost less than the Odyssey?"
	if c.lister() == nil {
		text = anyIn.ReplaceAllString(text, "does it come in $1?") // "any in white?" of the car on screen asks, not sets
	}
	text = muchMo.ReplaceAllString(text, "how much a month") // "how much mo for this one"
	text = maxBefore.ReplaceAllString(text, "up to $1")      // "suv max 45000" (the suv was lost)
	text = raisedTo.ReplaceAllString(text, "$1 to")          // "bump the down payment up to 12k": to 12k, no ceiling
	if compareAgain.MatchString(text) {
		if its := c.comparedLast(); len(its) > 1 {
			text = "compare " + joinList(its, "and") // "compare again" from a car's page: by name, where they are compared
		}
	}
	text = spendFor.ReplaceAllString(text, "$1 up to $2") // "wat can i get for 25k", "spend 30k"
	text = c.rewriteRelative(text, c.unanswered)          // "push it an hour later", "the day after instead"
	if c.fewSeen() {
		text = whichOne.ReplaceAllString(text, "which of them $1") // "which one is hybrid?" of the two compared: no search
	}
	if l := c.lister(); l != nil {
		text = rewriteYear(text, l)                                                 // "2023 suvs": from 2023
		text = kindOnes.ReplaceAllString(text, "$1 "+listNoun(l.def.Name, 2)+" $2") // "what electric ones do you have?": a search
	}
	text = monthsShort.ReplaceAllString(text, "$1$2 months")    // "60mo", "48 mos", "48m"
	text = monthlyOver.ReplaceAllString(text, "$1 $2 months$3") // "wats the monthly over 48": 48 months, no price
	text = pickUps.ReplaceAllString(text, "pickup")             // "pick ups", "a pick-up"
	text = countJoined.ReplaceAllString(text, "$1 $2")          // "a 2-bedroom place": 2 bedrooms
	text = withShort.ReplaceAllString(text, "with$1")           // "compare w the golf", "w/ 2k down"
	if c.hasParam(func(p *property) bool { return dateKind.wants(p) && hasWord(p, "from", "start", "after", "since") }) {
		text = thisWeekend.ReplaceAllString(text, "from saturday") // "concerts this weekend": from its first day
	}
	if c.hasParam(dateKind.wants) {
		text = rewriteDates(text, c.today)
	} else if c.hasParam(weekdayParam) { // "what classes are there tomorrow": its day of the week
		text = relDayRe.ReplaceAllStringFunc(text, func(s string) string { return strings.ToLower(relDay(s, c.today).Weekday().String()) })
	}
	if c.hasParam(clockParam) {
		text = rewriteTimes(text)
	}
	text = c.rewriteAround(c.rewriteScale(text))
	text = thanThis.ReplaceAllString(downAfter.ReplaceAllString(text, "$1 $2 down"), "or $1$2")
	text = isThan.ReplaceAllString(text, "$1 or $2") // "is the golf cheaper than the corolla?"
	if c.hasParam(func(p *property) bool { return p.schema.isNumber() && hasWord(p, rateWords...) }) {
		text = atRate.ReplaceAllString(text, "at ${1}%$2") // "60 months at 4.9": a rate
	}
	text = c.rewriteNearest(notOld.ReplaceAllString(text, ""))
	text = noneDown.ReplaceAllString(backTo.ReplaceAllString(insteadOf.ReplaceAllString(text, "make it "), "make it $1"), "0 down")
	if m := bareShare.FindStringSubmatchIndex(text); m != nil && c.lastUser > 0 {
		// "and 15%?" after "what if i put 20% down": 15% down, not a rate of 15%
		if prev := shareOf.FindStringSubmatch(c.userBefore(c.lastUser - 1)); prev != nil {
			text = text[:m[3]] + " " + prev[1] + text[m[3]:]
		}
	}
	text = goAhead.ReplaceAllString(c.rewritePlaces(c.rewriteShares(text)), "")
	toks := tokenize(text)
	r.text, r.toks, r.text2, r.base = text, toks, text, text
	r.question = isQuestion(text, toks)
	r.pronoun = pronounIn(toks)
	r.numbers = slices.ContainsFunc(toks, func(t token) bool {
		return t.kind == kindNumber || t.kind == kindTime || t.kind == kindDate || t.kind == kindWord && calendarWords[t.norm]
	})
	r.plain = rankPlans(text, c.tools)

	// What the text points at among the items seen: names, "the second", "the red one",
	// "the cheaper one".
	known := c.before.known()
	if c.page != nil && c.before.items[c.page.id] == nil {
		known = append(known, c.page) // "the miata" on the Miata's calculator opened by its link
	}
	mentions := func(vocab map[string]bool) []mention {
		return slices.DeleteFunc(nameMentions(text, known, vocab), func(m mention) bool {
			if said := strings.ToLower(text[m.start:m.end]); stem(said) != said && c.before.kind(stem(said)) {
				return true // "show me the convertibles": a kind, not the 430i Convertible
			}
			// named by its title only: by the last word of its name ("the Toyota Camry" on the
			// RAV4's page is no mention of it)
			if len(m.items) != 1 || m.items[0] != c.page || len(c.page.words) == 0 {
				return false
			}
			return !strings.Contains(compact(strings.ToLower(text[m.start:m.end])), c.page.words[len(c.page.words)-1])
		})
	}
	r.mentions = mentions(c.vocab)
	if len(r.mentions) == 0 && (c.wantsItem(r) || anyNorm(toks, "other") || thisMake(toks, c.vocab)) {
		// "open the tesla", "the other audi": a filter word names items when the request is
		// about one item.
		r.mentions = mentions(nil)
	} else if len(r.mentions) == 0 && (r.question || anyNorm(toks, "about", "then")) {
		// "what's the price of the volvo?", "tell me more about the volvo", "the coupe then, …" with one on screen: that one ("any convertibles
		// under 30k?" with one on screen asks for a kind)
		if ms := nameMentions(text, c.before.last, nil); len(ms) == 1 && len(ms[0].items) == 1 &&
			!strings.HasSuffix(possessed(strings.ToLower(text[ms[0].start:ms[0].end])), "s") { // ("the volvo's colours")
			r.mentions = ms
		}
	} else if len(r.mentions) == 1 && c.comparer(r) != nil {
		if all := mentions(nil); len(all) == 2 && len(all[0].items) == 1 && len(all[1].items) == 1 {
			r.mentions = all // "compare the kia and the crv": a make said as its one car
		}
	} else if _, than := comparativeThan(toks); len(r.mentions) == 1 && r.question && (asksDifference(toks) || than) {
		// "how much more is the volvo than the camry": "volvo", a filter's word, is one of the two
		if ms := nameMentions(text, c.before.last, nil); len(ms) == 2 && len(ms[0].items) == 1 && len(ms[1].items) == 1 {
			r.mentions = ms
		}
	}
	// "this Tesla" on the Model Y's page is the Model Y, though the Model 3 is a Tesla too
	for i, m := range r.mentions {
		cur := c.onScreen()
		if j := slices.IndexFunc(m.items, func(it *item) bool { return it.id == cur }); len(m.items) > 1 && j >= 0 && thisBefore.MatchString(text[:m.start]) {
			r.mentions[i].items = m.items[j : j+1]
		}
	}
	// A number alone names no item ("5.5%" is no "Ioniq 5"); nor does a kind asked of "it" ("is
	// it a convertible?" of the Miata is not the BMW 430i Convertible).
	r.mentions = slices.DeleteFunc(r.mentions, func(m mention) bool {
		said := text[m.start:m.end]
		return r.pronoun && c.before.kind(said) || strings.IndexFunc(said, unicode.IsLetter) < 0
	})
	// nor does a name inside a note: "add a note that I'd like to see the Tacoma's towing
	// package" keeps the visitor's words for the salesperson
	if at := c.noteAt(text); at >= 0 {
		r.mentions = slices.DeleteFunc(r.mentions, func(m mention) bool { return m.start >= at })
	}
	// each place once (two readings of one name overlap: the shorter stays): replaced from the
	// last, those before stay
	slices.SortStableFunc(r.mentions, func(a, b mention) int { return a.start - b.start })
	var once []mention
	for _, m := range r.mentions {
		switch k := len(once) - 1; {
		case k < 0 || m.start >= once[k].end:
			once = append(once, m)
		case m.end-m.start < once[k].end-once[k].start:
			once[k] = m
		}
	}
	r.mentions = once
	var surnames []int // the starts of names said as a person's
	for _, m := range slices.Backward(r.mentions) {
		said := strings.ToLower(text[m.start:m.end])
		plural := stem(said) != said || strings.HasSuffix(said, "s") && !slices.ContainsFunc(m.items, func(it *item) bool {
			return slices.Contains(it.words, compact(said[strings.LastIndex(said, " ")+1:]))
		})
		// "show me the Toyota cars": the make's, all of them
		if next := slices.IndexFunc(toks, func(t token) bool { return t.start >= m.end }); next >= 0 && pluralNouns[strings.ToLower(toks[next].raw)] {
			plural = true
		}
		switch it := c.openedOf(m.items); {
		case plural && c.lister() != nil && c.comparer(r) == nil && (len(m.items) > 1 || !c.wholeListSeen()) && !strings.HasSuffix(said, "'s"):
			// "show me the Toyota cars", "the toyotas" after the sedans: the list's filter, of
			// the make (with the whole list seen, one of it is that one: "show me the subarus")
			continue
		case len(m.items) < 2:
		case c.surname(toks, m):
			surnames = append(surnames, m.start) // "Lena Ford lena@ford.io" on a form that takes a name: no Ford of the list
			continue
		case plural && (c.comparer(r) != nil || c.lister() == nil): // "compare the Teslas": all of them
		case len(m.items) == 2 && anyNorm(toks, "other") && cmp.Or(it, c.namedOf(m.items)) != nil:
			// "the other Audi" once one was opened, "the other tesla" after the cheapest was named
			was := cmp.Or(it, c.namedOf(m.items))
			m.items = slices.DeleteFunc(slices.Clone(m.items), func(o *item) bool { return o == was })
		case r.question && wordAt(toks, slices.IndexFunc(toks, func(t token) bool { return t.end > m.start })-1, "a", "an", "any"):
			continue // "anything cheaper, maybe a hatchback?": a kind, not one of them
		case it != nil && !manyOrOther(toks) && !plural:
			m.items = []*item{it} // "open the Audi" once the A4's page was open: the A4
		case !plural && !manyOrOther(toks) && len(inLast(m.items, c.before.last)) == 1:
			m.items = inLast(m.items, c.before.last) // "open the toyota" of the RAV4, the Sportage and the CR-V compared
		case !plural && len(ofKindBeside(m, toks)) == 1:
			m.items = ofKindBeside(m, toks) // "the audi wagon": the Audi that is one
		default:
			r.ambiguous = &m
			return r
		}
		r.text2 = r.text2[:m.start] + strings.Join(itemIDs(m.items), " and ") + r.text2[m.end:]
		r.refs = slices.Insert(r.refs, 0, m.items...)
	}
	r.mentions = slices.DeleteFunc(r.mentions, func(m mention) bool { return slices.Contains(surnames, m.start) })
	named := len(r.refs) > 0 // the names in text2 are ids now
	either := anyNorm(toks, "or", "vs", "versus")
	r.order, r.n, r.rankAt, r.hasRank = rankOf(toks)
	asked := c.unanswered != nil && slices.ContainsFunc(c.unanswered.missing, clockParam)
	if i, _ := extremeAt(toks); i >= 0 && c.hasParam(clockParam) && (asked || c.answering != "") {
		r.hasRank = false // "whats the latest" while the time is asked, though cars were listed
	}
	it := c.pronounRef(toks)
	if it == nil && len(r.refs) == 1 && r.hasRank && strings.HasSuffix(strings.ToLower(toks[r.rankAt].raw), "er") {
		it = c.openedLast() // "is the f150 cheaper?" than the car opened last
		either = it != nil
	}
	if i := slices.IndexFunc(toks, func(t token) bool { return t.norm == "compare" }); it == nil && named && len(r.refs) == 1 &&
		wordAt(toks, i+1, "with", "to", "against") && (c.onScreen() != "" || c.reread) {
		it = c.openedLast() // "compare with the audi a4" on a car's page: with that car
	}
	if it == nil && named && len(r.refs) == 1 && asksDifference(toks) {
		if c.onScreen() != "" || c.reread {
			it = c.openedLast() // "how much more is the 330i" on the Civic's page: than the Civic
		} else if last := c.lastNamed(); len(last) == 1 {
			it = last[0] // "how much more is the tesla model y" after the Model 3 was named
		} else if two := c.before.last; len(two) == 2 && slices.Contains(two, r.refs[0]) {
			it = two[1-slices.Index(two, r.refs[0])] // "How much more is the BMW?" of the two compared: than the other
		}
		either = it != nil
	}
	if named && it != nil && !slices.Contains(r.refs, it) && (c.comparer(r) != nil || either) {
		// "compare this with the Audi A4", "which is cheaper, this or the F-150?": "this" is one of them
		r.refs = slices.Insert(r.refs, 0, it)
		r.text2 += " " + it.id
	}
	thatOne := false // "that one", "this one"
	for i := range toks {
		thatOne = thatOne || wordAt(toks, i, "that", "this") && wordAt(toks, i+1, "one")
	}
	if two := c.lastNamed(); !named && len(two) == 2 && asksDifference(toks) && (it == nil || slices.Contains(two, it)) {
		r.refs = two // "by how much", "whats the difference" after which of two is cheaper
	} else if !named && (!c.plainAction(r) || r.question && thatOne) {
		// ("is that one available in red" of the one just named is of it, not a filter)
		// "open it", "book that one": the one item the previous answer named.
		if last := c.before.last; it != nil && len(last) == 2 && slices.Contains(last, it) && asksDifference(toks) {
			r.refs = []*item{it, last[1-slices.Index(last, it)]} // "how much more expensive is it" of the two listed
		} else if it != nil {
			r.refs = []*item{it}
		} else if c.reread && r.question && asksField(toks) && c.pageItem() != nil {
			r.refs = []*item{c.pageItem()} // "whats the price" on its booking page, read on the list

		} else if r.hasRank && pluralPronoun(toks) {
			// "open the cheapest of those": one of them (pointAtSeen)
		} else if c.fewSeen() && (pluralPronoun(toks) || differs(toks)) {
			// "compare them", "compare both": the two or three items the last result listed.
			r.refs = c.before.last
		} else if named := c.lastNamed(); len(named) >= 2 && len(named) <= 3 && pluralPronoun(toks) {
			r.refs = named // "compare them" after "The 3 cheapest are …"
		} else if two := c.namedOneEach(); two != nil && pluralPronoun(toks) {
			r.refs = two // "compare them" after the cheapest, then the most expensive
		}
	}
	if len(r.refs) == 0 && len(c.before.last) > 0 {
		c.pointAtSeen(r)
	}
	if !named && len(r.refs) > 0 { // the items pointed at are added by their ids
		r.text2 = r.base
		for _, it := range r.refs {
			r.text2 += " " + it.id
		}
	}
	r.ps = rankPlans(r.text2, c.tools)
	r.toks2 = tokenize(r.text2)
	if len(r.ps) > 0 {
		r.best = formFirst(r.ps)
		r.unclear = r.best.score < threshold || !c.clearMatch(r.best, r.toks2, r.question)
	}
	if it := c.justNamed(); len(r.refs) == 0 && !named && (r.question || len(toks) <= 2 && asksField(toks)) && c.listsItems() && c.onScreen() == "" && it != nil && len(toks) <= 4 &&
		(asksField(toks) || slices.ContainsFunc(toks, func(t token) bool {
			return c.hasParam(func(p *property) bool { return nounOf(t, p) }) || t.kind == kindWord && it.attrs[t.norm] != nil // ("whats the time" of the class listed)
		})) {
		r.refs = []*item{it} // "wat colours" after "The cheapest one is the Kia Sportage (the …)": its colours; "hw much" of the one listed
	} else if len(r.refs) == 0 && !named && r.question && asksField(toks) && len(toks) <= 5 && c.listsItems() && c.onScreen() == "" && c.fewSeen() {
		r.refs = c.before.last // "whats the mileage" of the three listed, "how many miles on it" of two named newest: of each
	}
	seen := c.before.items[c.onScreen()]
	if (r.best == nil || r.unclear) && len(r.refs) == 0 && !named && r.question && asksField(toks) && seen != nil && !c.listsItems() {
		r.refs = []*item{seen} // "whats the mileage" on a car's page, which no tool there tells: of that car
	}
	return r
}

// payment is the monthly payment a result stated for an item.
type payment struct {
	it     *item
	said   string
	amount float64
}

var monthlyRe = regexp.MustCompile(`(?i)\bmonthly(?: payment)?(?: is| of|:)?\s+([$€£]\s?([0-9][0-9,]*(?:\.[0-9]+)?))`)

// payments are the last monthly payment stated for each item the conversation opened, the
// latest first: the item is the one open when the result came.
func (c *conv) payments() []payment {
	var out []payment
	var cur *item
	for _, k := range c.calls {
		if id := openedID(k); id != "" || k.page {
			cur = cmp.Or(c.now.items[id], c.page)
		} else if noArguments(k.args) {
			// "Opening the financing calculator for the 2023 Honda Civic …" from its page opened by a link
			if it := c.namedOne(unwrap(k.result).text); it != nil {
				cur = it
			}
		}
		m := monthlyRe.FindStringSubmatch(unwrap(k.result).text)
		if m != nil && cur == nil { // a calculator come to by a link, since left: the one item at the price it names
			cur = c.pricedIn(unwrap(k.result).text)
		}
		if m == nil || cur == nil || !k.done {
			continue
		}
		v, _ := parseMoney(m[2])
		out = slices.DeleteFunc(out, func(p payment) bool { return p.it == cur })
		out = slices.Insert(out, 0, payment{cur, m[1], v})
	}
	return out
}

// pricedIn is the one item seen whose price the text names; nil when none or several.
func (c *conv) pricedIn(text string) *item {
	var found *item
	for _, it := range c.now.known() {
		if v, ok := it.num(priceField.keys...); ok && strings.Contains(text, priceField.value(v, c.now.money)) {
			if found != nil {
				return nil
			}
			found = it
		}
	}
	return found
}

// othersSeen are the items of the last list besides the one on screen, on a page of one item
// (no list here); nil elsewhere.
func (c *conv) othersSeen() []*item {
	on := c.onScreen()
	if on == "" || c.listsItems() || c.before.items[on] == nil {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(c.before.last), func(it *item) bool { return it.id == on })
}

// unnamed are the words of the reading without those that name items.
func (r *reading) unnamed() []token {
	return slices.DeleteFunc(slices.Clone(r.toks), func(t token) bool {
		return slices.ContainsFunc(r.mentions, func(m mention) bool { return t.start >= m.start && t.end <= m.end })
	})
}

// lastNamed are the items the planner's last reply named, in order; not those a question
// named for example ("Which 2 to 3 …? For example …"): "the first two" are of the list.
func (c *conv) lastNamed() []*item { return c.namedBy(c.lastReply()) }

// namedBy are the items a reply of the planner names (lastNamed).
func (c *conv) namedBy(said string) []*item {
	if strings.HasPrefix(said, deadEndStart) || moreRe.MatchString(said) {
		// its suggestions ("open the 2023 Toyota RAV4") are examples, not a choice; a list
		// cut short ("…; and 8 more.") names a few of the list, which is the result's
		return nil
	}
	said, _, _ = strings.Cut(said, "? For example ")
	// nor are the suggestions of any reply ("Noted: … Elsewhere on the site: “open the …”")
	return c.itemsNamed(suggestionRe.ReplaceAllString(said, ""))
}

// namedOneEach are the items the planner's last two replies named, one each: "the cheapest",
// then "the most expensive", are "them".
func (c *conv) namedOneEach() []*item {
	var out []*item
	for i := c.lastUser - 1; i >= 0 && len(out) < 2; i-- {
		if m := c.msgs[i]; m.Role == chat.RoleAssistant && strings.TrimSpace(m.Content) != "" {
			named := c.namedBy(m.Content)
			if len(named) != 1 || slices.Contains(out, named[0]) {
				return nil
			}
			out = append(out, named[0])
		}
	}
	if len(out) < 2 {
		return nil
	}
	return []*item{out[1], out[0]}
}

// lastReply is the planner's last reply before the visitor's message; "" when there is none.
func (c *conv) lastReply() string {
	for i := c.lastUser - 1; i >= 0; i-- {
		if m := c.msgs[i]; m.Role == chat.RoleAssistant && strings.TrimSpace(m.Content) != "" {
			return m.Content
		}
	}
	return ""
}

// suggestionRe is a suggestion of a reply, as a link or as plain quoted text.
var suggestionRe = regexp.MustCompile(`\[?“[^”]*”(?:\]\([^)]*\))?`)

// moreRe ends a list cut short: "…; and 8 more."
var moreRe = regexp.MustCompile(`\band \d+ more\b`)

// itemsNamed are the items a text names each on its own, in order (a filter word such as
// "convertible" names none, nor does a figure).
func (c *conv) itemsNamed(text string) []*item {
	var out []*item
	for _, mn := range nameMentions(text, c.before.known(), c.vocab) {
		// (a figure alone names none: "at 5.5% APR" is no Ioniq 5)
		if said := text[mn.start:mn.end]; len(mn.items) == 1 && !slices.Contains(out, mn.items[0]) && !c.before.kind(said) && strings.IndexFunc(said, unicode.IsLetter) >= 0 {
			out = append(out, mn.items[0])
		}
	}
	return out
}

// comparer is the page's tool that takes a list of items when the words name it, or nil.
func (c *conv) comparer(r *reading) *plan {
	lists := func(p *property) bool { _, list := idParam(p); return list }
	if i := slices.IndexFunc(r.plain, func(p *plan) bool {
		return slices.ContainsFunc(p.schema.props, lists) && c.nameHit(p, r.toks)
	}); i >= 0 {
		return r.plain[i]
	}
	return nil
}

// compareShown is the comparing tool's plan, its ids missing, for "compare them" said where the
// best match only shows the comparison made before and the list shown since is another; nil
// otherwise.
func (c *conv) compareShown(r *reading) *plan {
	if r.best == nil || len(r.best.schema.props) > 0 || !pluralPronoun(r.toks) || len(r.refs) > 0 || len(c.before.last) == 0 {
		return nil
	}
	p, ids := c.lastCompared(func(t chat.ToolDef) bool { return c.nameHit(&plan{def: t}, r.toks) })
	if p == nil || slices.Equal(ids, itemIDs(c.before.last)) {
		return nil
	}
	return p
}

// compareMore is the comparison the words make of the items the conversation's last
// comparison had: with one more ("add the outback too", "include the golf as well"), without
// some ("remove the cheapest one", "take the CR-V out"), or one swapped for another ("swap the
// CR-V for the Outback"); or, when too few would be left, what to say instead. Nil and "" for
// any other words.
func (c *conv) compareMore(r *reading) (*plan, string) {
	if r.question || len(r.refs) == 0 {
		return nil, ""
	}
	p, ids := c.lastCompared(func(chat.ToolDef) bool { return true })
	if p == nil || len(ids) < 2 {
		return nil, ""
	}
	in := func(it *item) bool { return slices.Contains(ids, it.id) }
	var all []string
	switch {
	case len(r.refs) == 1 && !in(r.refs[0]) && anyNorm(r.toks, "add", "include", "too", "also", "well", "plus"):
		all = append(slices.Clone(ids), r.refs[0].id)
	case len(r.refs) == 2 && in(r.refs[0]) != in(r.refs[1]) && anyNorm(r.toks, "swap", "replace", "switch", "instead", "exchange"):
		out, new := r.refs[0], r.refs[1]
		if !in(out) {
			out, new = new, out
		}
		all = slices.Clone(ids)
		all[slices.Index(all, out.id)] = new.id
	case !slices.ContainsFunc(r.refs, func(it *item) bool { return !in(it) }) && anyNorm(r.toks, "remove", "drop", "delete", "without", "minus", "rid", "out", "off"):
		all = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return slices.ContainsFunc(r.refs, func(it *item) bool { return it.id == id }) })
		if len(all) == 1 && c.now.items[all[0]] != nil && !p.missing[0].schema.acceptsStrings(all) {
			left := c.now.items[all[0]]
			return nil, "Without " + joinList(titles(r.refs), "and") + ", only " + theTitle(left) + " is left: too few to " +
				strings.TrimPrefix(c.describeTool(p.def.Name), "show ") + ". I can " + c.offer([]string{"open " + theTitle(left)}, "or", true) + "."
		}
	default:
		return nil, ""
	}
	if p.missing[0].schema.acceptsStrings(all) {
		return &plan{def: p.def, schema: p.schema, values: map[string]any{p.missing[0].name: all}}, ""
	}
	return nil, ""
}

// lastCompared is the plan of a tool here that takes a list of ids and that keep accepts, that
// list missing, with the ids the conversation's last call of it gave; nil when there is none.
func (c *conv) lastCompared(keep func(chat.ToolDef) bool) (*plan, []string) {
	for _, t := range c.tools {
		s := parseSchema(t.Parameters)
		for _, p := range s.props {
			var ids []string
			if _, list := idParam(p); list && keep(t) && json.Unmarshal(c.lastArgs(t.Name, p.name)[p.name], &ids) == nil {
				return &plan{def: t, schema: s, values: map[string]any{}, missing: []*property{p}}, ids
			}
		}
	}
	return nil, nil
}

// compareAll filters, then compares what the filter shows when the comparing tool takes that
// many ("compare all the minivans"); else it says how many there are.
func (c *conv) compareAll(filter, cmp *plan) intent {
	return intent{
		// step takes steps[len(done)]: the comparison of what the filter shows once it ran
		steps: func(c *conv) []*plan {
			return []*plan{filter, withIDs(&plan{def: cmp.def, schema: cmp.schema, values: map[string]any{}}, c.now.last)}
		},
		final: func(c *conv) string {
			switch {
			case len(c.done) > 1:
				return c.summary()
			case len(c.now.last) == 1:
				return "Only one " + listNoun(filter.def.Name, 1) + " matches: " + theTitle(c.now.last[0]) + ". That is too few to " + c.describe(cmp) + "."
			}
			return c.summary() + " That is too many to " + c.describe(cmp) + " at once: which should I compare?"
		},
	}
}

// formFirst is the best plan, or the form's when the best commits and takes nothing: "book a
// test drive on Saturday at 11" on the booking page is for the form, which takes the date and
// the time; the visitor books it once whole.
func formFirst(ps []*plan) *plan {
	fills := func(p *plan) bool {
		return len(p.values) > 0 && p.score >= threshold && !named(p.def.Name, commitFirst)
	}
	if i := slices.IndexFunc(ps, fills); i > 0 && named(ps[0].def.Name, commitFirst) && len(ps[0].values) == 0 {
		return ps[i]
	}
	return ps[0]
}

// stackUp is "stack up against" and its like, said for "compare with".
var stackUp = regexp.MustCompile(`(?i)\b(?:stacks?|measures?)\s+up\s+(?:against|vs\.?|versus|to|with)\b`)

// howDoI asks the way to do something the visitor would do: "how do I apply?", "where can I book".
var howDoI = regexp.MustCompile(`(?i)(^|[,.;!?]\s*|\band\s+|\bso\s+)(?:how|where)\s+(?:do|can|could|would|should)\s+(?:i|we)\s+(?:go\s+about\s+)?`)

// raisedTo is a value moved "up to" another: "bump the down payment up to 12k", "take it up to 72".
var raisedTo = regexp.MustCompile(`(?i)\b((?:bump|knock|push|jack|crank|ramp|bring|take|put|move)\b[^.?!,;]{0,40}?)\s+up\s+to\b`)

// restSame keeps what was not said as it is, as every change does: "keeping the rest the
// same", "everything else unchanged", "same as before but".
var restSame = regexp.MustCompile(`(?i)[,;]?\s*(?:and\s+|but\s+)?(?:(?:keep|keeping|leave|leaving)\s+)?(?:the\s+rest|everything\s+else|all\s+else|the\s+others?|all\s+the\s+others?)\s+(?:the\s+same|as\s+(?:is|it\s+is|they\s+are|before)|unchanged)\b|\bsame\s+as\s+before\s+but\b`)

// insteadOfWord names what the visitor does not want: "the Turbo trim instead of Preferred"
// (a figure is insteadOf's).
var insteadOfWord = regexp.MustCompile(`(?i)\s*\binstead\s+of\s+(?:the\s+|a\s+|an\s+)?[a-z][\w-]*(?:\s+(?:trim|package|colou?r|one))?\b`)

// isThisThe asks whether the item on screen is one named: "is this the ioniq?", "wait is
// this one the A6?".
var isThisThe = regexp.MustCompile(`(?i)^\s*(?:(?:wait|so|sorry|hmm)[\s,]+)?is\s+(?:this|that)(?:\s+(?:car|one))?\s+the\s+[^?]*\??\s*$`)

// differsFrom asks how "it" differs from another: a comparison with it.
var differsFrom = regexp.MustCompile(`(?i)^\s*(?:so\s+|and\s+)?how\s+(?:is|are|does|do)\s+(it|this(?:\s+one)?|that(?:\s+one)?|they)\s+(?:different|differ)\s+(?:from|to|than)\b`)

// differenceBetween asks the difference between two things, no figure named: a comparison
// ("what's the difference between …", "whats different between …").
var differenceBetween = regexp.MustCompile(`(?i)^.*?\b(?:(?:the\s+)?(?:main\s+|big\s+|real\s+)?differences?|different)\s+between\b`)

// differenceOf names what differs ("the difference in price between …", "how much cheaper is it
// than …"): a figure's difference, answered as one, not a comparison.
var differenceOf = regexp.MustCompile(`(?i)\b(?:price|prices|cost|costs|pay|payment|monthly|month|miles?|mileage|km|kilometres|kilometers|years?|old|older|newer|cheaper|dearer|expensive|much|gap)\b`)

// versus is "vs" or "versus" between two things: a comparison asked for, unless it is a question.
var versus = regexp.MustCompile(`(?i)\b(?:vs\.?|versus)(?:\s|$)`)

// rewriteAround writes an amount said roughly ("around 40k", "about $30,000") as the range
// within a tenth of it, where a tool takes both a lower and an upper limit: "between 36000
// and 44000". An amount a word follows ("around 40k a year", "about 5k down") is left, and so
// is a budget ("a budget of roughly 40 thousand": a ceiling).
func (c *conv) rewriteAround(text string) string {
	if !c.hasParam(func(p *property) bool { return bound(p) == "min" }) || !c.hasParam(func(p *property) bool { return bound(p) == "max" }) {
		return text
	}
	toks := tokenize(text)
	for i := len(toks) - 1; i > 0; i-- {
		t := toks[i]
		if t.kind != kindNumber || !t.money || t.percent || !wordAt(toks, i-1, "around", "about", "roughly", "approximately", "approx") ||
			i+1 < len(toks) && toks[i+1].kind == kindWord && !slices.Contains([]string{"dollar", "dollars", "buck", "bucks", "or", "ish"}, toks[i+1].norm) ||
			slices.ContainsFunc(toks[max(i-5, 0):i], func(t token) bool { return t.norm == "budget" }) { // "a budget of roughly 40 thousand", "around 40k budget": a ceiling
			continue
		}
		lo, hi := strconv.Itoa(int(math.Round(t.value*0.9))), strconv.Itoa(int(math.Round(t.value*1.1)))
		text = text[:toks[i-1].start] + "between " + lo + " and " + hi + text[t.end:]
	}
	return text
}

// smallBounds are the bare numbers below 1,000 said as a bound of a price ("suvs under 35",
// "40 or less"): no currency, no "k", no unit after them, on a page whose tools take price
// bounds.
func (c *conv) smallBounds(toks []token) []int {
	if !c.hasParam(func(p *property) bool { return bound(p) != "" && hasWord(p, priceField.keys...) }) {
		return nil
	}
	var at []int
	for i, t := range toks {
		if t.kind != kindNumber || t.money || t.percent || t.decimals || t.value < 1 || t.value >= 1000 ||
			i+1 < len(toks) && toks[i+1].kind == kindWord && (units[toks[i+1].norm] != nil || toks[i+1].norm == "a" || toks[i+1].norm == "per" || countedUnits[toks[i+1].norm] && !wordAt(toks, i+1, "thousand", "grand")) || // ("at least 3 bedrooms")
			wordAt(toks, i-1, "top") || // "top 3 cheapest", "compare top 3": how many

			boundCue(toks, i) == "" && !(slices.Contains(at, i-2) && wordAt(toks, i-1, "and", "to", "-")) { // ("between 20 and 25")
			continue
		}
		at = append(at, i)
	}
	return at
}

// pricesSeen tells whether the conversation has seen prices of items, and whether all of them
// are 1,000 or more.
func (c *conv) pricesSeen() (seen, thousands bool) {
	thousands = true
	for _, it := range c.before.items {
		if v, ok := it.num(priceField.keys...); ok {
			seen = true
			thousands = thousands && v >= 1000
		}
	}
	return seen, seen && thousands
}

// rewriteScale reads a bare bound below 1,000 of a price as thousands when every price seen is
// 1,000 or more: "suvs under 35" of cars is "suvs under 35k" (the rule "a bound's scale"
// reads the list first when no price has been seen).
func (c *conv) rewriteScale(text string) string {
	toks := tokenize(text)
	at := c.smallBounds(toks)
	if _, thousands := c.pricesSeen(); len(at) == 0 || !thousands {
		return text
	}
	for _, i := range slices.Backward(at) {
		text = text[:toks[i].end] + "k" + text[toks[i].end:]
	}
	return text
}

// thisWeekend is the coming weekend: "this weekend", "on the weekend", "this wknd".
var thisWeekend = regexp.MustCompile(`(?i)\b(?:this|on\s+the|over\s+the|the)\s+(?:weekend|wknd)\b`)

// countJoined is a count joined to its unit: "2-bedroom", "3-night".
var countJoined = regexp.MustCompile(`\b([0-9]{1,2})-([a-z]{3,})\b`)

// pickUps is the pickup written in two words: "pick ups", "pick-ups", "a pick-up" (not the
// verb: "pick up the car").
var pickUps = regexp.MustCompile(`(?i)\bpick(?:\s+ups|-ups?)\b`)

// withShort is "with" written "w" or "w/".
var withShort = regexp.MustCompile(`\bw/?(\s)`) // lower case: "George W Bush" keeps his initial

// monthsShort is a number of months written short: "60mo", "48 mos", "36mths", and a loan term
// with an m: "48m".
var monthsShort = regexp.MustCompile(`(?i)\b(\d{1,3})\s?(?:mo|mos|mth|mths)\b|\b(12|24|36|48|60|72|84|96)m\b`)

// downAfter is an amount put down written after "down" ("put down $4,000", "put down ten
// grand", "put down seven thousand five hundred"): it is read as "put $4,000 down", where the word after an amount names its parameter.
var downAfter = regexp.MustCompile(`(?i)\b(put|putting|puts)\s+down\s+([$€£]?\s?[0-9](?:[0-9,.]*[0-9])?\s?(?:k\b|%|percent\b)?|[a-z]+(?:[\s-][a-z]+)?\s+(?:grand|thousand|hundred)(?:\s+(?:and\s+)?[a-z]+\s+hundred)?\b)`)

// insteadOf is a figure said to be replaced, and the words that lead to its replacement:
// "instead of 36, let's try 24" is "make it 24" (rewriteNearest names its parameter).
var insteadOf = regexp.MustCompile(`(?i)\binstead\s+of\s+([$€£]?[0-9][0-9,.]*\s*(?:k\b|%|months?|mo)?)[\s,]*(?:(?:let'?s|let\s+us|can\s+we|could\s+we|we)\s+)?(?:try|do|go\s+with|make\s+it|use)?\s*`)

// backTo is a figure gone back to: "hmm no go back to 60" is no trip to the list.
// vagueDay is the plan of a tool here that lacks a date the words name only as a week or a
// weekend; nil when there is none.
func (c *conv) vagueDay(r *reading) *plan {
	for _, p := range r.ps {
		if !named(p.def.Name, commitFirst) && slices.ContainsFunc(p.missing, dateKind.wants) {
			return p
		}
	}
	return nil
}

// amountAMonth is a sum the visitor would pay each month: "500 a month", "$350/mo".
var amountAMonth = regexp.MustCompile(`(?i)(?:[$€£]\s?\d[\d,.]*k?|\b\d[\d,.]*k?\s*(?:dollars?|bucks|usd|eur)?)\s*(?:(?:a|per|each|every)\s+month\b|/\s*mo(?:nth)?\b|a\s+mo\b)`)

// twoValues are the two values of the monthly term a request sets side by side ("the
// difference between 48 and 60 months", "compare 48 and 72 months"); nil for any other.
func (c *conv) twoValues(r *reading) []string {
	p := c.termParam()
	if p == nil || !anyNorm(r.toks, "difference", "differ", "compare", "vs", "versus", "between") {
		return nil
	}
	var vs []string
	for _, t := range r.toks {
		if t.kind == kindNumber && !t.money && !t.percent && p.schema.valid(t.value) {
			vs = append(vs, t.raw)
		}
	}
	if len(vs) != 2 || slices.ContainsFunc(r.toks, func(t token) bool { return t.kind == kindNumber && (t.money || t.percent) }) {
		return nil
	}
	return vs
}

// addUpTo asks for a sum: "what does it add up to?", "what do they add up to".
var addUpTo = regexp.MustCompile(`(?i)\badds?\s+up(?:\s+to)?\b`)

// figureShown is a figure said with where it is shown: "the price shown", "the total on screen".
var figureShown = regexp.MustCompile(`(?i)\b(price|total|cost|monthly|payment)\s+(?:shown|displayed|on\s+(?:the\s+)?(?:screen|page))\b`)

// differenceIf asks what a change of a figure makes: "what's the difference if we put …".
var differenceIf = regexp.MustCompile(`(?i)\bwhat(?:'s|’s|\s+is|s)?\s+the\s+difference\s+if\b`)

// nothingThat leads to a bound denied: "nothing that costs more than", "none which are over".
var nothingThat = regexp.MustCompile(`(?i)\b(nothing|none)\s+(?:that|which)\s+(?:costs?|is|are)\s+`)

// shareAsked is a share of the price or of an amount: "20% of the price", "15 percent of 23,900".
var shareAsked = regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?)\s*(?:%|percent|per cent)\s+of\s+(?:(?:the|its|this|that)\s+(?:car'?s\s+)?price\b|([$€£]?\s?\d[\d,.]*k?)\b)`)

// budgetAsked is the amount a question holds the monthly payment on screen against, said
// without "a month" or in words: 500 of "is that under 500?", "is it within five hundred a
// month?"; 0 for any other words, or with no payment on screen.
func (c *conv) budgetAsked(said string) float64 {
	toks := slices.DeleteFunc(tokenize(said), func(t token) bool {
		return t.kind == kindPunct || anyNorm([]token{t}, "and", "so", "still", "then", "dollars", "dollar", "bucks", "than", "a", "per", "month", "mo")
	})
	if len(toks) != 4 || !anyNorm(toks[:1], "is", "would", "will") || !anyNorm(toks[1:2], "that", "it", "this") ||
		!anyNorm(toks[2:3], "under", "below", "within", "less") || toks[3].kind != kindNumber ||
		toks[3].percent || !monthlyRe.MatchString(c.lastResult()) {
		return 0
	}
	return toks[3].value
}

// leadingAmount is the amount an amount a month begins with: "$350" of "$350/mo".
var leadingAmount = regexp.MustCompile(`^[$€£]?\s?\d[\d,.]*k?`)

// lastResult is the newest result of a tool the conversation has, this turn's too.
func (c *conv) lastResult() string { return resultIn(c.msgs) }

// resultIn is the newest result of a tool among msgs, or "".
func resultIn(msgs []chat.Message) string {
	for _, m := range slices.Backward(msgs) {
		if m.Role == chat.RoleTool {
			return m.Content
		}
	}
	return ""
}

// termParam is the parameter of a tool here that works out a monthly figure (its description
// says "monthly") counted in months (termMonths), when no parameter takes an amount a month;
// nil when there is none.
func (c *conv) termParam() *property {
	for _, t := range c.tools {
		if !strings.Contains(strings.ToLower(t.Description), "monthly") {
			continue
		}
		for _, p := range parseSchema(t.Parameters).props {
			if hasWord(p, "month") && !hasWord(p, "monthly", "payment") && len(p.words) > 1 {
				return p
			}
		}
	}
	return nil
}

// timeRefused is an hour the visitor finds too early or late: "9 is early", "9am too early".
var timeRefused = regexp.MustCompile(`(?i)\b\d{1,2}(?::\d\d)?\s*(?:am|pm)?\s+(?:is\s+|'s\s+|’s\s+)?(?:(?:way\s+|a\s+bit\s+|bit\s+|kinda\s+)?too\s+|a\s+bit\s+|kinda\s+)?(?:early|late)(?:\s+for\s+(?:me|us))?\b`)

// dayRefused is a day the visitor cannot come: "saturday is busy", "the 13th doesn't work",
// "Monday I cannot", "friday is not possible".
var dayRefused = regexp.MustCompile(`(?i)\b((?:the\s+)?[\w/]+)\s+(?:is|'s|’s)\s+(?:busy|bad|no good|not good|out|full|taken)\b|\b((?:the\s+)?[\w/]+)\s+(?:doesn'?t|doesn’t|does not|won'?t|won’t|will not)\s+work\b|\b((?:the\s+)?[\w/]+)\s+(?:i|we)\s+(?:cannot|can'?t|can’t|can not)(?:\s+(?:come|make it|do it))?\b|\b((?:the\s+)?[\w/]+)\s+(?:is|'s|’s)\s+(?:not\s+possible|impossible)\b`)

// nthOf is the place an ordinal before the ranking word at gives ("second" of "the second
// cheapest": 2); 0 when none.
func nthOf(toks []token, at int) int {
	j := at - 1
	for wordAt(toks, j, "most", "least", "the") {
		j--
	}
	if j < 0 {
		return 0
	}
	return max(ordinals[strings.ToLower(toks[j].raw)], 0)
}

var ordinalNames = []string{"", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}

// oneOfTwo finds two values of one parameter of p that takes one, said with "or" or "and"
// ("sedan or hatchback"), p set to one of them: the parameter's name and the text with the
// other alone ("hatchback under 25k"); "" when there are none.
func (c *conv) oneOfTwo(p *plan, text string) (string, string) {
	toks := tokenize(text)
	for _, q := range p.schema.props {
		set, ok := p.values[q.name].(string)
		if !ok || q.schema.isArray() {
			continue
		}
		for i := range toks {
			if !wordAt(toks, i, "or", "and") || i == 0 || i+1 >= len(toks) {
				continue
			}
			j := i + 1 // ("a minivan or an SUV")
			if wordAt(toks, j, "a", "an", "the") && j+1 < len(toks) {
				j++
			}
			a, b := valueOf(q, toks[i-1]), valueOf(q, toks[j])
			if a == "" || b == "" || a == b || set != a && set != b {
				continue
			}
			from := toks[i-1].start
			if wordAt(toks, i-2, "a", "an", "the") {
				from = toks[i-2].start
			}
			keep := text[toks[i+1].start:toks[j].end] // with its article: "an SUV"
			if set == b {
				keep = text[from:toks[i-1].end]
			}
			return identPhrase(q.name), strings.TrimSpace(text[:from] + keep + text[toks[j].end:])
		}
	}
	return "", ""
}

// valueOf is the string choice of q that the word names; "" when none.
func valueOf(q *property, t token) string {
	for _, e := range q.schema.allEnums() {
		if e.isStr && namedValue([]token{t}, e) {
			return e.str
		}
	}
	return ""
}

// backToOne is going back to a thing by its place among those opened.
var backToOne = regexp.MustCompile(`(?i)\b(?:(?:go|take\s+(?:me|us))\s+)?back\s+to\s+the\s+(first|previous)(?:\s+one|\s+car)?\b`)

// backToName is going back to a thing by its name: "back to the RAV4", "take me back to the
// Outback's page".
var backToName = regexp.MustCompile(`(?i)\b(?:(?:go|take\s+(?:me|us))\s+)?back\s+to\s+the\s+([\w-]+?)(?:'s|’s)?(?:\s+page)?\b`)

// wholeListSeen reports a call of the page's listing tool without arguments: every item's name
// is known.
func (c *conv) wholeListSeen() bool {
	l := c.lister()
	return l != nil && slices.ContainsFunc(c.calls, func(k call) bool { return k.done && k.name == l.def.Name && noArguments(k.args) })
}

// howItIs asks how the item performs, which no choice of its page says: "how long does it take
// to charge?", "how far can it go?".
var howItIs = regexp.MustCompile(`(?i)^\s*(?:and\s+|so\s+|ok\s+)?how\s+(?:long|far|fast|quick|quickly|often|reliable|safe|economical|efficient|comfortable|big|heavy)\b`)

// pluralNouns after a name make it a group's: "the Toyota cars", "the BMW models".
var pluralNouns = rawSet(`cars ones models vehicles`)

// notDear says cheap without a ranking: "not too expensive", "affordable".
var notDear = regexp.MustCompile(`(?i),?\s*\b(?:not\s+(?:too\s+|very\s+|so\s+)?expensive|inexpensive|affordable)\b`)

// upFront are other words for a down payment: "5000 at the start", "2k upfront".
var upFront = regexp.MustCompile(`(?i)\b(?:up\s*-?\s*front|at\s+the\s+(?:start|beginning)|at\s+signing)\b`)

// howMany asks how many there are, and what follows: "how many are there?", "so how many
// cars is that".
var howMany = regexp.MustCompile(`(?i)^\s*(?:and\s+|so\s+|ok\s+)?ho?w\s+many\b([^?!.]*)[?!.]*\s*$`)

// countFillers are the words of a count asked of the list: "are there", "of them", "in total";
// totalWords ask it of the whole list.
var (
	countFillers = rawSet(`are there is that of them those these in total all altogether overall left match matching shown listed showing do you have got`)
	totalWords   = rawSet(`total all altogether overall`)
)

// pleaseRe is a word of politeness.
var pleaseRe = regexp.MustCompile(`(?i)\b(?:please|pls|plz|thanks|thank you)\b`)

// muchMo is "how much a month" said short: "how much mo", "how much /mo".
var muchMo = regexp.MustCompile(`(?i)\bhow\s+much\s+(?:a\s+|per\s+|/\s*)?mo\b`)

// theValueItem reports a value of the list's filters said as an item ("what colours does the
// Volvo come in?": the Volvo, not the colour filter's choices): the list finds it first.
func (c *conv) theValueItem(toks []token) bool {
	l := c.lister()
	return l != nil && slices.ContainsFunc(l.schema.props, func(p *property) bool {
		return slices.ContainsFunc(p.schema.allEnums(), func(e enumValue) bool {
			i := slices.IndexFunc(toks, func(t token) bool { return e.isStr && strings.EqualFold(t.raw, e.str) })
			return i > 0 && wordAt(toks, i-1, "the") && itemSlot(toks, i)
		})
	})
}

// kindSearch is the list's search for the kind the request names ("which SUVs …"), or nil.
func (c *conv) kindSearch(r *reading) *plan {
	l := c.lister()
	if i := slices.IndexFunc(r.ps, func(p *plan) bool { return l != nil && p.def.Name == l.def.Name && len(p.values) > 0 }); i >= 0 {
		return r.ps[i]
	}
	return nil
}

// yesAlone only agrees: "yes go ahead", "ok do it", "sure".
var yesAlone = regexp.MustCompile(`(?i)^\s*(?:(?:yes|yeah|yep|yup|sure|ok|okay)(?:[,\s]+(?:please|pls))?(?:[,\s]+(?:go\s+ahead|do\s+it))?|go\s+ahead|do\s+it)\s*[.!]*\s*$`)

// yesSend agrees and names the sending: "yep go ahead n book", "yes, send it".
var yesSend = regexp.MustCompile(`(?i)^\s*(?:yes|yeah|yep|yup|sure|ok|okay)?[,\s]*(?:please\s+)?(?:(?:do\s+)?go\s+ahead|do\s+it)?[,\s]*(?:and|n|&)?\s*(?:book|send|submit|confirm|reserve)(?:\s+(?:it|that|them|the\s+booking|my\s+booking|the\s+form))?(?:[,\s]+(?:please|pls))?\s*[.!]*\s*$`)

// hoursAsked asks when the business is open: "are you open on sunday?", "r u open late".
var hoursAsked = regexp.MustCompile(`(?i)\b(?:(?:are|r)\s+(?:you|u|ya|they)\s+open|opening\s+(?:hours|times)|business\s+hours|(?:when|what\s+time)\s+(?:do|does)\s+(?:you|u|it|the\s+\w+)\s+(?:open|close))\b`)

// whatElse asks what else is needed: "what else u need", "anything else you need from me?".
var whatElse = regexp.MustCompile(`(?i)^\s*(?:(?:so|and|ok|okay)[,\s]+)?(?:what\s+else|anything\s+else)\s+(?:do\s+|does\s+it\s+)?(?:you|u|ya|it)?\s*(?:need|want|require)s?(?:\s+(?:from\s+me|to\s+know))?\s*[?.!]*\s*$`)

// clauseEnd ends a clause: a stop, a comma, a semicolon or an exclamation.
var clauseEnd = regexp.MustCompile(`[.,;!]+\s*`)

// withoutCourtesies is the text without its sentences and clauses of courtesy ("Splendid, do go
// ahead and reserve it." is "do go ahead and reserve it").
func (c *conv) withoutCourtesies(text string) string {
	var rest []string
	for _, part := range clauseEnd.Split(text, -1) {
		if _, talk := c.smallTalk(part); strings.TrimSpace(part) != "" && !talk {
			rest = append(rest, strings.TrimSpace(part))
		}
	}
	return strings.Join(rest, ", ")
}

// anyIn asks whether there is one in a value, and nothing else: "any in white?".
var anyIn = regexp.MustCompile(`(?i)^\s*(?:any|got\s+any|any\s+of\s+them)\s+in\s+([\w-]+)\s*\?+\s*$`)

// costLess is "cheaper than" said with the verb.
var costLess = regexp.MustCompile(`(?i)\bcosts?\s+less\s+than\b`)

// whenCome asks when one may come, and nothing else.
var whenCome = regexp.MustCompile(`(?i)^\s*when\s+(?:can|could|should|may)\s+(?:i|we)\s+(?:come(?:\s+in|\s+by|\s+over)?|visit|drop\s+by|stop\s+by)\s*\?*\s*$`)

// noteCue leads to words written for a note: "add a note:", "comment that".
var noteCue = regexp.MustCompile(`(?i)\b(?:note|notes|comment|comments|message)\b`)

// asWell is "as well", said as "too" (what narrows a list, what adds to a choice): "add the
// cargo organiser as well".
var asWell = regexp.MustCompile(`(?i)\s+as\s+well\b`)

// spendFor is an amount to spend, said as a ceiling: "what can i get for 25k", "buy for
// $25,000", "spend 30k".
var spendFor = regexp.MustCompile(`(?i)\b((?:get|buy)\s+for|spend)\s+([$€£]?\d)`)

// maxBefore is "max" written before a figure: "max 45000", "maximum $30k".
var maxBefore = regexp.MustCompile(`(?i)\b(?:max|maximum)\s+([$€£]?\d)`)

// possessed is a name without its possessive: "volvo" of "volvo's".
func possessed(s string) string { return strings.TrimSuffix(strings.TrimSuffix(s, "'s"), "’s") }

// otherNot is "the other one" said with the one it is not: "the other one, not the Odyssey".
var otherNot = regexp.MustCompile(`(?i)\b(?:the\s+other|another)(?:\s+one)?\s*,?\s*(?:and\s+)?not\s+the\s+([^,.!?;]+)`)

// priceAgainst asks whether the price on screen is within an amount: "is this under 35k?".
var priceAgainst = regexp.MustCompile(`(?i)^\s*(?:so\s+|and\s+|but\s+)?(?:is|would|will)\s+(?:this|it|that)(?:\s+(?:one|car|van|truck|suv|sedan))?(?:\s+still)?\s+(under|below|within|less\s+than|over|above|more\s+than)\s+([$€£]?\s?\d[\d,.]*\s*(?:k|grand|thousand)?)\s*\??\s*$`)

// priceHeld is the amount a question holds the price against, and whether it asks for less
// ("under") or more ("over"); ok false when it asks none, or a monthly figure (under 1,000).
func priceHeld(said string) (amount float64, under, ok bool) {
	m := priceAgainst.FindStringSubmatch(said)
	if m == nil {
		return 0, false, false
	}
	for _, t := range tokenize(m[2]) {
		if t.kind == kindNumber && !t.percent {
			amount = t.value
			break
		}
	}
	w := strings.ToLower(m[1])
	return amount, !strings.HasPrefix(w, "over") && !strings.HasPrefix(w, "above") && !strings.HasPrefix(w, "more"), amount >= 1000
}

// declineRe says the visitor has no such detail: "no phone sorry", "i don't have an email".
var declineRe = regexp.MustCompile(`(?i)^\s*(?:(?:sorry|nah|no|oh|um|well)[,\s]+)*(?:i\s+)?(?:(?:do\s+not|don'?t|dont)\s+have\s+(?:a|an|one)\s+|(?:have\s+)?no\s+|(?:haven'?t|havent)\s+got\s+(?:a|an)\s+)(\w+)(?:\s+(?:number|address))?(?:[,\s]+(?:sorry|though|tho))?\s*[.!]*\s*$`)

// declined is the tool and the parameter of a detail the visitor says they have not.
func (c *conv) declined(said string) (string, *property) {
	m := declineRe.FindStringSubmatch(said)
	if m == nil {
		return "", nil
	}
	for _, t := range c.tools {
		for _, q := range parseSchema(t.Parameters).props {
			if q.schema.isString() && !q.schema.stringEnum() && hasWord(q, stem(strings.ToLower(m[1]))) {
				return t.Name, q
			}
		}
	}
	return "", nil
}

// decided says which of things named is chosen: "go with", "stay with", "agreed on".
var decided = regexp.MustCompile(`(?i)\b(?:go(?:ing)?|stay|stick|settle)\s+with\s+|\b(?:agreed|decided|settled)\s+on\s+`)

// swapValue puts one value in the place of another: "swap the Elite for the EX-L", "change
// the red to blue", "replace the winter package with the tech one".
var swapValue = regexp.MustCompile(`(?i)\b(?:swap|switch|replace|change|trade)\s+(?:out\s+)?(?:the\s+)?([\w-]+)(?:\s+(?:trim|package|pkg|colou?r|one))?\s+(?:for|with|to|into)\s+`)

var backTo = regexp.MustCompile(`(?i)\b(?:go(?:ing)?\s+|switch\s+)?back\s+to\s+([$€£]?[0-9])`)

// notOld is the figure a correction replaces, said after the new one: "20% down, not 15%".
// It is no value of its own (insteadOf reads "instead of 15%, 20%").
var notOld = regexp.MustCompile(`(?i)(?:[,;]\s*|\s+)(?:and\s+)?not\s+(?:the\s+)?[$€£]?\d[\d,.]*\s*(?:k\b|%|percent\b)?`)

// rewriteNearest names the parameter of a figure said alone as a change ("nah do 4k", "make it
// 4k" after 60 months with $5,000 down): the amount the visitor gave the last call of a tool
// here that is nearest to it, "4k down payment", not a price of $4,000.
func (c *conv) rewriteNearest(text string) string {
	toks := tokenize(text)
	at := -1
	for i, t := range toks {
		switch {
		case t.kind == kindNumber && at < 0 && t.money && !t.percent:
			at = i
		case t.kind == kindNumber || t.kind == kindDate || t.kind == kindTime:
			return text // two figures, or a figure of another kind
		case t.kind == kindWord && !stopWords[t.norm] && !correctionWords[t.norm] && !swapWords[strings.ToLower(t.raw)] &&
			!slices.Contains([]string{"do", "nah", "instead", "rather", "then", "try", "use", "go"}, t.norm):
			return text // "4k down", "a price of 4k": the words say which
		}
	}
	if at < 0 {
		return text
	}
	v := toks[at].value
	for k := range c.earlierCalls {
		var args map[string]any
		if !c.offers(k.name) || json.Unmarshal([]byte(k.args), &args) != nil {
			continue
		}
		best, dist := "", math.Inf(1)
		for _, name := range slices.Sorted(maps.Keys(args)) {
			if f, ok := args[name].(float64); ok && f > 0 {
				if d := math.Abs(math.Log(v / f)); d < dist && d < math.Log(4) {
					best, dist = name, d
				}
			}
		}
		if best == "" {
			return text
		}
		return text[:toks[at].end] + " " + identPhrase(best) + text[toks[at].end:]
	}
	return text
}

// atRate is a figure with decimals said after "at" (or "try") and no unit: "… at 4.9", "try
// 3.9" are a rate.
var atRate = regexp.MustCompile(`(?i)\b(?:at|try|use|make\s+it|about|with|and)\s+(\d{1,2}\.\d{1,2})(\s*$|\s*[,;?]|\s+(?:for|with|over|and|instead)\b)`)

// noneDown is nothing put down, in words: "no money down", "without a down payment",
// "forget the down payment".
var noneDown = regexp.MustCompile(`(?i)\b(?:no|nothing|zero|without(?:\s+an?|\s+any)?|(?:forget|drop|remove|skip)(?:\s+about)?(?:\s+the)?)\s+(?:money\s+)?down(?:\s+payment)?\b`)

// isThan asks which of two is more: "is the Golf cheaper than the Corolla?" is read as "… cheaper
// or the Corolla?" (a search is "cars cheaper than the RAV4").
var isThan = regexp.MustCompile(`(?i)^(\s*(?:is|was)\s+(?:the|this|it)\b.*?\b\w+er)\s+than\s+(the\s+)`)

// thanThis compares with the item on screen: "is the Tacoma cheaper than this one?" is read as
// "… cheaper or this one?" (a bound is "cheaper than $30k").
// comparativeThan is the order of a comparative said before "than" and no figure: "cheaper
// than this", "newer than the bmw", "more expensive than it" ("cheaper than 25k" is a bound).
func comparativeThan(toks []token) (order, bool) {
	for i, t := range toks {
		than := i + 1
		if wordAt(toks, i+2, "than") && toks[i+1].kind == kindWord {
			than = i + 2 // "cheaper ones than this", "newer cars than the bmw"
		}
		if !wordAt(toks, than, "than") || than+1 < len(toks) && toks[than+1].kind == kindNumber {
			continue
		}
		if o, ok := rankWords[t.norm]; ok && strings.HasSuffix(o.what, "er") {
			return o, true
		}
		if k := slices.IndexFunc(rankPairs, func(p rankPair) bool {
			return i > 0 && slices.Contains(p.first, toks[i-1].norm) && slices.Contains(p.next, t.norm)
		}); k >= 0 && (strings.HasPrefix(rankPairs[k].o.what, "more ") || strings.HasPrefix(rankPairs[k].o.what, "less ")) {
			return rankPairs[k].o, true
		}
	}
	return order{}, false
}

// laterRe and dayAfterRe move a time or a day the form has: "push it an hour later", "two
// hours earlier"; "the day after instead", "the next day" (not "the day after tomorrow").
var (
	laterRe    = regexp.MustCompile(`(?i)\b(an|one|1|two|2|three|3)\s+hours?\s+(later|earlier)\b`)
	dayAfterRe = regexp.MustCompile(`(?i)\b(?:the\s+day\s+after|a\s+day\s+later|the\s+next\s+day|the\s+following\s+day)\b(\s+tomorrow)?`)
)

// rewriteRelative writes a move of the time or the day that the request asked to complete
// (q, when not nil) holds, or a call of this page's tools last set, as the new value: "push it
// an hour later" after 10:00 is "make it 11:00".
func (c *conv) rewriteRelative(text string, q *plan) string {
	for _, t := range c.tools {
		for _, p := range parseSchema(t.Parameters).props {
			v, ok := "", false
			if q != nil && q.def.Name == t.Name {
				v, ok = q.values[p.name].(string) // "saturday", then "the day after instead": the form waits for the rest
			}
			if !ok && json.Unmarshal(c.lastArgs(t.Name, p.name)[p.name], &v) != nil {
				continue
			}
			switch at, err := time.Parse("15:04", v); {
			case clockParam(p) && err == nil:
				text = laterRe.ReplaceAllStringFunc(text, func(m string) string {
					g := laterRe.FindStringSubmatch(m)
					n := map[string]int{"an": 1, "one": 1, "1": 1, "two": 2, "2": 2, "three": 3, "3": 3}[strings.ToLower(g[1])]
					if strings.EqualFold(g[2], "earlier") {
						n = -n
					}
					return "make it " + at.Add(time.Duration(n)*time.Hour).Format("15:04")
				})
			case dateKind.wants(p):
				if day, err := time.Parse("2006-01-02", v); err == nil {
					text = dayAfterRe.ReplaceAllStringFunc(text, func(m string) string {
						if dayAfterRe.FindStringSubmatch(m)[1] != "" {
							return m // "the day after tomorrow"
						}
						return "make it " + day.AddDate(0, 0, 1).Format("2006-01-02")
					})
				}
			}
		}
	}
	return text
}

// ofKindBeside are the items of m that a word right after or before the name is a value of:
// "wagon" of "the audi wagon".
func ofKindBeside(m mention, toks []token) []*item {
	after := slices.IndexFunc(toks, func(t token) bool { return t.start >= m.end })
	before := slices.IndexFunc(toks, func(t token) bool { return t.end > m.start }) - 1
	for _, i := range []int{after, before} {
		if i >= 0 && toks[i].kind == kindWord {
			if out := withValue(m.items, toks[i]); len(out) > 0 {
				return out
			}
		}
	}
	return nil
}

// kindOnes asks for items of a kind as "ones": "what electric ones do you have?".
var kindOnes = regexp.MustCompile(`(?i)\b((?:what|which|any)\s+[\w-]+)\s+ones\s+(do|have|are|you)\b`)

// whichOne asks which of the few items shown is something: "which one is hybrid?".
var whichOne = regexp.MustCompile(`(?i)^\s*which\s+(?:one\s+)?(is|has)\b`)

// bareYear is a year said with no word of a bound: "2023 suvs", "thats 2023" (not "2023 or
// newer", "since 2021", "the 2023 RAV4", "2000 miles").
var bareYear = regexp.MustCompile(`(?i)(\b(?:from|since|after|before|than|in|the|a|an|my|our|to|and|or|between|at|of)\s+|[-–/$€£]\s?)?\b((?:19[6-9]|20[0-4])\d)\b(\s*(?:or|and|to|through|onwards|\+|-|–|newer|older|plus|model|miles?|mi|km|k|dollars|bucks|[$€£])\b)?`)

// rewriteYear writes a year said alone as the lowest year, where the page's lister l takes a
// year: "2023 suvs" is "from 2023 suvs". (The parameter is a bound: "2022 sedans" shows those
// from 2022 on.)
func rewriteYear(text string, l *plan) string {
	if !slices.ContainsFunc(l.schema.props, func(p *property) bool { return p.schema.isNumber() && hasWord(p, "year") }) {
		return text
	}
	return bareYear.ReplaceAllStringFunc(text, func(m string) string {
		g := bareYear.FindStringSubmatch(m)
		if g[1] != "" || g[3] != "" {
			return m
		}
		return "from " + m
	})
}

// similarTo asks for items like the one on screen: "anything similar that's cheaper?",
// "something like this one", "any other cars like this", "comparable cars".
var similarTo = regexp.MustCompile(`(?i)\b(?:(?:any|some)(?:thing|one)\s+|(?:ones?|cars?|others?|options?)\s+)?(?:similar|comparable)(?:\s+(?:ones?|cars?|options?))?(?:\s+to\s+(?:this|that|it)(?:\s+one)?)?\b|\b(?:(?:any|some)(?:thing|one)|(?:(?:any|some)\s+)?(?:others?|more)(?:\s+(?:ones?|cars?|options?))?|(?:any|some)\s+(?:ones?|cars?|options?))\s+like\s+(?:this|that|it)(?:\s+one)?\b`)

// beatsAsked is the comparison the visitor's words ask ("cheaper than it"), else the one the
// rewritten text asks ("anything cheaper?": than the car on screen, or the car left).
func (c *conv) beatsAsked(r *reading) (order, bool) {
	if o, ok := comparativeThan(tokenize(r.said)); ok {
		return o, ok
	}
	return comparativeThan(tokenize(r.text))
}

// beatable are the items a comparison with the one on screen looks among: those listed
// before the turn, or, read again on the list the turn went to, those it lists now.
func (c *conv) beatable() []*item {
	if c.reread && len(c.now.last) > len(c.before.last) {
		return c.now.last
	}
	return c.before.last
}

// anyBetter asks for anything that beats the one on screen, with no "than": "anything
// cheaper?", "something newer", "cheaper one?", "do you have a newer one?".
var anyBetter = regexp.MustCompile(`(?i)(\b(?:any|some)(?:thing|one)\s+(\w+er)|(?:^\s*|\b(?:a|any)\s+)(\w+er)\s+(?:ones?|cars?|options?))\b(?:\s*\?|\s*$)`)

// rewriteSimilar writes a request for items like the one opened last as one for those of its
// kind, the value the list's first choice of filter has for it ("suvs"), and a comparison
// with it ("cheaper than the 2023 Tesla Model Y"): "This Tesla is well over our budget. Do
// you have anything similar that's cheaper?" is "show me suvs cheaper than the 2023 Tesla
// Model Y". The other sentences are remarks. Away from the list, the rule "another item"
// goes there, where the request is read again.
func (c *conv) rewriteSimilar(text string) string {
	it := c.openedLast()
	if it == nil {
		return text
	}
	like := similarTo.MatchString(text)
	if m := anyBetter.FindStringSubmatchIndex(text); m != nil && (c.reread && c.lister() != nil || c.lister() == nil && c.onItsPage()) && !like {
		// "too expensive, anything cheaper?" on a car's page, or read again on the list: than it
		w := cmp.Or(text[max(m[4], 0):max(m[5], 0)], text[max(m[6], 0):max(m[7], 0)])
		if o, ok := rankWords[normWord(w)]; ok && strings.HasSuffix(o.what, "er") {
			return text[:m[2]] + "anything " + w + " than " + theTitle(it) + text[m[3]:]
		}
	}
	if !like {
		return text
	}
	var said string
	for _, s := range sentenceEnd.Split(text, -1) {
		if similarTo.MatchString(s) {
			said = s
		}
	}
	l := c.lister()
	if l == nil {
		return said // "another item" takes it to the list
	}
	kind := ""
	for _, p := range l.schema.props {
		if has := it.attrs[strings.ToLower(p.name)]; kind == "" && p.schema.stringEnum() && len(has) == 1 && slices.ContainsFunc(p.schema.enum, func(v enumValue) bool { return strings.EqualFold(v.str, has[0]) }) {
			kind = has[0]
		}
	}
	if kind == "" {
		return text
	}
	if !strings.HasSuffix(kind, "s") {
		kind += "s"
	}
	out := "show me " + kind
	toks := tokenize(said)
	for i, t := range toks {
		if o, ok := rankWords[t.norm]; ok && strings.HasSuffix(o.what, "er") && !wordAt(toks, i+1, "than") {
			out += " " + t.raw + " than " + theTitle(it) // "…that's cheaper?"
			break
		}
	}
	return out
}

// beforeClause is a clause that sets a request in time and asks nothing: "before I book, …",
// "before we go ahead, …", "before anything else, …".
var beforeClause = regexp.MustCompile(`(?i)^\s*(?:(?:before|after)\s+(?:i|we)\s+(?:\w+\s+){0,2}?\w+|before anything else)\s*,\s*`)

// beatsWho names others in a comparison with the one on screen: "is there one thats cheaper
// than it", "any newer than this?", "show me cheaper cars than this".
var beatsWho = regexp.MustCompile(`(?i)\b(one|ones|any|anything|something|others?|cars?|items?|options?)\b`)

var thanThis = regexp.MustCompile(`(?i)\bthan\s+(this|that|it)(\s+one|\s+car)?\b`)

// ifSo ends a question and starts what to do when the answer is yes: "…? If so, …".
var ifSo = regexp.MustCompile(`(?i)[?.!]\s*if so\b[,:]?\s*`)

// twoResults answers which of the last two results of one tool has the lower (or higher)
// figure the question names by the words before it in both ("total interest"): "The first (term
// months 36, down payment 3000) has the lower total interest: $3,186.88 against $4,814.47 for the
// second (term months 60, down payment 6000)." ok is false when no two results state it.
func (c *conv) twoResults(toks []token) (string, bool) {
	has := func(set map[string]bool) bool {
		return slices.ContainsFunc(toks, func(t token) bool { return set[t.norm] })
	}
	lower, higher := has(lowerWords), has(higherWords)
	diff := !lower && !higher && differs(toks) // "what's the difference in interest?"
	if lower == higher && !diff {
		return "", false
	}
	var two []call
	for k := range c.earlierCalls {
		if k.done && !unwrap(k.result).isError && (len(two) == 0 || k.name == two[0].name && k.args != two[0].args) {
			two = append(two, k)
		}
		if len(two) == 2 {
			break
		}
	}
	if len(two) < 2 {
		return "", false
	}
	asked := slices.DeleteFunc(contentWords(c.text), func(w string) bool {
		return lowerWords[w] || higherWords[w] || requestWords[w] || auxWords[w] || differWords[w] || w == "two" || w == "ha" ||
			diff && (w == "between" || w == "figures" || w == "figure" || w == "numbers" || w == "them")
	})
	if perMonth(toks) || diff && slices.Contains(asked, "monthly") {
		asked = append([]string{"monthly", "payment"}, asked...) // "which was cheaper per month, the 72 or the 60?"
	}
	for n := min(len(asked), 3); n >= 1; n-- {
		for i := 0; i+n <= len(asked); i++ {
			re := regexp.MustCompile(`(?i)\b` + strings.Join(asked[i:i+n], `\s+`) + `\s*:?\s+([$€£]\s?([0-9][0-9,]*(?:\.[0-9]+)?))`)
			m1, m0 := re.FindStringSubmatch(unwrap(two[1].result).text), re.FindStringSubmatch(unwrap(two[0].result).text)
			if m1 == nil || m0 == nil {
				continue
			}
			v1, _ := parseMoney(m1[2])
			v0, _ := parseMoney(m0[2])
			// (a call that left a value to the page, "60 months" before "5.5 percent", is "the other one")
			label := func(args, other string) string {
				if said := argsSaid(args, other); said != "" {
					return "the one with " + said
				}
				return "the other one"
			}
			first, second, fv, sv := label(two[1].args, two[0].args), label(two[0].args, two[1].args), m1[1], m0[1]
			if diff {
				return fmt.Sprintf("The difference in %s is %s: %s for %s against %s for %s.", strings.Join(asked[i:i+n], " "),
					priceField.value(math.Abs(v1-v0), c.before.money), fv, first, sv, second), true
			}
			if (v0 < v1) == lower {
				first, second, fv, sv = second, first, sv, fv
			}
			level := map[bool]string{true: "lower", false: "higher"}[lower]
			return upperFirst(first) + " has the " + level + " " + strings.Join(asked[i:i+n], " ") + ": " + fv + " against " + sv + " for " + second + ".", true
		}
	}
	return "", false
}

// lowerWords and higherWords say which of two figures is asked: the lower or the higher.
var (
	lowerWords  = rawSet(`lower lowest less least smaller smallest cheaper cheapest`)
	higherWords = rawSet(`higher highest more most bigger biggest larger`)
)

// argsSaid writes the arguments of a call that differ from another's as words: "36 months"
// (a name ending in a unit), "down payment 3000".
func argsSaid(args, other string) string {
	var m, o map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	_ = json.Unmarshal([]byte(other), &o)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if fmt.Sprint(m[k]) == fmt.Sprint(o[k]) {
			continue
		}
		ws := identWords(k)
		if unit := strings.TrimSuffix(ws[len(ws)-1], "s"); len(ws) > 1 && timeUnits[unit] {
			out = append(out, fmt.Sprint(m[k])+" "+unit+"s")
		} else {
			out = append(out, identPhrase(k)+" "+fmt.Sprint(m[k]))
		}
	}
	return strings.Join(out, ", ")
}

// timeUnits end the names of parameters counted in them: termMonths, stayNights.
var timeUnits = rawSet(`month year week day night hour minute`)

// userBefore is the visitor's message that the message at i answers; "" when none.
func (c *conv) userBefore(i int) string {
	for i = min(i, len(c.msgs)-1); i >= 0; i-- {
		if c.msgs[i].Role == chat.RoleUser {
			return c.msgs[i].Content
		}
	}
	return ""
}

// choiceOfTwo reports a ranking that chooses between items the words name: "which is cheaper,
// the civic or the corolla", "between the Civic and the Mazda3, which one is cheaper?", "the
// Model 3 and the Ioniq 5, which of the two is cheaper?".
func choiceOfTwo(r *reading) bool {
	if !r.hasRank || otherEnd(r.toks, r.rankAt, r.order) != nil { // "between the cheapest and the priciest"
		return false
	}
	comparative := strings.HasSuffix(strings.ToLower(r.toks[r.rankAt].raw), "er")
	return anyNorm(r.toks, "or", "vs", "versus", "between") || comparative && anyNorm(r.toks, "two", "both")
}

// namedOf is the one item of items that the last reply named alone; nil when none.
func (c *conv) namedOf(items []*item) *item {
	if named := c.lastNamed(); len(named) == 1 && slices.Contains(items, named[0]) {
		return named[0]
	}
	return nil
}

// undoRe asks to take back the last change: "undo that", "revert it", "undo last", "scrap that".
var undoRe = regexp.MustCompile(`(?i)^\s*(?:(?:please|pls|ok|no|nah|nope|hmm+|oops|actually|(?:can|could|would)\s+you)[,\s]+)*(?:(?:go\s+)?back\s+to\s+(?:how|the\s+way|what)\s+it\s+was|(?:undo|revert|reverse|scrap|scratch)(?:\s+(?:that|it|this|last|the\s+last)(?:\s+(?:last\s+)?(?:change|one))?)?|(?:put|change|set)\s+it\s+back(?:\s+(?:how|the\s+way|as)\s+it\s+was)?)(?:[,\s]+(?:please|pls))?\s*[.!?]?\s*$`)

// undo takes back the last change a tool of this page made: each value it set goes back to
// the one an earlier call of the tool set, a list to empty when none did ("undo that" after
// "add the tow package"; after "make it red", the colour before). A value no earlier call set
// cannot go back, and is said. An undo said again takes back the change before the one undone,
// not the undo.
func (c *conv) undo(_ *reading) (intent, bool) {
	var last *call
	var earlier []call
	undone := 0 // changes an undo since took back
	for k := range c.earlierCalls {
		if last == nil {
			// (a calculation's figures stay on its page: "undo" takes them back too)
			if !c.offers(k.name) || navTool(c.toolDef(k.name)) || named(k.name, readsFirst) && !named(k.name, computeFirst) || named(k.name, commitFirst) || noArguments(k.args) {
				continue
			}
			if undoRe.MatchString(c.userBefore(k.at)) {
				undone++
			} else if undone > 0 {
				undone--
			} else {
				last = &k
			}
			continue
		}
		if !c.offers(k.name) {
			break // another page's: what came before was of another item, maybe
		}
		if k.name == last.name {
			earlier = append(earlier, k)
		}
	}
	if last == nil {
		return intent{reply: "There is nothing here to undo."}, true
	}
	var args map[string]any
	if json.Unmarshal([]byte(last.args), &args) != nil {
		return intent{}, false
	}
	def := c.toolDef(last.name)
	p := &plan{def: def, schema: parseSchema(def.Parameters), values: map[string]any{}}
	var kept []string
	for _, q := range p.schema.props {
		if _, set := args[q.name]; !set {
			continue
		}
		for _, k := range earlier {
			var was map[string]any
			if json.Unmarshal([]byte(k.args), &was) == nil && was[q.name] != nil {
				p.values[q.name] = was[q.name]
				break
			}
		}
		if p.values[q.name] == nil && q.schema.isArray() && q.schema.valid([]any{}) { // (a comparison of none is no comparison)
			p.values[q.name] = []any{}
		}
		if p.values[q.name] == nil && len(earlier) > 0 {
			// the one choice the tool's answer before said ("Configured: …, gray, …")
			var said []enumValue
			for _, e := range q.schema.allEnums() {
				if e.isStr && slices.ContainsFunc(tokenize(earlier[0].result), func(t token) bool { return strings.EqualFold(t.raw, e.str) }) {
					said = append(said, e)
				}
			}
			if len(said) == 1 {
				p.values[q.name] = said[0].str
			}
		}
		if v, ok := statedFigure(q, earlier); ok && p.values[q.name] == nil {
			p.values[q.name] = v // "down $0", "6.9% APR" of the calculation before
		}
		if p.values[q.name] == nil {
			kept = append(kept, identPhrase(q.name))
		}
	}
	if len(p.values) == 0 {
		was := map[bool]string{true: " were", false: " was"}[len(kept) > 1 || strings.HasSuffix(kept[0], "s")]
		return intent{reply: "I can't undo that: nothing here says what the " + joinList(kept, "and") + was + " before."}, true
	}
	if len(kept) == 0 {
		return callIntent(p), true
	}
	return intent{steps: callIntent(p).steps, final: func(c *conv) string {
		return c.summary() + " The " + joinList(kept, "and") + " stays: nothing here says what it was before."
	}}, true
}

// computeFirst are the first words of tools that work out figures the page then shows.
var computeFirst = rawSet(`calculate compute estimate`)

// statedFigure is the figure of number parameter q that the newest of earlier's results
// states beside q's first word: 0 of "down $0" for downPayment, 6.9 of "6.9% APR" for apr.
func statedFigure(q *property, earlier []call) (float64, bool) {
	ws := identWords(q.name)
	if len(earlier) == 0 || !q.schema.isNumber() || len(ws) == 0 {
		return 0, false
	}
	toks := tokenize(unwrap(earlier[0].result).text)
	for i, t := range toks {
		if t.kind == kindNumber && (wordAt(toks, i-1, ws[0]) || wordAt(toks, i+1, ws[0])) && q.schema.valid(t.value) {
			return t.value, true
		}
	}
	return 0, false
}

// inLast are the items of items that the last result listed.
func inLast(items, last []*item) []*item {
	return slices.DeleteFunc(slices.Clone(items), func(it *item) bool { return !slices.Contains(last, it) })
}

// thisMake reports a filter's word said as one item: "a test drive of this Audi".
func thisMake(toks []token, vocab map[string]bool) bool {
	for i := range toks {
		if wordAt(toks, i, "this", "that") && i+1 < len(toks) && vocab[toks[i+1].norm] && !strings.HasSuffix(strings.ToLower(toks[i+1].raw), "s") {
			return true
		}
	}
	return false
}

// thenNext is a request, then another: "what's the monthly over 72 months, and then book a test
// drive for Monday at 1pm" (the second starts with a verb of doing).
var thenNext = regexp.MustCompile(`(?i)^(.{12,}?)[,;]?\s+(?:and\s+)?then\s+((?:please\s+)?(?:book|open|show|add|compare|calculate|apply|schedule|reserve|finance|set|make|sort|search|find|fill)\b.{3,})$`)

// compareThis is the item on screen named as the first of a comparison.
var compareThis = regexp.MustCompile(`(?i)\bcompare\s+(?:this|that)\s+(?:car|one|vehicle|model|item|product)\b`)

// tellMeWhat is a question asked about a question: "could you tell me what …", "can you tell
// me how much …", "let me know what …".
var tellMeWhat = regexp.MustCompile(`(?i)^\s*(?:(?:could|can|would)\s+you\s+(?:also\s+)?(?:please\s+)?|please\s+)?(?:also\s+)?(?:tell\s+(?:me|us)|let\s+(?:me|us)\s+know)\s+(?:please\s+)?`)

// inDetail asks to look at something closely: its page.
var inDetail = regexp.MustCompile(`(?i)\b(?:take\s+a\s+(?:closer\s+)?look\s+at|look\s+at|see|view)\s+(.+?)\s+(?:in\s+(?:more\s+|greater\s+|full\s+)?detail|more\s+closely|up\s+close)\b`)

// aboutThenIt is a thing named after "about", then what to do with it, said with "them" or
// "it": "… about the comfort seats; please remove them".
var aboutThenIt = regexp.MustCompile(`(?i)\babout\s+(the\s+[^;,.!?]+?)\s*[;,.!]\s*(?:so\s+)?(?:(?:please|pls|could\s+you|can\s+you|just)\s+)?(remove|drop|delete|add)\s+(?:them|it|those|that)\b`)

// stillThere asks whether a thing named is still to be had: "is the tacoma still available?",
// "are the mustangs still in stock?" ("is it still available?" is the item on screen's).
var stillThere = regexp.MustCompile(`(?i)^\s*(?:is|are)\s+(the\s+(?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:still\s+)?(?:available|in\s+stock|for\s+sale)\b`)

// manySeats asks for room for more people than most cars seat: "need 7 seats", "seating for
// 8", "a 7-seater".
var manySeats = regexp.MustCompile(`(?i)\b(?:(?:[6-9]|six|seven|eight|nine)[\s-]*(?:seats|seater)|seat(?:s|ing)?\s+(?:for\s+)?(?:[6-9]|six|seven|eight|nine)(?:\s+(?:people|persons|of\s+us))?)\b`)

// lowestMonthly asks for the smallest monthly payment: "the lowest monthly", "the cheapest
// monthly payment possible".
var lowestMonthly = regexp.MustCompile(`(?i)\b(?:lowest|smallest|cheapest|least|minimum)\s+(?:possible\s+)?(?:monthly(?:\s+payments?)?|payments?(?:\s+a\s+month)?)\b`)

// bareShare is a share said alone, of a figure said before: "and 15%?", "what about 10 percent".
var bareShare = regexp.MustCompile(`(?i)^\s*(?:(?:and|or|what\s+about|how\s+about)\s+)?(?:at\s+)?([0-9]+(?:\.[0-9]+)?\s*(?:%|percent|pct))\s*(?:then|instead)?\s*[?.!]?\s*$`)

// shareOf is a share of the price said for a figure: "20% down", "10 percent deposit".
var shareOf = regexp.MustCompile(`(?i)[0-9]+(?:\.[0-9]+)?\s*(?:%|percent|pct)\s+(down|deposit|upfront|up\s+front)\b`)

// familyOf counts people: "a family of 5", "a group of four".
var familyOf = regexp.MustCompile(`(?i)\b(family|group|party)\s+of\s+(?:[0-9]{1,2}|two|three|four|five|six|seven|eight|nine|ten)\b`)

// itWord is the word that stands for a thing said before.
var itWord = regexp.MustCompile(`(?i)\b(?:it|that|one)\b`)

// ifSoLast is what to do when the answer is yes, said after the question with "if so" last:
// "does it have a winter package, and could you add it if so?" reads as "…? If so, could you
// add it".
var ifSoLast = regexp.MustCompile(`(?i)^(.+?)[,;]?\s+and\s+(.+?)[,]?\s+if\s+so\s*[?.!]*\s*$`)

// greeting opens a message with a hello: "hi, …", "hey there …", "good morning, …".
var greeting = regexp.MustCompile(`(?i)^\s*(hi|hey|hello|hiya|howdy|good (morning|afternoon|evening)|thx|thanks|thank you|ty|cheers)( there)?\b[\s,!.]*`)

// musing is words about one's own thinking that ask nothing: "on second thought", "I think",
// "I was wondering whether", "oh, I changed my mind", "never mind"; and an interjection that
// opens a message: "Great. How much is it?".
var musing = regexp.MustCompile(`(?i)(^\s*(oh|ah|ahh|um+|uh|ok|okay|hmm+|so)\b|\bnever\s*mind\b|\bnvm\b|^\s*(great|perfect|cool|nice|awesome|alright|lovely|thanks|thank you|thx|that(?:'s|’s| is)(?: all)? (?:correct|right|fine|good)|(?:all|looks) (?:correct|good))\s*[,.!]|\bon second thoughts?|\bi('ve| have)? changed my mind|\bi think|\bi guess|\bi(?: was|'m| am) wondering (?:whether|if)(?: you could)?)[\s,.!:;-]*`)

var boundBefore = regexp.MustCompile(`(?i)\b(after|before)\s+$`)

// hourOnDay is a small number said right before a day: "10 on friday", "2 tmrw".
var hourOnDay = regexp.MustCompile(`(?i)^\s*([1-9]|1[0-9]|2[0-3])\s+((?:on\s+)?(?:mon|tue|wed|thu|fri|sat|sun|tomorrow|tmrw|tmr|2moro|today)\w*)`)

// partHour is a part of the day and a bare hour after it: "morning 9", "afternoon 2".
var partHour = regexp.MustCompile(`(?i)\b(morning|afternoon|evening)\s+([1-9]|1[0-2])(\s*(?:[,.;!?]|$))`)

// bareHourChange writes "at" before the one small number of a change of mind ("make it 11
// instead", "no wait, 11", "change the time to 10 please"), which rewriteTimes then reads as
// a time.
func bareHourChange(text string) string {
	toks := tokenize(text)
	nums := slices.DeleteFunc(slices.Clone(toks), func(t token) bool { return t.kind != kindNumber })
	change := slices.ContainsFunc(toks, func(t token) bool { return correctionWords[t.norm] }) || hourAlone.MatchString(text)
	if !change || len(nums) != 1 || nums[0].value < 1 || nums[0].value > 23 || nums[0].value != float64(int(nums[0].value)) ||
		strings.HasSuffix(text[:nums[0].start], "-") || alnumNear(text, nums[0].start, true) || // "the MX-5 instead"
		boundBefore.MatchString(text[:nums[0].start]) { // "make it after 2": rewriteTimes reads it
		return text
	}
	for _, re := range []*regexp.Regexp{calDateRe, dayOfMonthRe} { // "make it december 12", "the 12th instead": a day
		if slices.ContainsFunc(re.FindAllStringIndex(text, -1), func(at []int) bool { return at[0] <= nums[0].start && nums[0].start < at[1] }) {
			return text
		}
	}
	return text[:nums[0].start] + "at " + text[nums[0].start:]
}

// hourAlone is a small number said alone, or offered: "11 pls", "can we do 11?", "how about 2".
var hourAlone = regexp.MustCompile(`(?i)^[\s,.]*(?:(?:(?:can|could)\s+(?:we|i|you)\s+(?:do|make\s+it)|how\s+about|what\s+about|maybe|lets\s+(?:do|say)|let's\s+(?:do|say))\s+)?\d{1,2}\s*(?:pls|please|plz|then)?\s*[?.!]*\s*$`)

// seenWords say that the visitor saw items ("the two i looked at", "the ones i viewed").
var seenWords = []string{"looked", "viewed", "seen", "saw", "visited", "checked"}

// pointAtSeen resolves words that point at the items of the last list by their place, a
// value or a rank: "the second one", "the red one", "the cheaper one"; base loses the rank
// or value word that picked them.
func (c *conv) pointAtSeen(r *reading) {
	toks, last := r.toks, c.before.last
	if opened := c.openedItems(); len(opened) >= 1 && anyNorm(toks, seenWords...) && anyNorm(toks, "one") && !anyNorm(toks, "two", "three", "ones") {
		r.refs = opened[:1] // "open the one i just looked at"
		return
	}
	if opened := c.openedItems(); len(opened) >= 2 && anyNorm(toks, seenWords...) {
		n := min(len(opened), 3) // "compare the two i looked at": the last ones opened
		for _, t := range toks {
			if k, ok := countWord(t); ok {
				n = min(k, len(opened))
			}
		}
		r.refs = opened[:n]
		return
	}
	// ("and which has fewer miles?" after which of two is cheaper: of the two)
	which := r.hasRank && anyNorm(toks, "which") && strings.HasSuffix(strings.ToLower(toks[r.rankAt].raw), "er") && !ofAll(toks)
	if named := c.lastNamed(); (pluralPronoun(toks) || len(named) == 2 && (anyNorm(toks, "two", "both") || which)) && len(named) >= 2 && len(named) < len(last) {
		last = named // "the cheapest of those" after "The 3 newest are …": of those three; "the cheaper of the two"
	}
	_, than := comparativeThan(toks)
	comparative := r.hasRank && strings.HasSuffix(strings.ToLower(toks[r.rankAt].raw), "er") && !than && (wordAt(toks, r.rankAt+1, "one") || which && c.lister() == nil)
	if opened := c.openedItems(); len(opened) >= 2 && len(last) > 3 && (anyNorm(toks, "two", "both") || comparative) {
		// "which of the two is cheaper?" after opening the A4 and the A6; "book the cheaper
		// one" after the payments of the Tacoma and the F-150, or "which one is cheaper" there
		last = opened[:2]
	}
	if l := c.lister(); l != nil {
		if i := slices.IndexFunc(r.plain, func(p *plan) bool { return p.def.Name == l.def.Name }); i >= 0 {
			// (not by a word of another tool's: "mark the first one done" is no first of those done)
			others := map[string]float64{}
			for _, p := range r.plain {
				if p.def.Name != l.def.Name && p.score > 0 {
					maps.Copy(others, p.vocab)
				}
			}
			last = slices.DeleteFunc(slices.Clone(last), func(it *item) bool { return !fits(it, r.plain[i], others) }) // "cheaper, like a wagon?"
		}
	}
	drop := -1
	if n, fromEnd, ok := firstFew(toks); ok && len(last) > 0 {
		n = min(n, len(last)) // "compare the top three" of two: both
		r.refs = last[:n]     // "compare the top three", "the first two"
		if fromEnd {
			r.refs = last[len(last)-n:]
		}
	} else if at := places(toks, len(last)); len(at) > 1 {
		for _, k := range at {
			r.refs = append(r.refs, last[k]) // "the first and the third one"
		}
	} else if k := ordinalAt(toks, len(last)); k >= 0 {
		r.refs = []*item{last[k]}
	} else if i := slices.Index(last, cmp.Or(c.openedLast(), c.leadNamed())); len(last) == 2 && i >= 0 && anyNorm(toks, "other") {
		r.refs = []*item{last[1-i]} // "the other one" of the two compared, after one was opened or named
	}
	if len(r.refs) == 0 {
		r.refs, drop = attributeRef(toks, last)
	}
	if len(r.refs) == 0 && r.hasRank && c.rankOnSeen(toks, r.rankAt) && !sortCue(toks, r.rankAt) {
		if w := ranked(last, r.order); len(w) > 0 {
			r.memRank, r.ranked = true, last
			r.refs = w[:min(max(r.n, 1), len(w))]
			drop = r.rankAt
			if tied := tiedWith(last, r.order, w[0]); max(r.n, 1) == 1 && len(tied) > 1 {
				r.tied = tied
			}
		}
	}
	if len(r.refs) > 0 && drop >= 0 {
		r.base = r.text[:toks[drop].start] + r.text[toks[drop].end:]
	}
}

// places are the places in a list of n that the words name by their ordinals, in order: "the
// first and the last" of three are 0 and 2.
func places(toks []token, n int) []int {
	var out []int
	for _, t := range toks {
		if k, ok := ordinals[t.norm]; ok && t.kind == kindWord {
			if k == -1 {
				k = n
			}
			if k >= 1 && k <= n && !slices.Contains(out, k-1) {
				out = append(out, k-1)
			}
		}
	}
	return out
}

// fits reports an item whose fields have the text values the plan filters by, where it has
// such a field ("bodytype": wagon for bodyType "wagon").
func fits(it *item, p *plan, others map[string]float64) bool {
	for name, v := range p.values {
		want, ok := v.(string)
		have, known := it.attrs[strings.ToLower(name)]
		if ok && known && !slices.Contains(have, strings.ToLower(want)) && others[normWord(want)] == 0 {
			return false
		}
	}
	return true
}

// perMonth reports a payment asked for: "payment", "per month", "a month", "monthly" (the
// phrases whose strong hint is "monthly", in hintsOf's table).
func perMonth(toks []token) bool {
	return anyNorm(toks, "payment") || slices.ContainsFunc(hintsOf(toks), func(hs []hint) bool {
		return slices.Contains(hs, hint{"monthly", true})
	})
}

// correctionWords change one's mind around a bare value: "no wait, 60", "make it 48 instead",
// "i meant thu".
var correctionWords = wordSet(`wait actually sorry oops hmm instead rather make change switch move push meant`)

// sortVerbs ask for an order in so many words.
var sortVerbs = wordSet(`sort sorted order ordered`)

// ordersFirst reports an order said as what comes first: "newest first", "lowest miles first".
func ordersFirst(toks []token) bool {
	for i := 1; i < len(toks); i++ {
		if prev := toks[i-1]; toks[i].norm == "first" && prev.kind == kindWord && (strings.HasSuffix(prev.norm, "est") || asksField(toks[i-1:i]) || prev.norm == "mile") {
			return true
		}
	}
	return false
}

// aboutWords ask what there is to know of something: "tell me more about it".
var aboutWords = rawSet(`about detail details info information describe specs overview`)

// reader is the page's tool that reads what is on screen and needs nothing (get_price_summary),
// or nil.
func (c *conv) reader() *plan {
	if i := slices.IndexFunc(c.tools, reads); i >= 0 {
		return &plan{def: c.tools[i], schema: parseSchema(c.tools[i].Parameters), values: map[string]any{}}
	}
	return nil
}

// pageNamed reports a message that names only the item of the page the visitor came to by a
// link, on its own page, by a word of its title ("more info on the mazda3" on its page).
func (c *conv) pageNamed(r *reading) bool {
	it := c.pageItem()
	return it != nil && len(r.refs) == 0 && c.onScreen() == it.id && c.onItsPage() && slices.ContainsFunc(r.toks, func(t token) bool {
		w := compact(strings.ToLower(t.raw))
		return t.kind == kindWord && !stopWords[t.norm] && strings.Trim(w, "0123456789") != "" && slices.Contains(it.words, w)
	})
}

// reads reports a tool that only reads and needs nothing: get_price_summary.
func reads(t chat.ToolDef) bool {
	required := slices.ContainsFunc(parseSchema(t.Parameters).props, func(p *property) bool { return p.required })
	return named(t.Name, readsFirst) && !navTool(t) && !required
}

// firstFew finds "the first two", "the top 3", "the last three": a count of the list's items
// from its start, or its end (fromEnd).
func firstFew(toks []token) (n int, fromEnd, ok bool) {
	for i := 0; i+1 < len(toks); i++ {
		if w := toks[i].norm; w == "first" || w == "top" || w == "last" {
			if n, ok := countWord(toks[i+1]); ok && !(i+2 < len(toks) && rankWords[toks[i+2].norm].field != nil) { // ("top 2 newest": a ranking)
				return n, w == "last", true
			}
		}
	}
	return 0, false, false
}

// rule is one way of understanding a request: when it applies (a test of the reading) and
// what it does then. do may still decline (false): the next rule is tried.
type rule struct {
	name string
	when func(c *conv, r *reading) bool
	do   func(c *conv, r *reading) (intent, bool)
}

// rules are the planner's ways of understanding, in order: the first that applies and does
// not decline makes the intent. Those marked unclear apply when no tool of the page clearly
// matches: they look for what else the words can mean before asking.
var rules []rule

func init() {
	always := func(*conv, *reading) bool { return true }
	unclear := func(c *conv, r *reading) bool { return r.unclear }
	reply := func(s string, ok bool) (intent, bool) { return intent{reply: s}, ok }
	rules = []rule{
		{"small talk", always,
			func(c *conv, r *reading) (intent, bool) { return reply(c.smallTalk(r.said)) }},
		// "what's 20% of the price?", "what's 15% of 23,900?" where no tool here works out
		// sums: worked out here, of the price on screen (not a 20% rate for the calculator)
		{"a share of a figure", func(c *conv, r *reading) bool {
			return r.question && shareAsked.MatchString(r.said) && !anyNorm(r.toks, "down", "deposit") && !slices.ContainsFunc(c.tools, func(t chat.ToolDef) bool {
				return slices.ContainsFunc(parseSchema(t.Parameters).props, expressionParam)
			})
		}, func(c *conv, r *reading) (intent, bool) {
			m := shareAsked.FindStringSubmatch(r.said)
			pct, _ := strconv.ParseFloat(m[1], 64)
			of, _ := parseMoney(m[2])
			if m[2] == "" {
				of = cmp.Or(c.statedPrice(), c.addressPrice())
				if it := c.screenItem(); of == 0 && it != nil {
					of, _ = it.num(priceField.keys...)
				}
			}
			if of <= 0 {
				return intent{}, false
			}
			return reply(fmt.Sprintf("%s%% of %s is %s.", m[1], priceField.value(of, c.before.money), priceField.value(math.Round(pct*of)/100, c.before.money)), true)
		}},
		// "open the second one" with one car shown, "the 3rd" of two: only those are there (not
		// the second of the whole list, nor a choice between them)
		{"a place past the list", func(c *conv, r *reading) bool {
			k, ok := ordinalRef(r.toks)
			n := len(c.before.last)
			return ok && k > n && n > 0 && len(r.mentions) == 0 && c.listsItems() && !strings.Contains(c.lastReply(), "?")
		}, func(c *conv, _ *reading) (intent, bool) {
			last := c.before.last
			is := " is"
			if len(last) > 1 {
				is = " are"
			}
			text := fmt.Sprintf("Only %d %s%s shown: %s.", len(last), listNoun(c.lister().def.Name, len(last)), is, joinList(titles(last), "and"))
			if slices.ContainsFunc(c.tools, opener) {
				var asks []string
				for _, it := range last[:min(3, len(last))] {
					asks = append(asks, "open "+theTitle(it))
				}
				text += " I can " + c.offer(asks, "or", true) + "."
			}
			return reply(text, true)
		}},
		// "get me 3", "i'll take 2" with events shown: the count for the page's one tool that
		// takes an item and a number, said in its own verb ("buy 3")
		{"a count in other words", func(c *conv, r *reading) bool { return c.countVerb(r.said) != "" },
			func(c *conv, r *reading) (intent, bool) { return c.understand(c.countVerb(r.said), false), true }},
		// "are you open on sunday?": the business's hours, which no tool tells (not a day for
		// the booking form)
		{"the business's hours", func(_ *conv, r *reading) bool { return hoursAsked.MatchString(r.said) },
			func(c *conv, _ *reading) (intent, bool) { return reply(c.deadEnd(), true) }},
		// "is this the ioniq?", "is this the Audi A4 or the A6?" on a car's booking page: said from
		// the one on screen (it opened the one named)
		{"whether this is the one named", func(c *conv, r *reading) bool {
			it := c.openedLast() // (known by the page's title when the list was never seen)
			return isThisThe.MatchString(r.said) && it != nil && (len(nameMentions(r.said, []*item{it}, nil)) > 0 || len(nameMentions(r.said, c.now.known(), nil)) > 0)
		}, func(c *conv, r *reading) (intent, bool) {
			it := c.openedLast()
			if len(nameMentions(r.said, []*item{it}, nil)) > 0 {
				return intent{reply: "Yes: it is " + theTitle(it) + "."}, true
			}
			return intent{reply: "No: this is " + theTitle(it) + "."}, true
		}},
		// "which car is this for?", "remind me what car this is" on a car's page or its
		// calculator: the one on screen (it listed them all, or opened it again)
		{"which one is on screen", func(c *conv, r *reading) bool { return whichIsThis.MatchString(r.said) && c.titled() != nil },
			func(c *conv, _ *reading) (intent, bool) { return reply("It is "+theTitle(c.titled())+".", true) }},
		// "which car did I book?", "when is my test drive?" after a booking went in: what its
		// result said (it asked for a new booking)
		{"what was sent", func(c *conv, r *reading) bool { return sentAsked.MatchString(r.said) && c.sentOf(r.toks) != "" },
			func(c *conv, r *reading) (intent, bool) { return reply("Sent earlier: "+c.sentOf(r.toks)+".", true) }},
		// "what did i book?" with the form filled and not sent: nothing yet, and what it holds
		{"nothing sent yet", func(c *conv, r *reading) bool {
			return sentAsked.MatchString(r.said) && c.refill() != nil && !slices.ContainsFunc(r.toks, func(t token) bool {
				return c.hasParam(func(p *property) bool { return nounOf(t, p) }) // ("what time did I book it for?": the time)
			})
		},
			func(c *conv, _ *reading) (intent, bool) {
				form := "the form"
				if it := c.screenItem(); it != nil {
					form += " for " + theTitle(it)
				}
				text := "Nothing is sent yet: " + form + " holds " + argsSaid(c.refill().arguments(), "") + "."
				if send := c.senders(); len(send) > 0 {
					text += " To send it: " + c.offer([]string{c.describeTool(send[0].Name)}, "", true) + "."
				}
				return reply(text, true)
			}},
		// "close the comparison and show me all the cars again": closed, then the rest
		{"a close first", func(c *conv, r *reading) bool { return c.closeFirst(r.said) != nil },
			func(c *conv, r *reading) (intent, bool) { return callIntent(c.closeFirst(r.said)), true }},
		// "what's the total cost?" after a calculation: its price and its interest together (it
		// said the price alone)
		{"the total paid", func(c *conv, r *reading) bool { return totalAsked.MatchString(r.said) && c.totalPaid() != "" },
			func(c *conv, _ *reading) (intent, bool) { return reply(c.totalPaid(), true) }},
		// "open the newer of the two" where both are from 2021: which, since they tie (it
		// opened the first listed)
		{"a ranking that ties", func(_ *conv, r *reading) bool { return len(r.tied) > 1 && !r.question }, func(c *conv, r *reading) (intent, bool) {
			v, _ := r.tied[0].num(r.order.field.keys...)
			verb := "open" // the request's own verb ("compare the newer of the two"), else opening
			if i := slices.IndexFunc(r.toks, func(t token) bool { return toolVerbs[t.norm] }); i >= 0 {
				verb = strings.ToLower(r.toks[i].raw)
			}
			var asks []string
			for _, it := range r.tied {
				asks = append(asks, verb+" "+theTitle(it))
			}
			all := map[bool]string{true: "both", false: "all"}[len(r.tied) == 2]
			return reply(fmt.Sprintf("They tie: %s, %s %s. Which one: %s?", joinList(titles(r.tied), "and"), all, r.order.field.value(v, c.now.money), c.offer(asks, "or", true)), true)
		}},
		// "show me red cars under 30k", "back to the list, only red ones" on a car's page: the
		// list, which reads the request again (it set the car's colour)
		{"other items sought from an item's page", func(c *conv, r *reading) bool {
			// ("back to list, anything cheaper in blue?")
			things := slices.ContainsFunc(r.toks, func(t token) bool { return pluralNouns[strings.ToLower(t.raw)] })
			list := anyNorm(r.toks, "list", "inventory") && (things || anyNorm(r.toks, "anything", "something"))
			_, than := comparativeThan(tokenize(r.said)) // ("any cheaper ones than this?" answers)
			return c.lister() == nil && !r.pronoun && !than && (things && seeksThings(r.toks) || list)
		}, func(c *conv, _ *reading) (intent, bool) { return c.hub() }},
		// "compare them" on the list with a comparison open, after another search: those shown
		// now, not the comparison before (get_comparison)
		{"compare those shown now", func(c *conv, r *reading) bool { return c.compareShown(r) != nil }, func(c *conv, r *reading) (intent, bool) {
			p := c.compareShown(r)
			if w := withIDs(p, c.before.last); w != nil {
				return callIntent(w), true
			}
			return c.askMissing(p, r.said), true
		}},
		// "add the outback too" after the RAV4 and the CR-V were compared: the three compared
		{"one more compared", func(c *conv, r *reading) bool { p, say := c.compareMore(r); return p != nil || say != "" },
			func(c *conv, r *reading) (intent, bool) {
				if p, say := c.compareMore(r); p != nil {
					return callIntent(p), true
				} else {
					return reply(say, true)
				}
			}},
		// "yes go ahead" right after an application was sent, nothing asked: it is done
		{"done already", func(_ *conv, r *reading) bool { return yesAlone.MatchString(r.said) }, func(c *conv, _ *reading) (intent, bool) {
			for k := range c.earlierCalls {
				if out, ok := c.sent(k); ok {
					return reply("That is done already: "+sentSaid(out)+".", k.at > c.prevUser())
				}
			}
			return intent{}, false
		}},
		// "go ahead", "yes please" right after a form was filled and left for the visitor to
		// check: the form is sent (the page's one tool that sends and needs nothing)
		{"yes to the form filled", func(c *conv, r *reading) bool { // (here, no call since sent it: refill)
			said := c.withoutCourtesies(r.said) // "Splendid, do go ahead and reserve it."
			return (yesAlone.MatchString(said) || yesSend.MatchString(said)) && c.refill() != nil
		}, func(c *conv, r *reading) (intent, bool) {
			send := c.senders()
			// a bare yes right after the filling; "go ahead" also after an answer that asked
			// nothing ("what day did i pick", "The date was …", "go ahead"; "sure" there agrees
			// to nothing); one that names the sending, whenever
			said := c.withoutCourtesies(r.said)
			filled := yesSend.MatchString(said) || goAhead.MatchString(said) && !strings.Contains(c.lastReply(), "?")
			for k := range c.earlierCalls {
				filled = filled || k.at > c.prevUser() && k.name == c.refill().def.Name
				break
			}
			if len(send) != 1 || !filled {
				return intent{}, false
			}
			return callIntent(&plan{def: send[0], schema: parseSchema(send[0].Parameters), values: map[string]any{}}), true
		}},
		// "is it cheaper than the civic", asked on the car's booking page, read on the list: the
		// list first, which tells of it and of the others, then the request.
		{"the page's item, learned", func(c *conv, r *reading) bool {
			return c.page != nil && r.lookup && c.before.items[c.page.id] == nil && c.lister() != nil &&
				(len(r.refs) == 1 && r.refs[0].id == c.page.id || r.like) // (what "like this one" is rewritten to names no item)
		}, func(c *conv, r *reading) (intent, bool) { return (&lookup{said: r.said, l: c.lister()}).intent(), true }},
		// "go back", "book a test drive of that one" on the list after leaving the page of a car
		// the visitor came to by a link, before any list named it: the list first, then the request
		{"the item left, learned", func(c *conv, r *reading) bool {
			return c.leftID() != "" && r.lookup && !c.reread && c.lister() != nil && len(r.mentions) == 0 && len(r.refs) == 0 &&
				(r.unclear && itRe.MatchString(r.said) || c.goesBack(r.toks)) // (not "close it" in the comparison drawer)
		}, func(c *conv, r *reading) (intent, bool) {
			id := c.leftID()
			if it := c.before.items[id]; it != nil && c.goesBack(r.toks) {
				return c.backTo(it)
			} else if it != nil {
				return c.understand(itRe.ReplaceAllLiteralString(r.said, theTitle(it)), false), true
			}
			said := "open " + id // (by its id: the list names it once it ran)
			if !c.goesBack(r.toks) {
				said = itRe.ReplaceAllLiteralString(r.said, id)
			}
			return (&lookup{said: said, id: id, l: c.lister()}).intent(), true
		}},
		// "suvs under 35" before any price was seen: the list first, whose prices tell the
		// scale (rewriteScale), then the request.
		{"a bound's scale", func(c *conv, r *reading) bool {
			seen, _ := c.pricesSeen()
			return !seen && r.lookup && c.lister() != nil && len(c.smallBounds(r.toks)) > 0
		}, func(c *conv, r *reading) (intent, bool) { return (&lookup{said: r.said, l: c.lister()}).intent(), true }},
		// "don't cancel my reservation HV-1234": nothing runs on a request that says not to.
		{"undo", func(_ *conv, r *reading) bool { return undoRe.MatchString(r.text) }, (*conv).undo},
		{"refusal", func(_ *conv, r *reading) bool { return negated(r.toks) }, (*conv).refuse},
		// "20% down over 60 months" on the calculator opened by a link, where no result has
		// stated the price yet: worked out without the share first, whose result states the
		// price, then with the share of it
		{"a share of a price not stated yet", func(c *conv, r *reading) bool { return c.shareFirst(r) != nil }, func(c *conv, r *reading) (intent, bool) {
			first := c.shareFirst(r)
			return intent{
				steps: func(c *conv) []*plan {
					if len(c.done) == 0 {
						return []*plan{first}
					}
					if said := c.rewriteShares(r.said); said != r.said { // (read again once, with no share)
						s := *c
						s.done = nil
						if then := s.understand(said, false).first(&s); then != nil {
							return []*plan{first, then}
						}
					}
					return []*plan{first}
				},
				final: func(c *conv) string {
					s := *c
					s.done = c.done[min(1, len(c.done)):]
					return s.summary()
				},
			}, true
		}},
		// "20% down" where no result stated the price to take it of (rewriteShares did not).
		{"a share of an unknown price", func(c *conv, r *reading) bool { return c.shareAt(r.toks) != "" }, func(c *conv, r *reading) (intent, bool) {
			sh := c.shareAt(r.toks)
			in := intent{reply: "I don't know the price here, so I can't work out " + sh + ". How much would that be in money?"}
			_, word, _ := strings.Cut(sh, " ")
			if p := r.best; p != nil && p.score >= threshold {
				if i := slices.IndexFunc(p.schema.props, func(q *property) bool { return moneyParam(q) && matchesParam(normWord(word), q) }); i >= 0 {
					asked := *p // the answer (an amount) is read in the share's place: asAnswer
					asked.missing = []*property{p.schema.props[i]}
					in.asked = &asked
				}
			}
			return in, true
		}},
		// "How much is this car, and does it come in red?": each answered.
		// "forget the price limit", "any make is fine, just suvs": the list's filters without those
		{"filters dropped", func(c *conv, r *reading) bool { return c.filtersDropped(r) != nil },
			func(c *conv, r *reading) (intent, bool) { return callIntent(c.filtersDropped(r)), true }},
		{"two questions", func(_ *conv, r *reading) bool { _, _, ok := questionPair(r.text); return ok }, (*conv).bothQuestions},
		// "hi, i need something that can tow. does this come with a towing package?": the
		// question, answered as on its own (not a tow package added)
		// "Does it come in gray? If so, I'd like it in gray with the EX trim": the answer, then
		// the request when it is yes
		{"a question, then what to do if so", func(_ *conv, r *reading) bool { return ifSo.MatchString(r.text) }, func(c *conv, r *reading) (intent, bool) {
			at := ifSo.FindStringIndex(r.text)
			q := c.understand(r.text[:at[0]+1], r.lookup)
			if q.steps != nil || !strings.HasPrefix(q.reply, "Yes") {
				return q, q.steps == nil && q.reply != "" && !strings.HasPrefix(q.reply, "Sorry")
			}
			then := c.understand(r.text[at[1]:], r.lookup)
			if then.steps == nil && len(q.choices) == 1 && then.asked == nil && len(then.choices) == 0 {
				// "could you add it": what the question named ("could you add the winter package")
				ch := q.choices[0]
				named := ch.label
				for k := range ch.plan.values { // its one value: "the sport package", no Sport trim
					named = "the " + ch.label + " " + stem(identPhrase(k))
				}
				if said := itWord.ReplaceAllString(r.text[at[1]:], named); said != r.text[at[1]:] {
					then = c.understand(said, r.lookup)
				}
			}
			if then.steps == nil {
				return intent{reply: q.reply + " " + then.reply, asked: then.asked, choices: then.choices}, true
			}
			return intent{steps: then.steps, final: func(c *conv) string {
				if then.final != nil {
					return "Yes. " + then.final(c)
				}
				return "Yes. " + c.summary()
			}}, true
		}},
		// "Great, white please. And what trims are there?" on its page: both, the question
		// answered after (not of a list the request changes: its answer is read from before)
		{"a request and a question", func(_ *conv, r *reading) bool { return requestThenQuestion.MatchString(r.text) }, func(c *conv, r *reading) (intent, bool) {
			m := requestThenQuestion.FindStringSubmatch(r.text)
			if first := tokenize(m[1]); isQuestion(m[1], first) || anyNorm(first, "need", "want", "looking", "must") {
				return intent{}, false // ("i need something that can tow. does this come with …?": a need, then a question)
			}
			do, q := c.understand(m[1], false), c.understand(m[2], false)
			if do.steps == nil || q.steps != nil || q.asked != nil || q.reply == "" || stuck(q) {
				return intent{}, false
			}
			steps := do.steps(c)
			if l := c.lister(); len(steps) != 1 || navTool(steps[0].def) || opener(steps[0].def) || named(steps[0].def.Name, commitFirst) ||
				l != nil && steps[0].def.Name == l.def.Name || slices.ContainsFunc(steps[0].schema.props, takesIDs) { // (of the items it names or lists)
				return intent{}, false
			}
			return intent{steps: do.steps, final: func(c *conv) string { return c.summary() + " " + q.reply }}, true
		}},
		// (not "I'm trying to decide between the Civic and the Mazda3. Which one is cheaper?":
		// the question is of the two named)
		{"a need, then a question", func(_ *conv, r *reading) bool {
			return lastQuestion(r.text) != "" && !(len(r.refs) >= 2 && choiceOfTwo(r))
		}, func(c *conv, r *reading) (intent, bool) {
			in := c.understand(lastQuestion(r.text), r.lookup)
			return in, in.steps == nil && in.asked == nil && in.reply != "" && !strings.HasPrefix(in.reply, "Sorry") && !strings.HasPrefix(in.reply, "I'm not sure")
		}},
		// "show me 4 of them" of two: both, and that there are two
		{"more of them than there are", func(c *conv, r *reading) bool {
			n, last := countOf(r.toks), c.before.last
			return n > len(last) && len(last) > 0 && c.lister() != nil
		}, func(c *conv, r *reading) (intent, bool) {
			return reply(strings.TrimSuffix(c.onlyMatch(len(c.before.last)), ".")+": "+joinList(titles(c.before.last), "and")+".", true)
		}},
		{"which of several", func(_ *conv, r *reading) bool { return r.ambiguous != nil },
			func(c *conv, r *reading) (intent, bool) { return c.whichOne(r.text, *r.ambiguous), true }},
		// "which is cheaper per month?" after the payments of two cars
		{"payments compared", func(c *conv, r *reading) bool {
			level := anyNorm(r.toks, "lower", "lowest", "higher", "highest", "less", "more", "difference") // ("what's the difference per month between them?")
			return r.question && (r.hasRank || level) && perMonth(r.toks) && len(c.payments()) >= 2
		}, func(c *conv, r *reading) (intent, bool) {
			ps, more := c.payments()[:2], r.order.desc || !r.hasRank && anyNorm(r.toks, "higher", "highest", "more")
			if (ps[0].amount > ps[1].amount) != more {
				ps[0], ps[1] = ps[1], ps[0]
			}
			return reply("The monthly payment of "+theTitle(ps[0].it)+" is "+map[bool]string{false: "lower", true: "higher"}[more]+": "+
				ps[0].said+" against "+ps[1].said+" for "+theTitle(ps[1].it)+", a difference of "+c.now.money.format(math.Abs(ps[0].amount-ps[1].amount))+" a month.", true)
		}},
		// "we would love to test drive it next weekend": which day, on the form here
		{"a week or a weekend", func(c *conv, r *reading) bool {
			return (nextWeekRe.MatchString(r.said) || weekendRe.MatchString(r.said)) && c.vagueDay(r) != nil
		}, func(c *conv, r *reading) (intent, bool) {
			p := c.vagueDay(r)
			c.contactsSaid(p, maps.Clone(p.values))
			return c.askMissing(p, r.said), true
		}},
		// "how many are there?" of the list shown
		{"how many are shown", func(c *conv, r *reading) bool {
			l := c.lister()
			if l == nil || len(c.before.last) == 0 || !howMany.MatchString(r.said) {
				return false
			}
			filtered := false // "in total" asks of the whole list, not of a filtered one shown
			for k := range c.earlierCalls {
				if k.name == l.def.Name {
					filtered = !noArguments(k.args)
					break
				}
			}
			return !slices.ContainsFunc(contentWords(howMany.FindStringSubmatch(r.said)[1]), func(w string) bool {
				return !countFillers[w] && !wordsMatch(w, normWord(listNoun(l.def.Name, 2))) || filtered && totalWords[w] // ("cars" is read "car")
			})
		}, func(c *conv, _ *reading) (intent, bool) {
			n, noun := len(c.before.last), listNoun(c.lister().def.Name, len(c.before.last))
			if n == 1 {
				return reply("There is 1 "+noun+": "+theTitle(c.before.last[0])+".", true)
			}
			return reply(fmt.Sprintf("There are %d %s.", n, noun), true)
		}},
		// "what if i pay 500 a month": no value of the calculator's
		// "is this under 35k?", "is it over 30 grand?" of the car on screen: its price (the page
		// read first when no price is known), held against the amount
		{"a price held against an amount", func(c *conv, r *reading) bool {
			_, _, ok := priceHeld(r.said)
			// (the list's search is no reader of one item: "is it over 30 grand?" of three shown)
			return ok && (c.screenItem() != nil || c.reader() != nil && !c.listsItems() && c.lister() == nil)
		}, func(c *conv, r *reading) (intent, bool) {
			judge := func(c *conv) string {
				amount, under, _ := priceHeld(r.said)
				price, it := c.statedPrice(), c.screenItem()
				if price == 0 && it != nil {
					price, _ = it.num(priceField.keys...)
				}
				if price == 0 {
					return ""
				}
				what, answer, rel := "it", "No", "over"
				if it != nil {
					what = theTitle(it)
				}
				if price <= amount {
					rel = "under"
				}
				if (price <= amount) == under {
					answer = "Yes"
				}
				return fmt.Sprintf("%s: %s is %s, %s %s.", answer, what, priceField.value(price, c.before.money), rel, priceField.value(amount, c.before.money))
			}
			if said := judge(c); said != "" {
				return reply(said, true)
			}
			if p := c.reader(); p != nil {
				return intent{steps: callIntent(p).steps, final: func(c *conv) string { return cmp.Or(judge(c), c.summary()) }}, true
			}
			return intent{}, false
		}},
		{"an amount a month", func(c *conv, r *reading) bool {
			return (amountAMonth.MatchString(r.said) || c.budgetAsked(r.said) > 0) && c.termParam() != nil && !anyNorm(r.toks, "earn", "make", "income", "salary", "earning", "paid")
		},
			func(c *conv, r *reading) (intent, bool) {
				p := c.termParam()
				text := "I can't start from an amount a month here: the calculator works out the monthly payment from the " +
					p.words[0] + " and the other values it takes."
				hint := " A longer " + p.words[0] + " or a bigger down payment lowers it"
				if en := p.schema.allEnums(); len(en) > 0 && en[len(en)-1].isNum {
					unit := strings.TrimSuffix(p.words[len(p.words)-1], "s") + "s"
					longest := en[len(en)-1].text() + " " + unit
					if !strings.Contains(c.lastResult(), longest) { // (not "72 months" said of a payment over 72 months)
						hint += ": " + c.offer([]string{longest}, "", true)
					}
				}
				text += hint + "."
				// "my budget is 500 a month. what's the payment over 72 months?": the rest worked
				// out, then held against the budget; "is that under 500 a month?": the payment
				// worked out held against it
				budget, _ := parseMoney(leadingAmount.FindString(amountAMonth.FindString(r.said)))
				if asked := c.budgetAsked(r.said); asked > 0 {
					budget, r.said = asked, "" // "is that under 500?" of the payment on screen: nothing else to do
				}
				against := func(c *conv) string {
					m := monthlyRe.FindStringSubmatch(c.lastResult())
					if m == nil || budget <= 0 {
						return ""
					}
					v, _ := parseMoney(m[1])
					if v <= budget {
						return fmt.Sprintf("Yes: %s a month is within %s a month.", m[1], priceField.value(budget, c.before.money))
					}
					return fmt.Sprintf("No: %s a month is over %s a month.%s.", m[1], priceField.value(budget, c.before.money), hint)
				}
				var rest []string
				for _, part := range sentenceEnd.Split(r.said, -1) {
					if !amountAMonth.MatchString(part) && len(contentWords(part)) > 0 {
						rest = append(rest, part)
					}
				}
				if len(rest) > 0 {
					if in := c.understand(strings.Join(rest, ". "), r.lookup); in.steps != nil && in.final == nil {
						in.final = func(c *conv) string { return strings.TrimSpace(c.summary() + " " + against(c)) }
						return in, true
					}
				}
				return reply(cmp.Or(against(c), text), true)
			}},
		// "what's the monthly difference between 48 and 60 months?": both worked out, then set
		// side by side (it worked out the second only)
		{"two values of a figure side by side", func(c *conv, r *reading) bool { return len(c.twoValues(r)) == 2 }, func(c *conv, r *reading) (intent, bool) {
			p, vs := c.termParam(), c.twoValues(r)
			unit := strings.TrimSuffix(p.words[len(p.words)-1], "s") + "s"
			a, b := c.understand(vs[0]+" "+unit, false), c.understand(vs[1]+" "+unit, false)
			if a.steps == nil || b.steps == nil {
				return intent{}, false
			}
			if strings.Contains(resultIn(c.msgs[:c.lastUser]), " "+vs[0]+" "+unit) {
				a, b = b, a // the value on screen worked out last: the calculator stays on it
			}
			return intent{
				steps: func(c *conv) []*plan { return append(a.steps(c), b.steps(c)...) },
				final: func(c *conv) string {
					out, vals := "", []float64{}
					for _, v := range vs {
						for _, d := range c.done {
							if m := monthlyRe.FindStringSubmatch(d.result); m != nil && strings.Contains(d.result, " "+v+" "+unit) {
								n, _ := parseMoney(m[2])
								out, vals = out+fmt.Sprintf("Over %s %s: %s a month. ", v, unit, m[1]), append(vals, n)
								break
							}
						}
					}
					if len(vals) != 2 {
						return c.summary()
					}
					return out + "A difference of " + priceField.value(math.Round(math.Abs(vals[0]-vals[1])*100)/100, c.now.money) + " a month."
				},
			}, true
		}},
		// "which of the two has the lower total interest?" after two calculations
		{"a figure of two results compared", func(_ *conv, r *reading) bool {
			return r.question && len(r.refs) == 0 && len(r.mentions) == 0 // (no item named: "which is cheaper, the golf or …")
		}, func(c *conv, r *reading) (intent, bool) { return reply(c.twoResults(r.toks)) }},
		// "what's included in the tech package?": a question, not a request to add it.
		{"what a choice includes", func(_ *conv, r *reading) bool { return asksContents(r.toks, r.question) }, (*conv).contents},
		// "How much does the technology package cost on its own?": not the package added
		{"what a choice costs", func(_ *conv, r *reading) bool {
			return r.question && anyNorm(r.toks, "cost", "costs", "much", "price", "priced") &&
				!anyNorm(r.toks, "with", "add", "adding", "include", "including", "total", "all", "month", "monthly")
		}, (*conv).choicePrice},
		// "what was my monthly payment again?": what an earlier reply said, not a new call.
		{"what was said", func(_ *conv, r *reading) bool { return recalls(r.toks) || filledAsked.MatchString(r.said) }, (*conv).recall},
		// "what else u need?" while a question waits: what it still needs
		{"what else is needed", func(c *conv, r *reading) bool { return c.unanswered != nil && whatElse.MatchString(r.said) },
			func(c *conv, _ *reading) (intent, bool) { return c.askMissing(c.unanswered, ""), true }},
		// "no phone sorry", "i don't have an email": a detail the visitor has not, which a form
		// here does not need (or does)
		{"a detail declined", func(c *conv, r *reading) bool { _, q := c.declined(r.said); return q != nil },
			func(c *conv, r *reading) (intent, bool) {
				t, q := c.declined(r.said)
				if q.required {
					return reply("The "+identPhrase(q.name)+" is needed to "+c.describeTool(t)+".", true)
				}
				said := "No problem: the " + identPhrase(q.name) + " is optional."
				if p := c.unanswered; p != nil && p.def.Name == t {
					in := c.askMissing(p, "")
					in.reply = said + " " + in.reply
					return in, true
				}
				return reply(said, true)
			}},
		// "back to the calculator" on the calculator's page: it is here.
		// "go back" on the list the visitor came to from an item's page: that page again
		{"back to the item", func(c *conv, r *reading) bool {
			return !c.reread && c.lister() != nil && c.openedLast() != nil && onlyGoing(r.toks, func(w string) bool { return w == "back" })
		}, func(c *conv, _ *reading) (intent, bool) { return c.backTo(c.openedLast()) }},
		{"this page", func(c *conv, r *reading) bool { return c.goesHere(r.toks) }, func(c *conv, _ *reading) (intent, bool) {
			return reply("You're already there."+c.wayOut(), true)
		}},
		// "open the Model 3" on the Model 3's page: it is open.
		{"the item on screen", func(c *conv, r *reading) bool {
			cur := c.onScreen()
			opens := slices.ContainsFunc(r.toks, func(t token) bool { return opensFirst[t.norm] || t.norm == "pull" })
			// ("open it" there: only words of opening and pointing)
			it := len(r.mentions) == 0 && r.pronoun && c.screenItem() != nil && !slices.ContainsFunc(r.toks, func(t token) bool {
				return t.kind == kindWord && !opensFirst[t.norm] && !stopWords[t.norm] && !politeWords[t.norm] && !anyNorm([]token{t}, "it", "this", "that", "one", "up")
			})
			return cur != "" && !c.reread && !c.listsItems() && opens && !r.like && (it || len(r.mentions) > 0 && c.onlyNames(r.text) &&
				!slices.ContainsFunc(r.mentions, func(m mention) bool { return m.items[0].id != cur }))
		}, func(c *conv, r *reading) (intent, bool) {
			text := "This is the page of " + theTitle(c.screenItem()) + "."
			if here := c.examples(3, func(t chat.ToolDef) bool { return !navTool(t) }); len(here) > 0 {
				text += " Here I can do things like " + c.offer(here, "or", true) + "."
			}
			return intent{reply: text}, true
		}},
		// Another item than the one on screen, on a page that neither lists nor opens items:
		// the site's list first, where the request is read again.
		// "does that include the roof?" on its calculator: what the car's page was set to
		{"what a figure includes", func(c *conv, r *reading) bool {
			return r.question && includesRe.MatchString(r.said) && len(r.refs) <= 1 && c.onScreen() != "" && !c.onItsPage()
		}, func(c *conv, r *reading) (intent, bool) { return reply(c.includes(r.toks)) }},
		// "now the other one, same terms" on a car's calculator, of several seen: which one
		{"the other of several", func(c *conv, r *reading) bool {
			return len(r.refs) == 0 && len(r.mentions) == 0 && anyNorm(r.toks, "other") && len(c.othersSeen()) > 1
		}, func(c *conv, r *reading) (intent, bool) {
			others := c.othersSeen()
			return reply("Which one do you mean: "+joinList(titles(others[:min(3, len(others))]), "or")+"?", true)
		}},
		{"another item", func(c *conv, r *reading) bool {
			// A note's words are the visitor's, not a car's name ("… a note that I'd like to try the manual").
			notes := r.best != nil && !r.unclear && slices.ContainsFunc(r.best.schema.props, func(p *property) bool { return noteParam(p) && r.best.values[p.name] != nil })
			// "the second one" of the comparison, on the first one's page
			_, ordinal := ordinalRef(r.toks)
			ordinal = ordinal || anyNorm(r.toks, "other")
			pointed := ordinal && len(r.refs) == 1 && len(r.mentions) == 0 && c.onScreen() != "" && r.refs[0].id != c.onScreen() &&
				!c.listsItems() && c.lister() == nil
			// "book the cheaper one" on the F-150's calculator, after the Tacoma's payment too
			pointed = pointed || r.memRank && !r.question && len(r.refs) == 1 && c.onScreen() != "" && r.refs[0].id != c.onScreen() && !c.listsItems() && c.lister() == nil
			like := c.lister() == nil && c.openedLast() != nil && similarTo.MatchString(r.text) // "anything similar that's cheaper?"
			return !notes && (pointed || like || c.otherItem(r.text, r.toks, r.mentions, r.pronoun)) && !c.differenceKnown(r)
		}, func(c *conv, _ *reading) (intent, bool) { return c.hub() }},
		// "what colours does the cheapest come in" with two hybrids shown: that car's colours,
		// which its page tells (not the list's colour filter)
		{"choices of the item ranked", func(c *conv, r *reading) bool {
			_, _, ranks := rankSpan(r.toks)
			return r.question && ranks && !isTheRank.MatchString(r.said) && (choiceNoun(r.toks) || anyNorm(r.toks, "color")) && c.listsItems() && !c.reread && c.rankedOne(r) != nil
		}, func(c *conv, r *reading) (intent, bool) { return c.openFor(c.rankedOne(r)) }},
		// On an item's own page (no tool takes an item's id), "it" is the item on screen: a
		// question about its choices ("which colours can I get it in?") is answered from this
		// page's tools, not from what an earlier list said of it.
		{"choices", func(c *conv, r *reading) bool {
			// "what colours does the Civic come in?" on the list names a car to look up first
			named := c.listsItems() && r.lookup && c.lookupOf(r) != nil || c.theValueItem(r.toks)
			// "what would the payments be over four years with $3,000 down?" is a calculation
			figures := r.numbers && r.best != nil && !r.unclear && len(r.best.values) > 0 ||
				r.best != nil && !r.unclear && len(r.best.values) >= 3 || // "could we get it in silver with the Elite trim and the family package?"
				r.best != nil && !r.unclear && len(r.best.values) > 0 && wordAt(r.toks, 0, "can", "could") && wordAt(r.toks, 1, "i", "we") &&
					wordAt(r.toks, 2, "get", "have") // "can we get the Elite trim?": a request
			bare := r.unnamed() // without the names: "civic colors" on the Civic's page
			// ("tell me about the trims", "colours")
			return (r.question || anyNorm(r.toks, "about") || len(bare) == 1 || len(bare) > 1 && nounAlone(bare[1:])) && (len(r.refs) == 0 || !c.listsItems()) && !named && !figures
		}, func(c *conv, r *reading) (intent, bool) {
			bare := r.unnamed()
			// "what colours and trims does it come in": each, when each word alone is answered
			if i := slices.IndexFunc(bare, func(t token) bool { return t.norm == "and" }); i > 0 && i+1 < len(bare) {
				one := slices.Delete(slices.Clone(bare), i, i+2)
				other := slices.Delete(slices.Clone(bare), i-1, i+1)
				a, okA := c.options(one)
				b, okB := c.options(other)
				if okA && okB && a.reply != b.reply && a.asked == nil && b.asked == nil {
					return intent{reply: a.reply + " " + b.reply}, true
				}
			}
			return c.options(bare)
		}},
		// "does the civic come in red?" on the list, whose results do not say a car's colours:
		// its page does.
		{"a value the list does not show", func(c *conv, r *reading) bool {
			l := c.lister()
			if !r.question && !c.wantsItem(r) || len(r.refs) != 1 || len(r.mentions) > 1 || l == nil { // "see the miata in red"
				return false
			}
			// a value of the list's filters, or the name of one ("what colours does …"), that
			// the item's row lacks
			unknown := func(p *property) bool { // (a bound's field is known: "maxPrice" of the price)
				name := strings.ToLower(p.name)
				for k := range r.refs[0].nums {
					if strings.Contains(name, k) {
						return false
					}
				}
				return r.refs[0].attrs[name] == nil
			}
			valued := len(r.plain) > 0 && r.plain[0].def.Name == l.def.Name &&
				slices.ContainsFunc(l.schema.props, func(p *property) bool { return r.plain[0].values[p.name] != nil && unknown(p) })
			asked := slices.ContainsFunc(l.schema.props, func(p *property) bool { return namesParam(r.toks, p) > 0 && unknown(p) })
			// "whats its price with sound package": a choice its page has, not the list (not
			// "compare it with the mercedes")
			with := slices.IndexFunc(r.toks, func(t token) bool { return t.norm == "with" })
			chosen := with >= 0 && !anyNorm(r.toks[:with], "compare") && slices.ContainsFunc(r.toks[with+1:], func(t token) bool {
				return t.kind == kindWord && len(t.norm) > 2 && !ordinary(t.norm) && !c.vocab[t.norm]
			})
			return valued || asked || chosen
		}, func(c *conv, r *reading) (intent, bool) { return c.openFor(r.refs[0]) }},
		// "which ones are high priority?" where only adding a task takes a priority: of those
		// listed (listed first, when none is), not a task to add
		{"a question of those listed, in a form's words", func(c *conv, r *reading) bool {
			return r.question && wordAt(r.toks, 0, "what", "which") && r.best != nil && writeVerbs[toolVerb(r.best.def)] &&
				len(r.best.missing) > 0 && len(r.best.values) > 0 && c.lister() != nil && (r.lookup || len(c.group()) >= 2)
		}, func(c *conv, r *reading) (intent, bool) {
			if len(c.group()) < 2 {
				return (&lookup{said: r.said, l: c.lister()}).intent(), true
			}
			return reply(c.ofThose(r.best))
		}},
		// "which of them are hybrids?" after "The 3 cheapest are …": of those, not a search.
		{"a filter of those named", func(c *conv, r *reading) bool {
			l := c.lister()
			// ("does it come in red?" of the two Teslas listed: "it" is either)
			some := pluralPronoun(r.toks) || r.pronoun && len(r.refs) == 0 && c.fewSeen()
			// (not "which is the cheapest in berlin?": a ranking of those there)
			return r.question && some && !r.hasRank && l != nil && r.best != nil && r.best.def.Name == l.def.Name && len(c.group()) >= 2
		}, func(c *conv, r *reading) (intent, bool) { return reply(c.ofThose(r.best)) }},
		// "which SUVs are cheaper than the Odyssey?": those of the kind, listed, that beat it
		{"a kind that beats it", func(c *conv, r *reading) bool {
			_, ok := comparativeThan(r.toks)
			return ok && len(r.refs) == 1 && c.kindSearch(r) != nil
		}, func(c *conv, r *reading) (intent, bool) {
			it, search := r.refs[0], c.kindSearch(r)
			o, _ := comparativeThan(r.toks)
			return intent{steps: func(*conv) []*plan { return []*plan{search} }, final: func(c *conv) string {
				s, _ := c.beating(it, o, c.now.last)
				return s
			}}, true
		}},
		// "is there one thats cheaper than it", "show me newer cars than this": those seen
		// that beat the one on screen (not "is it cheaper than this", one of two)
		{"those that beat it", func(c *conv, r *reading) bool {
			_, ok := c.beatsAsked(r)
			return ok && len(r.refs) == 1 && beatsWho.MatchString(r.said) && len(c.beatable()) >= 2
		}, func(c *conv, r *reading) (intent, bool) {
			it := r.refs[0]
			if o := c.openedLast(); o != nil && c.onItsPage() && thanThis.MatchString(r.said) {
				it = o // "this" on a car's page is that car, whatever the last answer named
			}
			o, _ := c.beatsAsked(r)
			return reply(c.beating(it, o, c.beatable()))
		}},
		// "is it 4wd?", "do they have heated seats?" of the cars shown: a quality no tool here
		// names is not known, not a name to look up ("There is no 4wd …") nor a choice of tools
		{"a quality nothing here names", func(c *conv, r *reading) bool {
			m := qualityAsk.FindStringSubmatch(r.said)
			// (not "which one has more range", a ranking)
			return m != nil && r.question && !r.hasRank && !unknownRank(r.toks) && len(r.mentions) == 0 && (len(r.plain) == 0 || len(r.plain[0].values) == 0) &&
				(len(c.choosable()) > 0 || c.onScreen() != "") && !slices.ContainsFunc(tokenize(strings.Join(m[1:], " ")), func(t token) bool {
				return t.kind == kindWord && (c.vocab[t.norm] || c.vocab[stem(t.norm)])
			})
		}, func(c *conv, _ *reading) (intent, bool) { return reply(cantTell+c.wayOut(), true) }},
		{"about items seen", (*conv).aboutSeen, func(c *conv, r *reading) (intent, bool) {
			// "which is newer, the Civic or the Camry?" with electric cars shown: those named
			// are looked up first (a name: capitalised, or after "the")
			theName := func(w string) bool {
				for i, t := range r.toks {
					if t.raw == w && wordAt(r.toks, i-1, "the") {
						return true
					}
				}
				return nameLike(w)
			}
			if lk := c.lookupOf(r); r.question && lk != nil && lk.seen == 0 && r.lookup && slices.ContainsFunc(lk.unknown, theName) {
				return lk.intent(), true
			}
			// "how much is it now" after it was configured: the total a result stated since
			if f, _ := questionField(r.toks); f == priceField && anyNorm(r.toks, "now") && len(r.refs) == 1 && !r.hasRank && r.refs[0] == c.openedLast() {
				if said, ok := c.stated("total"); ok {
					return reply(upperFirst(theTitle(r.refs[0]))+" as configured: "+strings.ToLower(said[:1])+said[1:], true)
				}
			}
			if no := c.notOffered(r.toks); no != "" {
				return reply(upperFirst(no), true) // "how much is it with the tech package?" of a car without one
			}
			return reply(c.answerAbout(r.text, r.toks, r.refs, r.order, r.hasRank, r.ranked))
		}},
		// "is it electric?" on its page, whose tools name no fuel: what the list said of it.
		{"what the list said of it", func(_ *conv, r *reading) bool {
			return r.question && (len(r.refs) == 1 || len(r.refs) >= 2 && len(r.refs) <= 3 && pluralPronoun(r.toks)) // ("what fuel do they use?" of the two compared)
		}, func(c *conv, r *reading) (intent, bool) {
			var all []string
			for _, it := range r.refs {
				said, ok := c.itemIs(it, r.toks)
				if !ok || said == "" && len(r.refs) > 1 {
					return intent{}, false
				}
				all = append(all, said)
			}
			return reply(strings.Join(all, " "), true)
		}},
		// "the cheapest one overall" with SUVs shown: the whole list, then the ranking.
		{"of all", func(c *conv, r *reading) bool {
			l := c.lister()
			return ofAll(r.toks) && r.hasRank && l != nil && r.best != nil && r.best.def.Name != l.def.Name && c.filtered(l.def.Name)
		}, func(c *conv, r *reading) (intent, bool) {
			l, best := c.lister(), r.best
			return intent{steps: func(*conv) []*plan { return []*plan{l, best} }}, true
		}},
		// "cheapest electric car", "compare the two cheapest", "open the newest SUV".
		// "and the second cheapest?": the one after the first of the ranking, on the list sorted
		{"the n-th of a ranking", func(_ *conv, r *reading) bool { return r.hasRank && nthOf(r.toks, r.rankAt) > 1 },
			func(c *conv, r *reading) (intent, bool) {
				k := nthOf(r.toks, r.rankAt)
				say := func(c *conv) string {
					w := ranked(c.now.last, r.order)
					if len(w) < k {
						return fmt.Sprintf("There are only %d here to rank.", len(w))
					}
					return "The " + ordinalNames[k] + " " + r.order.what + " is " + theTitle(w[k-1]) + rankDetail(r.order, w[k-1], c.now.money) + "."
				}
				if sorter := c.sortPlan(r.order); sorter != nil {
					return intent{steps: func(*conv) []*plan { return []*plan{sorter} }, final: say}, true
				}
				return reply(say(c), true)
			}},
		{"ranking", func(c *conv, r *reading) bool {
			// (not "which is newer, this or the audi a4?" before the A4 is known: its name is
			// looked up first, and the two compared)
			this := r.pronoun && len(r.refs) == 0 && anyNorm(r.toks, "or", "vs", "versus") && c.pronounRef(r.toks) != nil
			// (not "the cheapest tesla per month …" read again on the calculator its car was opened for)
			ranked := c.reread && c.lister() == nil && perMonth(r.toks)
			return r.hasRank && !r.memRank && !sortCue(r.toks, r.rankAt) && !this && !ranked
		}, func(c *conv, r *reading) (intent, bool) {
			if lk := c.lookupOf(r); lk != nil && r.lookup && choiceOfTwo(r) {
				return c.unknownNames(r) // "which is cheaper, the civic or the corolla" before either is listed
			}
			if len(r.refs) >= 2 && choiceOfTwo(r) { // "compare the Model 3 and the Ioniq 5, which of the two is cheaper?"
				return reply(c.answerAbout(r.text, r.toks, r.refs, r.order, r.hasRank, nil))
			}
			return c.ranking(r.text, r.toks, r.order, r.n, r.rankAt)
		}},
		// "add the tech package" (or "add the roof") on a car's calculator, read again on the
		// list the clarify hop went to: a choice of that car's page, which the list opens
		{"a choice of the item left", func(c *conv, r *reading) bool {
			// (not of "and the ioniq with the limited trim?", another car's, brought here)
			return c.reread && c.listsItems() && len(r.refs) == 0 && (choiceNoun(r.toks) || addsOrDrops.MatchString(r.text)) && c.openedLast() != nil && !c.opensOnOther(r.text, r.toks)
		}, func(c *conv, _ *reading) (intent, bool) { return c.openFor(c.openedLast()) }},
		// "add the winter package and show me the payment again" on its calculator: its page
		// has the packages (by the list), and the calculator is read again after them
		{"a choice of the item's page, from away", (*conv).choiceAway, func(c *conv, _ *reading) (intent, bool) { return c.hub() }},
		{"no tool", func(_ *conv, r *reading) bool { return r.best == nil },
			func(c *conv, _ *reading) (intent, bool) { return reply(c.noTools(), true) }},
		// (not of "it", the page's item, in "compare it with the mercedes c-class")
		{"unknown names", func(c *conv, r *reading) bool {
			// ("compare the tacoma and the f-150" before the F-150 was listed: a name taken for an id)
			strange := r.best != nil && c.nameForID(r.best)
			// ("compare it with the Ford Explorer" before the Explorer was listed: it, and a name)
			return len(r.refs) == 0 || c.page != nil && len(r.refs) == 1 && r.refs[0].id == c.page.id && len(r.mentions) == 0 || strange ||
				len(r.refs) == 1 && c.comparer(r) != nil
		}, (*conv).unknownNames},
		// "black with the Touring trim and take me to financing": both, the page last.
		{"here, then elsewhere", func(c *conv, r *reading) bool { _, nav := c.thenGo(r.best, r); return nav != nil },
			func(c *conv, r *reading) (intent, bool) {
				first, nav := c.thenGo(r.best, r)
				if q, ok := c.applyEdits(first); !ok { // "add the tech package" keeps the roof added before
					return q, true
				}
				// A figure the plan here leaves ("…, 60 months", a day) is read again there (goOn).
				for i, t := range r.toks2 {
					figure := t.kind == kindNumber || t.kind == kindDate || t.kind == kindTime // "…, for Sunday at 2pm"
					nav.opens = nav.opens || figure && (i >= len(first.used) || !first.used[i])
				}
				nav.opens = nav.opens || perMonth(r.toks) // its figure is asked there
				return intent{steps: func(*conv) []*plan { return []*plan{first, nav} }}, true
			}},
		// "return to the inventory"
		{"going", unclear, func(c *conv, r *reading) (intent, bool) { return c.goingTo(r.toks) }},
		// "tell me more about it" on an item's own page: what the page's reading tool says of it.
		{"about the item on screen", func(c *conv, r *reading) bool {
			return r.unclear && !c.listsItems() && (r.pronoun || len(r.refs) == 1 || c.pageNamed(r)) && !r.numbers && // ("what about the model y at 48 months")
				slices.ContainsFunc(r.toks, func(t token) bool { return aboutWords[t.norm] })
		}, func(c *conv, _ *reading) (intent, bool) {
			p := c.reader()
			return callIntent(p), p != nil
		}},
		{"whole list", func(c *conv, r *reading) bool { return r.unclear && len(r.refs) == 0 },
			func(c *conv, r *reading) (intent, bool) {
				l := c.lister()
				total := howMany.MatchString(r.said) && slices.ContainsFunc(r.toks, func(t token) bool { return totalWords[t.norm] }) // "how many in total?"
				return callIntent(l), l != nil && (wholeList(r.toks2, l) || total)
			}},
		// "book a test drive for the RAV4" where only the RAV4's own page can: open it.
		// "what would the RAV4 cost per month?" on the list: its page, and on to its calculator.
		{"open the item", func(_ *conv, r *reading) bool {
			// ("what about the model y at 48 months with 7000 down": figures for its pages)
			figures := r.numbers && wordAt(r.toks, 0, "what", "how") && wordAt(r.toks, 1, "about")
			return r.unclear && len(r.refs) == 1 && (!r.question || perMonth(r.toks) || figures)
		}, func(c *conv, r *reading) (intent, bool) { return c.openFor(r.refs[0]) }},
		// "and at 72?" after "60 months with 2,500 down".
		{"a bare value", unclear, func(c *conv, r *reading) (intent, bool) {
			p, alts := c.bareValue(r.toks)
			if len(alts) > 1 {
				return c.choose("Which do you mean:", alts), true // "how about 20": the down payment, or the rate?
			}
			return callIntent(p), p != nil
		}},
		// "book test drive" on the list right after "The cheapest one is the Golf": the Golf's
		// page does it.
		{"for the item just named", func(c *conv, r *reading) bool {
			acts := slices.ContainsFunc(r.toks, func(t token) bool { return actionVerbs[t.norm] })
			return r.unclear && acts && !c.reread && len(r.refs) == 0 && !r.question && c.justNamed() != nil
		}, func(c *conv, _ *reading) (intent, bool) { return c.openFor(c.justNamed()) }},
		// "plus trim", "test drive tmrw" with one car listed: its page does it.
		{"for the only item shown", func(c *conv, r *reading) bool {
			return r.unclear && !c.reread && !r.question && len(r.refs) == 0 && c.onScreen() == "" && c.listsItems() && len(c.now.last) == 1 &&
				slices.ContainsFunc(r.toks, func(t token) bool {
					return t.kind == kindWord && len(t.norm) > 2 && !ordinary(t.norm) && !politeWords[t.norm] && lexicon[t.norm]
				})
		}, func(c *conv, _ *reading) (intent, bool) { return c.openFor(c.now.last[0]) }},
		// "60 months with 2,500 down" on the list, after a car's page: figures no tool here
		// takes are for that car's pages.
		{"figures for the item seen", func(c *conv, r *reading) bool {
			// ("how much a month" after "The cheapest one is the Kia Sportage": its calculator)
			// ("open that" after a list of several: which)
			// (the verb first: not "how far can it go on a charge")
			verb := slices.IndexFunc(r.toks, func(t token) bool { return opensFirst[t.norm] })
			opensIt := r.pronoun && verb >= 0 && pronounIn(r.toks[verb:])
			// ("book a test drive for it" after two were named the newest: which)
			acts := !r.question && slices.ContainsFunc(r.toks, func(t token) bool { return actionVerbs[t.norm] }) && len(c.group()) >= 2 && c.itemInView() == nil
			// ("how much per month" of three shown, read as of each: which)
			return r.unclear && (r.numbers || perMonth(r.toks) || opensIt || acts) && (len(r.refs) == 0 || len(r.refs) >= 2 && perMonth(r.toks)) && c.onScreen() == "" &&
				(c.itemInView() != nil || len(c.group()) >= 2 || opensIt && len(c.before.last) >= 2)
		}, func(c *conv, _ *reading) (intent, bool) {
			if it := c.itemInView(); it != nil {
				return c.openFor(it)
			}
			// "per month over 4 years" after three BMWs were listed: which? (forItem reads the
			// answer with these words)
			group := c.group()
			if len(group) < 2 {
				group = c.before.last // "open that" after a list cut short
			}
			return reply("Which "+c.opensWhat()+whichFor+c.offer(titles(group[:min(3, len(group))]), "or", true)+"?", true)
		}},
		// "what trims does the RAV4 come in" on the list, which knows no trims: its page may.
		{"a question for an item's page", func(c *conv, r *reading) bool {
			return r.unclear && r.question && len(r.refs) == 1 && c.onScreen() == "" && !c.reread && c.lister() != nil &&
				slices.ContainsFunc(r.toks, func(t token) bool {
					return t.kind == kindWord && len(t.norm) > 2 && !ordinary(t.norm) && !c.vocab[t.norm] && !slices.Contains(r.refs[0].words, compact(t.norm))
				})
		}, func(c *conv, r *reading) (intent, bool) { return c.openFor(r.refs[0]) }},
		// "could you please show me the options that are available?" on an item's page: every
		// choice its tools offer
		{"every choice here", func(c *conv, r *reading) bool {
			here := len(r.refs) == 0 || len(r.refs) == 1 && (r.refs[0].id == c.onScreen() || c.page != nil && r.refs[0].id == c.page.id)
			// ("go back to financing and show me the 48 month option": a value, elsewhere)
			return r.unclear && anyNorm(r.toks, "option", "choice") && !c.listsItems() && here && !r.numbers && c.navMatch(r.toks2, r.ps) == nil
		}, func(c *conv, _ *reading) (intent, bool) {
			var out []string
			for _, t := range c.tools {
				for _, q := range parseSchema(t.Parameters).props {
					if en := q.schema.allEnums(); len(en) >= 2 && en[0].isStr && !navTool(t) {
						out = append(out, "The "+identPhrase(q.name)+" can be "+joinList(enumLabels(en), map[bool]string{true: "and", false: "or"}[q.schema.isArray()])+".")
					}
				}
			}
			return reply(strings.Join(out, " "), len(out) > 0)
		}},
		// (before elsewhere: "add the winter package and show me the payment", where the
		// packages are tech or sport, says so and stays)
		{"a colour not offered", unclear, func(c *conv, r *reading) (intent, bool) {
			no := c.notOffered(r.toks)
			return reply(upperFirst(no), no != "")
		}},
		{"elsewhere", func(_ *conv, r *reading) bool {
			// "is it fun to drive?" is about this page; "what would that cost a month?" is not
			return r.unclear && (!r.question || !r.pronoun || r.numbers || perMonth(r.toks))
		}, func(c *conv, r *reading) (intent, bool) { return c.elsewhere(r.toks2, r.ps, r.pronoun) }},
		// "Jo Lane jo@lane.io" on a page with no form: kept for the form that asks (contactsSaid).
		{"details for a form elsewhere", func(c *conv, r *reading) bool {
			// ("my phone number is …" on the financing application, which takes no phone)
			return r.unclear && (slices.ContainsFunc(r.toks, func(t token) bool {
				return t.kind == kindEmail && !c.hasParam(emailKind.wants) || t.kind == kindPhone && !c.hasParam(phoneKind.wants)
			}) || nameIntro.MatchString(r.said) && !c.hasParam(nameKind.wants)) // "Hi, my name is Grace Holloway.
		}, func(c *conv, r *reading) (intent, bool) {
			// "Hello! I'm Victor Alvarez. Before anything else, could you tell me what this
			// costs?": noted, and the rest done
			var rest []string
			for _, s := range sentenceEnd.Split(r.said, -1) {
				if _, talk := c.smallTalk(s); !talk && !nameIntro.MatchString(s) && !slices.ContainsFunc(tokenize(s), contactToken) {
					rest = append(rest, s)
				}
			}
			if q := strings.Join(rest, ". "); q != "" {
				if in := c.understand(q, r.lookup); in.steps != nil || in.reply != "" && !strings.HasPrefix(in.reply, deadEndStart) && !strings.HasPrefix(in.reply, clarifyStart) {
					return in, true
				}
			}
			return reply("Noted: I'll fill in these details when a form asks for them."+c.wayOut(), true)
		}},
		// "move it to the afternoon" once the form has a time, "no wait, 5pm" where the last
		// slot is at 4: which time, with the form's other values.
		{"another time", unclear, (*conv).otherTime},
		// "add it" after "what does the towing package cost" added it to show the price
		{"added already", func(c *conv, r *reading) bool { return r.unclear && r.pronoun && anyNorm(r.toks, "add", "include") }, func(c *conv, r *reading) (intent, bool) {
			added := c.lastAdded()
			return reply("The "+added+" is already added.", added != "")
		}},
		// "remove it", "take it off" after "add cargo": the value added last
		{"remove what was added", func(c *conv, r *reading) bool {
			return r.unclear && r.pronoun && (anyNorm(r.toks, "remove", "drop", "delete") || anyNorm(r.toks, "take") && anyNorm(r.toks, "off"))
		}, func(c *conv, r *reading) (intent, bool) {
			added := c.lastAdded()
			return c.understand("remove the "+added, false), added != ""
		}},
		// "which car is this for?", "which car am i booking" on its booking page: the one on
		// screen (not "which car is cheapest")
		{"which item this is", func(c *conv, r *reading) bool {
			n := c.openedNoun()
			return r.question && n != "" && c.onScreen() != "" && wordAt(r.toks, 0, "which", "what") && wordAt(r.toks, 1, n) &&
				wordAt(r.toks, 2, "is", "am", "are") && wordAt(r.toks, 3, "this", "it", "i", "we")
		}, func(c *conv, _ *reading) (intent, bool) {
			if it := c.openedLast(); it != nil && it.name != "" {
				return intent{reply: "It is " + theTitle(it) + "."}, true
			}
			return intent{}, false
		}},
		// "show me white ones with leather seats": the white ones, and what no filter takes said
		{"a search, partly", func(c *conv, r *reading) bool {
			l := c.lister()
			return r.unclear && !r.question && l != nil && r.best != nil && r.best.def.Name == l.def.Name && len(r.best.values) > 0 &&
				len(r.refs) == 0 && len(r.mentions) == 0 && len(c.unknownWords(r.toks2, r.best)) == 0
		}, func(c *conv, r *reading) (intent, bool) {
			rest := c.unknownStretch(r.text2, r.toks2, r.best)
			in, ok := c.callBest(r)
			if !ok || in.steps == nil || in.final != nil {
				return intent{}, false
			}
			if rest == "" {
				return in, true // what it did not take asks for nothing ("… for the summer")
			}
			in.final = func(c *conv) string {
				if w := tokenize(rest); len(w) > 1 && toolVerbs[w[0].norm] && len(c.now.last) > 0 {
					// "book a test drive of an suv": the SUVs, and the request for one of them
					var asks []string
					for _, it := range c.now.last[:min(3, len(c.now.last))] {
						asks = append(asks, rest+" of "+theTitle(it))
					}
					return strings.TrimSuffix(c.summary(), ".") + ". Which one? " + c.offer(asks, "or", true) + "."
				}
				return strings.TrimSuffix(c.summary(), ".") + ". There is no filter for “" + rest + "” here."
			}
			return in, true
		}},
		// "which one has more range?", "which is faster" of the cars shown: what no result says;
		// "which one should i get?", "which would you recommend": a choice that is the visitor's
		{"a ranking no result tells", func(c *conv, r *reading) bool {
			deal := bestDeal.MatchString(r.text) && (len(c.choosable()) >= 2 || len(c.choosable()) == 0 && c.lister() != nil) // ("whats ur best deal" before any list: the list ranks)
			return !r.hasRank && !r.numbers && (deal || (len(c.group()) >= 2 || c.listsItems() && len(c.before.last) >= 2 && !c.reread) && r.question && wordAt(r.toks, 0, "which") && unknownRank(r.toks) ||
				len(c.choosable()) >= 2 && recommendAsk.MatchString(r.text))
		}, func(c *conv, r *reading) (intent, bool) {
			var can []string
			for _, f := range []struct {
				f   *field
				ask string
			}{{priceField, "which is cheapest?"}, {yearField, "which is newest?"}} {
				if !slices.ContainsFunc(c.choosable(), func(it *item) bool { _, ok := it.num(f.f.keys...); return !ok }) {
					can = append(can, f.ask)
				}
			}
			text := cantTell
			if recommendAsk.MatchString(r.text) {
				text = "That choice is yours: I can't tell which suits you from what this page's tools tell me."
			}
			if len(can) > 0 && len(c.choosable()) == 0 {
				text += " I can tell " + c.offer(can, "or", true) + "." // (of the whole list)
			} else if len(can) > 0 {
				text += " Of these I can tell " + c.offer(can, "or", true) + "."
			}
			return reply(text, true)
		}},
		{"clarify", unclear, func(c *conv, r *reading) (intent, bool) {
			in := c.clarify(r.text, r.ps, r.toks2, r.question)
			// "is it available in red?", "i want it in red" on its calculator, which cannot tell
			// or do it: its page may (not "what's the APR on this?": a field here)
			here := slices.ContainsFunc(c.tools, func(t chat.ToolDef) bool {
				return slices.ContainsFunc(parseSchema(t.Parameters).props, func(p *property) bool {
					return slices.ContainsFunc(r.toks, func(w token) bool { return matchesParam(w.norm, p) })
				})
			})
			// (not "never mind, cancel it" after a booking: nothing of the item's cancels it)
			if away := c.onScreen() != "" && !c.onItsPage() && !c.reread && !here && c.refill() == nil && !anyNorm(r.toks, "cancel", "refund", "delete"); away && (r.pronoun || len(r.refs) == 1 && r.refs[0].id == c.onScreen() || len(r.refs) == 0 && r.question && asksField(r.toks)) && !r.numbers && in.steps == nil && in.reply == c.deadEnd() {
				if h, ok := c.hub(); ok {
					return h, true
				}
			}
			// "what is the price of the car here?" on its calculator, which nothing here tells: the
			// price its opening result stated ("… at $31,990"), or the one the list gave the car
			// (not "the interest is how much?", "how much down do I need?": other figures)
			if f, _ := questionField(r.toks); f == priceField && in.reply == c.deadEnd() && len(r.refs) == 0 && !r.numbers &&
				!anyNorm(r.toks, "interest", "rate", "apr", "down", "deposit", "monthly", "month", "payment", "term", "loan") {
				if v := cmp.Or(c.statedPrice(), c.addressPrice()); v > 0 {
					return reply(fmt.Sprintf("The price here is %s.", f.value(v, c.before.money)), true)
				}
				if it := c.screenItem(); it != nil {
					if said, ok := c.answerAbout(r.text, r.toks, []*item{it}, order{}, false, nil); ok {
						return reply(said, true)
					}
				}
			}
			return in, true
		}},
		// "can I see it in red?" after the Tacoma was named: "it" is one car, no search for red
		// ones; its page has its colours.
		{"it, not a search", func(c *conv, r *reading) bool {
			l := c.lister()
			return len(r.refs) == 0 && l != nil && r.best.def.Name == l.def.Name && c.pronounRef(r.toks) != nil
		}, func(c *conv, r *reading) (intent, bool) { return c.openFor(c.pronounRef(r.toks)) }},
		// "How long it takes to charge?" on the Ioniq's page: no Home charger added
		{"how it performs", func(c *conv, r *reading) bool {
			return r.question && !r.numbers && howItIs.MatchString(r.said) && c.onItsPage()
		}, func(c *conv, _ *reading) (intent, bool) { return reply(cantTell+c.wayOut(), true) }},
		{"two tools", func(_ *conv, r *reading) bool { return len(r.ps) > 1 }, (*conv).twoClose},
		// "I want the Odyssey in silver" on the list: the one car named, in silver (its page
		// sets the colour), not the list's silver cars
		{"a value of the one item named", func(c *conv, r *reading) bool {
			l := c.lister()
			// ("camry blue how much" brought here from another car's page too)
			return !r.question && (!c.reread || c.bareOther(r.said, r.toks) != "") && len(r.refs) == 1 && len(r.mentions) == 1 && len(r.mentions[0].items) == 1 &&
				l != nil && r.best != nil && r.best.def.Name == l.def.Name && len(r.best.values) > 0
		}, func(c *conv, r *reading) (intent, bool) { return c.openFor(r.refs[0]) }},
		// "Is this BMW 330i the M Sport version?", "how does that compare with the base
		// price?" on the item's page: what it is set to now, read, not a change made
		{"the state of the item on screen asked", func(c *conv, r *reading) bool {
			return r.question && stateAsked.MatchString(r.said) && c.onItsPage() && r.best != nil && !r.unclear &&
				!reads(r.best.def) && !navTool(r.best.def) && !named(r.best.def.Name, commitFirst) && c.reader() != nil
		}, func(c *conv, _ *reading) (intent, bool) { return callIntent(c.reader()), true }},
		// "need 7 seats": no filter has seats; the kinds a family takes, said so, with the other
		{"seats", func(c *conv, r *reading) bool {
			l := c.lister()
			return manySeats.MatchString(r.said) && l != nil && r.best != nil && r.best.def.Name == l.def.Name
		}, func(c *conv, r *reading) (intent, bool) {
			in, ok := c.callBest(r)
			var kind string
			var of *property
			for _, p := range r.best.schema.props {
				if s, _ := r.best.values[p.name].(string); slices.Contains(hints["family"], s) {
					kind, of = s, p
				}
			}
			if !ok || in.steps == nil || in.final != nil || kind == "" {
				return intent{}, false
			}
			in.final = func(c *conv) string {
				out := strings.TrimSuffix(c.summary(), ".") + ". There is no filter for seats here, so I showed the " + kind + "s"
				if others := slices.DeleteFunc(slices.Clone(hints["family"]), func(k string) bool {
					return k == kind || !slices.ContainsFunc(of.schema.enum, func(e enumValue) bool { return e.str == k })
				}); len(others) > 0 {
					out += ". For " + others[0] + "s: " + c.offer([]string{"show me " + others[0] + "s"}, "or", true)
				}
				return out + "."
			}
			return in, true
		}},
		{"call", always, (*conv).callBest},
	}
}

// stateAsked asks what the item on screen is, or how it compares: "is this the M Sport
// version?", "is it the limited?", "how does that compare with the base price?".
var stateAsked = regexp.MustCompile(`(?i)^\W*(?:is|isn't|isnt)\s+(?:it|this|that)\b|\bhow\s+does\s+(?:that|it|this)\s+compare\b`)

// understand turns one user message into an intent, with what the conversation's memory
// (c.before: its one state, never passed beside it) knows about the items it has seen: the
// first of the rules that applies to its reading. lookup allows one call of a listing tool
// to learn names first.
//
// A message of several sentences that reads as nothing ("Good evening. My late husband always
// drove Toyotas, so could you show me just the Toyotas, please?") is its last sentence, or
// the last clause a request or a question begins ("I am confused, how many are there?"), when
// that reads as something (never "Before I confirm" of "Before I confirm, how much is it?").
func (c *conv) understand(text string, lookup bool) intent {
	in := c.understandAll(text, lookup)
	last := ""
	if parts := requestParts(text); stuck(in) && len(parts) > 1 {
		last = parts[len(parts)-1]
	} else if sentences := sentenceEnd.Split(strings.TrimSpace(text), -1); !stuck(in) && len(sentences) > 1 &&
		!slices.ContainsFunc(sentences[:len(sentences)-1], func(p string) bool { return !c.remark(p) }) {
		last = sentences[len(sentences)-1] // (or whose sentences before the last are remarks: "my son-in-law sent me to this page. Which car is this for?")
	}
	if strings.TrimSpace(last) != "" {
		if alt := c.understandAll(last, lookup); !stuck(alt) {
			return alt
		}
	}
	// "I am looking for a convertible for the summer. What do you have?": the sentence that
	// asks, when the last only asks what there is
	if sentences := sentenceEnd.Split(strings.TrimSpace(text), -1); stuck(in) && len(sentences) == 2 && availableRe.MatchString(sentences[1]) {
		if alt := c.understandAll(sentences[0], lookup); !stuck(alt) {
			return alt
		}
	}
	return in
}

// partEnd ends a sentence, or a clause that a request or a question follows: "…drove
// Toyotas, so could you …", "I am confused, how many are there?".
var partEnd = regexp.MustCompile(`(?i)([.!?]|,(?:\s+(?:so|but|and))?)\s+((?:could|can|would|will|how|what|which|where|when|is|are|do|does)\b)?`)

// requestParts are the sentences of text, and the clauses that a request or question begins.
func requestParts(text string) []string {
	var out []string
	last := 0
	for _, m := range partEnd.FindAllStringSubmatchIndex(text, -1) {
		if text[m[2]] == ',' && m[4] < 0 {
			continue // "red, white or blue"
		}
		out = append(out, text[last:m[2]])
		last = m[1]
		if m[4] >= 0 {
			last = m[4]
		}
	}
	return append(out, text[last:])
}

// remark reports a sentence of three words or more that asks nothing, names nothing and gives
// no value: no question, figure, day, contact, word of a tool here ("apply") or value one takes
// ("suv"), and no capitalised word but the first and "I" ("my son-in-law sent me to this
// page", "I would rather something newer").
func (c *conv) remark(text string) bool {
	toks := tokenize(rewriteTimes(rewriteDates(text, c.today))) // ("Nine o'clock, please.", "next Tuesday then.")
	if isQuestion(text, toks) {
		return false
	}
	words := 0
	for i, t := range toks {
		switch {
		case t.kind == kindWord:
			words++
			if i > 0 && t.raw != strings.ToLower(t.raw) && t.raw != "I" && !strings.HasPrefix(t.raw, "I'") && !strings.HasPrefix(t.raw, "I’") || c.vocab[t.norm] || calendarWords[t.norm] || partsOfDay[t.norm][0] != "" ||
				c.hasParam(func(p *property) bool {
					return slices.ContainsFunc(p.schema.allEnums(), func(e enumValue) bool { return e.isStr && sayValue(toks[i:i+1], e) })
				}) {
				return false
			}
		case t.kind != kindPunct && t.raw != "-": // ("son-in-law")
			return false
		}
	}
	return words >= 3
}

// stuck reports an intent that does nothing and only says so, or asks what was meant.
func stuck(in intent) bool {
	return in.steps == nil && (strings.HasPrefix(in.reply, deadEndStart) || strings.HasPrefix(in.reply, clarifyStart))
}

func (c *conv) understandAll(text string, lookup bool) intent {
	r := c.read(text, lookup)
	for _, ru := range rules {
		if ru.when(c, r) {
			if in, ok := ru.do(c, r); ok {
				return in
			}
		}
	}
	return intent{reply: c.deadEnd()} // not reached: "call" always applies
}

// refuse answers a request that says not to do something: what it will not do.
func (c *conv) refuse(r *reading) (intent, bool) {
	if ps := r.plain; len(ps) > 0 && ps[0].score >= threshold && c.nameHit(ps[0], r.toks) {
		return intent{reply: "OK, I won't " + c.describeTool(ps[0].def.Name) + "."}, true
	}
	return intent{reply: "OK, I won't. What would you like me to do instead?"}, true
}

// aboutSeen reports a question about items already seen, answered from what the page
// returned; so are the bare words that only point at them ("cheapest one", "the red one"):
// with no word of an action, no tool runs only because an item's id now stands in the text.
// Unless it gives numbers for another page's tool ("what would the Mazda3 cost a month over
// 36 months?" goes to the financing calculator).
func (c *conv) aboutSeen(r *reading) bool {
	if c.differenceKnown(r) {
		return true // "whats the difference in price with the 330i" names get_price_summary's "price"
	}
	nameWord := slices.ContainsFunc(c.tools, func(t chat.ToolDef) bool {
		return c.nameHit(&plan{def: t}, r.toks) // "open", "compare"
	})
	if len(r.refs) == 0 || nameWord || !r.question && c.actionWords(r.base, r.refs) || perMonth(r.toks) {
		return false // "what would the RAV4 cost per month?" is no question about its price
	}
	if said, ok := c.stated(r.said); ok && len(r.mentions) == 0 && len(nameMentions(said, c.now.known(), nil)) == 0 {
		return false // "how much total interest is that?" after a calculation: what its result stated, of no item named
	}
	other := c.navMatch(r.toks2, r.ps) != nil || !c.listsItems() && len(r.ps) > 0 && len(r.ps[0].values) > 0
	return !(r.numbers && other)
}

// twoClose asks which of the two best plans is meant when both clearly match about as well.
func (c *conv) twoClose(r *reading) (intent, bool) {
	best, second := r.best, r.ps[1]
	// (a filter and a sort are both done: callBest)
	near := second.def.Name != best.def.Name && isOrdering(best) == isOrdering(second) && second.score >= threshold && second.score >= 0.9*best.score &&
		len(second.missing) == 0 && len(best.missing) == 0 && c.clearMatch(second, r.toks2, r.question) &&
		len(second.values) > 0 && len(best.values) > 0
	if !near {
		return intent{}, false
	}
	// "electric ones" after the SUVs: a kind of those shown, named without a verb of opening
	// or comparing the items that have it, narrows the list
	ofItems := func(p *plan) bool { return slices.ContainsFunc(p.schema.props, takesIDs) && !saysVerb(r.toks, p.def) }
	if l := c.lister(); l != nil && ofItems(best) && ofItems(second) && !r.question && slices.ContainsFunc(r.toks, func(t token) bool { return strings.EqualFold(t.raw, "ones") || strings.EqualFold(t.raw, "only") }) {
		if i := slices.IndexFunc(r.plain, func(p *plan) bool { return p.def.Name == l.def.Name && len(p.values) > 0 }); i >= 0 {
			narrow := *r // (read with the items' names, the kind is gone: r.plain has it)
			narrow.best, narrow.toks2 = r.plain[i], r.toks
			c.carryOver(narrow.best, false)
			return c.callBest(&narrow)
		}
	}
	if in, ok := c.whichOfKind(r, best, second); ok {
		return in, true
	}
	return c.choose("Which do you mean:", []*plan{best, second}), true
}

// whichOfKind asks which one of several items of a kind the visitor means, each choice opening
// its page, when one plan opens an item and the other compares them all: "the hybrid one" or
// "open the hybrid one" with three hybrids shown (not "compare the hybrid ones").
func (c *conv) whichOfKind(r *reading, a, b *plan) (intent, bool) {
	if opener(b.def) {
		a, b = b, a
	}
	var ids []string
	for _, q := range b.schema.props {
		if _, list := idParam(q); list {
			ids, _ = b.values[q.name].([]string)
		}
	}
	if !opener(a.def) || len(ids) < 2 || saysVerb(r.toks, b.def) || !anyNorm(r.toks, "one") && !saysVerb(r.toks, a.def) {
		return intent{}, false
	}
	var chs []choice
	for _, id := range ids[:min(3, len(ids))] {
		it := cmp.Or(c.before.items[id], c.now.items[id])
		if it == nil {
			return intent{}, false
		}
		p := *a
		p.values = map[string]any{}
		for _, q := range a.schema.props {
			if single, _ := idParam(q); single {
				p.values[q.name] = id
			}
		}
		chs = append(chs, choice{theTitle(it), &p})
	}
	return intent{reply: "Which one do you mean: " + joinList(labels(chs), "or") + "?", choices: chs}, true
}

// callBest calls the best plan: with the values of the conversation's last call of its tool
// it keeps, its list edits applied; or asks for what it still lacks.
func (c *conv) callBest(r *reading) (intent, bool) {
	best := r.best
	l, compare := c.lister(), c.comparer(r)
	listing := l != nil && l.def.Name == best.def.Name // the best plan is the page's list
	if m, _ := c.coverage(best, r.toks); m == 0 && named(best.def.Name, commitFirst) && len(best.missing) > 0 {
		return intent{reply: c.deadEnd()}, true // "what time does the first one leave?", "mark the first one done" (of flights) book nothing
	}
	if navTool(best.def) && slices.ContainsFunc(r.toks, func(t token) bool {
		return t.kind == kindDate || t.kind == kindTime || t.kind == kindWord && dayWords[t.norm] && t.norm != "next"
	}) {
		best.opens = true // "test drive it this sat" on the car's page: the day is read on the booking page
	}
	if ws := identWords(best.def.Name); named(best.def.Name, commitFirst) && len(best.schema.props) == 0 && !navTool(best.def) &&
		slices.ContainsFunc(ws[1:], func(w string) bool { return anyNorm(r.toks, normWord(w)) }) {
		// "I'd like to book a test drive of this car" on the booking page, its form never
		// filled: the form's question, not a booking that fails ("book it" presses the button,
		// and the page says what it lacks)
		if i := slices.IndexFunc(r.ps, func(p *plan) bool {
			return !named(p.def.Name, commitFirst) && !navTool(p.def) && !opener(p.def) && len(p.missing) >= 2 && c.lastArgs(p.def.Name, "") == nil
		}); i >= 0 {
			c.contactsSaid(r.ps[i], maps.Clone(r.ps[i].values))
			return c.askMissing(r.ps[i], r.said), true
		}
	}
	if compare != nil && l != nil && best.def.Name == compare.def.Name && len(r.refs) == 0 {
		if i := slices.IndexFunc(r.ps, func(p *plan) bool { return p.def.Name == l.def.Name && len(p.values) > 0 && p.score >= threshold }); i >= 0 {
			return c.compareAll(r.ps[i], compare), true // "the hondas side by side instead": not the cars compared before
		}
	}
	own := maps.Clone(best.values) // what the words themselves set
	if listing && (anyNorm(r.toks, "rather", "prefer") || allKind(r.toks) ||
		anyNorm(r.toks, "instead") && anyNorm(r.toks, listNoun(l.def.Name, 2), listNoun(l.def.Name, 1))) {
		// "I'd rather look at electric cars instead" after SUVs under $35,000, "how about all
		// pickups" after those under 40 grand: a new search
	} else if narrows(r.toks) || c.onlyValues(best, r.toks) || listing && wordAt(r.toks, 0, "make") && wordAt(r.toks, 1, "that", "it") {
		// ("make that 2022 or newer" of the SUVs: those)
		c.carryOver(best, false)
	} else if c.followsUp(best) {
		c.carryOver(best, len(best.missing) == 0)
	}
	if q, ok := c.applyEdits(best); !ok {
		return q, true
	}
	c.contactsSaid(best, own)
	if named(best.def.Name, commitFirst) && !c.commitWord(best, r.toks) && c.answering != best.def.Name {
		// never an application for details alone: "book it tomorrow at 11, i'm raj das …" on
		// the calculator is a drive, where a page's words lead; else asked first
		if in, ok := c.elsewhere(r.toks2, r.ps, r.pronoun); ok {
			return in, true
		}
		if len(best.missing) == 0 {
			return c.choose("Should I", []*plan{best}), true
		}
	}
	if l := c.lister(); l != nil && r.lookup && len(r.refs) == 0 && len(c.before.last) == 0 && slices.ContainsFunc(best.missing, func(m *property) bool { single, _ := idParam(m); return single }) {
		// "an appointment with a dermatologist on friday …" before any doctor was listed: the
		// list first, with what the words filter, then the request again with its names
		lp := l
		if i := slices.IndexFunc(r.ps, func(p *plan) bool { return p.def.Name == l.def.Name && len(p.values) > 0 && len(p.missing) == 0 }); i >= 0 {
			lp = r.ps[i]
		}
		return (&lookup{said: r.said, l: lp}).intent(), true
	}
	if it := c.readLast(); len(r.refs) == 0 && (len(c.before.last) == 1 || it != nil) && c.lister() != nil {
		// "book 2 for me, x@y.de" with one event shown: that one; "book a viewing tomorrow"
		// after the studio's details were read: the studio
		if it == nil {
			it = c.before.last[0]
		}
		for _, m := range best.missing {
			if single, _ := idParam(m); single {
				best.values[m.name] = it.id
			}
		}
		best.missing = slices.DeleteFunc(best.missing, func(m *property) bool { return best.values[m.name] != nil })
	}
	if len(best.missing) > 0 {
		return c.askMissing(best, r.said), true
	}
	if listing {
		if other, said := c.oneOfTwo(best, r.text); other != "" {
			// "sedan or hatchback under 25k" of a filter that takes one body type: the first,
			// said, and the other offered
			return intent{steps: func(*conv) []*plan { return []*plan{best} }, final: func(c *conv) string {
				return strings.TrimSuffix(c.summary(), ".") + ". The list filters one " + other + " at a time: " + c.offer([]string{said}, "", true) + " shows the others."
			}}, true
		}
	}
	if listing && anyNorm(r.toks, "open", "pull") {
		// "open the volvo" before the list was shown: the filter, then the one car it shows
		return intent{steps: func(c *conv) []*plan {
			if len(c.done) > 0 && len(c.now.last) == 1 {
				if in, ok := c.openFor(c.now.last[0]); ok {
					return []*plan{best, in.first(c)}
				}
			}
			return []*plan{best}
		}}, true
	}
	if opener(best.def) || navTool(best.def) {
		// "finance the RAV4": the car's page opens, and the words it leaves are read again
		// there (Planner.goOn).
		if _, unmatched := c.coverage(best, r.toks2); unmatched > 0 || (r.numbers || perMonth(r.toks)) && navTool(best.def) ||
			hubTool(best.def) && c.backToItem(r.toks, true) {
			best.opens = true // "72 months", "monthly again" go to the calculator, which takes them
		}
	}
	if compare != nil && listing {
		return c.compareAll(best, compare), true // "compare all the minivans"
	}
	if isOrdering(best) {
		// "everything under $25k sorted by price": filter with the other words, then sort.
		if f := c.filterBesides(r.text, r.toks, best); f != nil {
			return intent{steps: func(*conv) []*plan { return []*plan{f, best} }}, true
		}
	} else if slices.ContainsFunc(r.toks, func(t token) bool { return sortVerbs[t.norm] }) || ordersFirst(r.toks) {
		// "hybrids under 35k sorted by mileage", "suvs, newest first": the filter is best; the
		// sort follows it.
		sorts := func(p *plan) bool { return isOrdering(p) && len(p.values) > 0 && len(p.missing) == 0 }
		if i := slices.IndexFunc(r.ps, sorts); i > 0 {
			return intent{steps: func(*conv) []*plan { return []*plan{best, r.ps[i]} }}, true
		}
	}
	if no := c.notOffered(r.toks); no != "" {
		for k := range c.earlierCalls {
			if k.name == best.def.Name && k.args == best.arguments() {
				return intent{reply: upperFirst(no)}, true // "make it 84 months" after 60: nothing else changes
			}
			if k.name == best.def.Name {
				break
			}
		}
		// "blue with the best trim" where blue is no choice: the trim, and why not blue
		return intent{steps: callIntent(best).steps, final: func(c *conv) string { return c.summary() + " " + upperFirst(no) }}, true
	}
	if sent, send := c.sentSince(best.def.Name); sent != "" {
		// "change to 11" after the booking was made: the form changes, the booking does not
		return intent{steps: callIntent(best).steps, final: func(c *conv) string {
			return c.summary() + " What was sent before stays as it was: " + sent + ". " + upperFirst(c.offer([]string{send}, "", true)) + " sends this too."
		}}, true
	}
	if listing && r.question && asksField(r.toks) && !r.hasRank {
		// "What is the mileage of the Kia?": the make's list, then what it says of the one listed
		return intent{steps: callIntent(best).steps, final: func(c *conv) string {
			if items := c.now.last; len(items) == 1 {
				if said, ok := c.answerAbout(r.text, r.toks, items, order{}, false, nil); ok {
					return said
				}
			}
			return c.summary()
		}}, true
	}
	return callIntent(best), true
}

// sentSince is what a sending tool of this page said (its result's first sentence), when it
// ran after the last call of the form tool named, and the words that run it again; "" when
// none did.
func (c *conv) sentSince(form string) (string, string) {
	if !slices.ContainsFunc(c.calls, func(k call) bool { return k.name == form && strings.Contains(unwrap(k.result).text, "not submitted") }) {
		return "", "" // no form the page keeps until it is sent
	}
	for k := range c.earlierCalls {
		if k.name == form {
			return "", ""
		}
		if out, ok := c.sent(k); ok && c.offers(k.name) && noArguments(k.args) { // (back_to_inventory sends nothing)
			return sentSaid(out), identPhrase(k.name)
		}
	}
	return "", ""
}

// sentAsked asks what was sent: "which car did I book?", "when is my test drive?", "what did
// I apply with?".
var sentAsked = regexp.MustCompile(`(?i)\b(?:did\s+(?:i|we)\s+(?:book|apply|reserve|submit|send|order)|(?:is|was|'s)\s+(?:my|our)\s+(?:[\w-]+\s+){0,2}(?:booking|drive|appointment|application|reservation|order))\b`)

// sentOf is what the result of the earlier call that sent a form of words toks said ("Booked
// test drive TD-4821: 2023 Tesla Model Y on 2026-12-06 at 11:00 for Peter Lind"); "" when none.
func (c *conv) sentOf(toks []token) string {
	for k := range c.earlierCalls {
		if out, ok := c.sent(k); ok && out.text != "" &&
			slices.ContainsFunc(identWords(k.name), func(w string) bool { return anyNorm(toks, w) }) {
			return sentSaid(out)
		}
	}
	return ""
}

// sentSaid is what a sending call's result says it did, its first sentence without the
// details in brackets or the full stop: "Booked test drive TD-4821: 2023 Toyota RAV4 on …".
func sentSaid(out toolOutput) string {
	first, _, _ := strings.Cut(sentenceEnd.Split(out.text, 2)[0], " (")
	return strings.TrimSuffix(first, ".")
}

// sent is the result of call k when it sent something (book_test_drive, apply_for_financing:
// a tool named to commit that goes nowhere) and it went in; ok false for any other call.
func (c *conv) sent(k call) (out toolOutput, ok bool) {
	out = unwrap(k.result)
	return out, named(k.name, commitFirst) && !navTool(c.toolDef(k.name)) && k.done && !out.isError
}

// contactToken is an e-mail or a phone number: what makes a message contact details.
func contactToken(t token) bool { return t.kind == kindEmail || t.kind == kindPhone }

// contactsSaid fills the plan's missing e-mail, phone and name from the latest earlier
// message that gave an e-mail address ("Sam Kay, sam@kay.com" on the financing page, then a
// test drive): details said once are kept, for every form that asks for them.
func (c *conv) contactsSaid(p *plan, own map[string]any) {
	contact := func(m *property) bool { return emailKind.wants(m) || phoneKind.wants(m) || nameKind.wants(m) }
	last := -1 // the tool's last call, whose values carryOver kept
	for _, k := range c.calls {
		if k.name == p.def.Name && k.at < c.lastUser {
			last = k.at
		}
	}
	latest := true
	for i := c.lastUser - 1; i >= 0; i-- {
		m := c.msgs[i]
		if m.Role != chat.RoleUser || !slices.ContainsFunc(tokenize(m.Content), contactToken) && !nameIntro.MatchString(m.Content) && !c.personName(m.Content) {
			continue
		}
		if i < last && !slices.ContainsFunc(p.missing, contact) || !latest && !slices.ContainsFunc(p.schema.props, func(q *property) bool {
			return contact(q) && p.values[q.name] == nil
		}) {
			return
		}
		said := rankPlans(m.Content, []chat.ToolDef{p.def})[0]
		// (and what else that message said for this tool, when it asked for it: "i'm Ben Olsen,
		// ben@…, earning about 52k a year", then a payment, then "sure, apply")
		// (an earlier message, with a detail the later one did not give: "my name is Grace
		// Holloway", then her phone, then her e-mail, fills each)
		forIt := latest && rankPlans(m.Content, c.tools)[0].def.Name == p.def.Name
		for _, q := range p.schema.props {
			// details given after the tool's last call replace those it kept
			if v, ok := said.values[q.name]; ok && (contact(q) || forIt && p.values[q.name] == nil) && own[q.name] == nil &&
				(p.values[q.name] == nil || latest && i > last) {
				p.values[q.name] = v
			}
		}
		p.missing = slices.DeleteFunc(p.missing, func(q *property) bool { return p.values[q.name] != nil })
		latest = false
	}
}

// nameIntro is a message that gives the visitor's name: "my name is Grace Holloway", "I'm
// Hannah Scott".
var nameIntro = regexp.MustCompile(`(?i:\bmy\s+name(?:\s+is|'s|’s)\s)|\b(?:[Ii]'m|[Ii]’m|[Ii]\s+am|[Ii]m)\s+\p{Lu}`)

// thenGo splits a request that does something here and then goes elsewhere ("make it red
// and then go to the test drive page") into the plan here and the navigation; nav is nil when
// the request is not both.
func (c *conv) thenGo(best *plan, r *reading) (first, nav *plan) {
	if !anyNorm(r.toks, "and", "then") && !perMonth(r.toks) { // "whats the payment with the turbo trim"
		return nil, nil
	}
	here := func(p *plan) bool {
		// ("book it and take me to financing": a tool of no parameters, by its verb)
		bare := len(p.schema.props) == 0 && named(p.def.Name, commitFirst) && c.commitWord(p, r.toks)
		return !navTool(p.def) && !opener(p.def) && (len(p.values) > 0 || bare) && len(p.missing) == 0 && p.score >= threshold &&
			(!named(p.def.Name, commitFirst) || c.commitWord(p, r.toks)) // never an application for its details alone
	}
	if i := slices.IndexFunc(r.ps, here); navTool(best.def) && i >= 0 {
		return r.ps[i], best
	} else if here(best) {
		// (not the words of its values: "blue then, with the xdrive trim" goes nowhere)
		rest := slices.DeleteFunc(slices.Clone(r.toks2), func(t token) bool {
			return slices.ContainsFunc(slices.Collect(maps.Values(best.values)), func(v any) bool {
				s, ok := v.(string)
				return ok && strings.EqualFold(s, t.raw)
			})
		})
		return best, c.navMatch(rest, r.ps)
	}
	return nil, nil
}

// filtersDropped is the list's last search without the filters the visitor lets go of
// ("forget the price limit", "any make is fine", "no colour filter"), with the values the
// words set; nil when the words drop none the search has.
func (c *conv) filtersDropped(r *reading) *plan {
	l := c.lister()
	if l == nil || !c.listsItems() {
		return nil
	}
	prev := c.lastArgs(l.def.Name, "")
	var dropped []string
	for _, q := range l.schema.props {
		for i, t := range r.toks {
			names := t.kind == kindWord && slices.ContainsFunc(q.words, func(w string) bool {
				return w != "max" && w != "min" && !vagueParamWords[w] && len(w) > 2 && wordsMatch(t.norm, w)
			})
			if prev[q.name] != nil && names && slices.ContainsFunc(r.toks[max(0, i-3):i], func(t token) bool { return dropWords[t.norm] }) {
				dropped = append(dropped, q.name)
				break
			}
		}
	}
	if len(dropped) == 0 {
		return nil
	}
	p := &plan{def: l.def, schema: l.schema, values: map[string]any{}}
	for k, v := range prev {
		if !slices.Contains(dropped, k) {
			p.values[k] = v
		}
	}
	if r.best != nil && r.best.def.Name == l.def.Name {
		maps.Copy(p.values, r.best.values) // "… just suvs"
	}
	return p
}

// dropWords let go of a filter named after them: "forget the price limit", "any make".
var dropWords = rawSet(`any forget remove drop clear no without ignore lose scrap`)

// onlyValues reports a message of values only, for a tool with nothing required, that sets
// none the last call set: "under 30k" after "suv" narrows the list, as "only under 30k" would
// ("show me SUVs" and "diesel sedans" after "convertibles" start over).
func (c *conv) onlyValues(p *plan, toks []token) bool {
	required := slices.ContainsFunc(p.schema.props, func(q *property) bool { return q.required })
	_, at := c.unknownTo(p, toks)
	// ("color blue trim XLE" after SUVs: words no tool here knows change no filter)
	unmatched := len(slices.DeleteFunc(at, func(i int) bool { return !c.vocab[toks[i].norm] && !requestWords[toks[i].norm] }))
	prev := c.lastArgs(p.def.Name, "")
	// a new choice ("hondas" after toyotas) starts again; a new bound ("under 28k") narrows
	changes := slices.ContainsFunc(p.schema.props, func(q *property) bool {
		return p.values[q.name] != nil && prev[q.name] != nil && !q.schema.isNumber()
	})
	// "suvs under 30k" back on the list after a car's page: a new search, not the Teslas narrowed
	opened := false
	for k := range c.earlierCalls {
		if opened = openedID(k) != ""; opened || k.name == p.def.Name {
			break
		}
	}
	for i, t := range toks {
		bound := wordAt(toks, i, "or") && wordAt(toks, i+1, "newer", "older", "more", "less", "later", "earlier", "above", "below", "over", "under") // ("2022 or newer")
		if requestWords[t.norm] && !politeWords[t.norm] && !bound || listVerbs[t.norm] || toolVerbs[t.norm] {                                        // ("under 20000 km, please")
			return false
		}
	}
	return !required && len(p.values) > 0 && !(opened && len(p.values) > 1) && unmatched == 0 && !changes
}

// rewriteShares writes a share of the price as its amount ("20% down" becomes "4380 down")
// for a money parameter of the page that the word after it names, when the conversation's
// latest result stated the price.
func (c *conv) rewriteShares(text string) string {
	base := c.statedPrice()
	if low := strings.ToLower(text); base == 0 || !strings.Contains(low, "%") && !strings.Contains(low, "percent") && !strings.Contains(low, "pct") {
		return text // nothing to take a share of, or no share: the text is not read again
	}
	toks := tokenize(text)
	for i := len(toks) - 1; i >= 0; i-- {
		if c.shareOf(toks, i) != "" {
			end := toks[i].end // and what it is of: "10% of the price"
			if j := wordsFrom(toks, i+1, "of", "the", "its"); wordAt(toks, i+1, "of") && wordAt(toks, j, "price", "cost", "total", "car", "it") {
				end = toks[j].end
			}
			text = text[:toks[i].start] + strconv.Itoa(int(math.Round(base*toks[i].value/100))) + text[end:]
		}
	}
	return text
}

// shareFirst is the request without its share of the price ("60 months" of "20% down over
// 60 months") when no result before this page's calls stated the price and the request
// needs nothing else and names no item ("finance the 330i, 20% down" is the 330i's); nil
// otherwise.
func (c *conv) shareFirst(r *reading) *plan {
	sh := c.shareAt(tokenize(r.said))
	p := r.best
	if sh == "" || p == nil || p.score < threshold || len(p.missing) > 0 || len(r.mentions) > 0 || len(c.unknownWords(r.toks2, p)) > 0 || statedPriceIn(c.msgs[:max(c.start, 0)]) != 0 {
		return nil
	}
	_, word, _ := strings.Cut(sh, " ")
	i := slices.IndexFunc(p.schema.props, func(q *property) bool { return moneyParam(q) && matchesParam(normWord(word), q) })
	if i < 0 {
		return nil
	}
	first := *p
	first.values = maps.Clone(p.values)
	delete(first.values, p.schema.props[i].name)
	return &first
}

// shareAt is the share of an amount the words give ("20% down") for a money parameter of
// the page, or "".
func (c *conv) shareAt(toks []token) string {
	for i := range toks {
		if w := c.shareOf(toks, i); w != "" {
			return strconv.FormatFloat(toks[i].value, 'f', -1, 64) + "% " + w // ("twenty percent" is one token)
		}
	}
	return ""
}

// shareOf is the word of the page's money parameter that the share at toks[i] is of: the
// word after it ("20% down", "20% of the price down") or before it ("a down payment of 10%", "the down payment was
// 10%", "put down about 10%"); "" when it is no share ("at 10%" is a rate).
func (c *conv) shareOf(toks []token, i int) string {
	names := func(t token) bool {
		return c.hasParam(func(p *property) bool { return moneyParam(p) && matchesParam(t.norm, p) })
	}
	if !toks[i].percent {
		return ""
	}
	next := i + 1
	if wordAt(toks, next, "of") && wordAt(toks, next+1, "the", "its", "this", "that") && wordAt(toks, next+2, "price") {
		next += 3 // "20% of the price down"
	}
	if next < len(toks) && names(toks[next]) {
		return toks[next].raw
	}
	for j := i - 1; j >= 0 && (names(toks[j]) || wordAt(toks, j, "of", "was", "is", "be", "to", "would", "about", "around", "roughly", "maybe")); j-- {
		if names(toks[j]) && !(j > 0 && toks[j-1].kind == kindNumber && !toks[j-1].percent) { // ("15k down 3.9%": its amount said, the rate after)
			return toks[j].raw
		}
	}
	return ""
}

// moneyParam reports a parameter for an amount of money.
func moneyParam(p *property) bool { return p.schema.isNumber() && hasWord(p, moneyWords...) }

// statedPriceRe is a price a result states: "total $37,990", "(price $21,900", "at $35,390".
var statedPriceRe = regexp.MustCompile(`(?i)\b(?:total|price|at)\s+([$£€]\s?[0-9][0-9,]*(?:\.[0-9]+)?)`)

// totalAsked asks what is paid in all: "what's the total cost?", "how much would I pay altogether?".
var totalAsked = regexp.MustCompile(`(?i)\btotal\s+(?:cost|price|paid|amount|i'?d\s+pay|i\s+(?:would|will)\s+pay|to\s+pay)\b|\b(?:pay|paying|cost|costs)\b[^?.!]*\b(?:in\s+total|altogether|overall|all\s+in)\b`)

// interestRe is the interest a calculation's result states: "Total interest $4,092.00".
var interestRe = regexp.MustCompile(`(?i)\binterest\s+([$£€]\s?[0-9][0-9,]*(?:\.[0-9]+)?)`)

// totalPaid says what the latest calculation costs in all, its price and its interest, from
// what its result stated; "" when no result stated both.
func (c *conv) totalPaid() string {
	last := resultIn(c.msgs[:c.lastUser])
	in := interestRe.FindStringSubmatch(last)
	price := statedPriceIn([]chat.Message{{Role: chat.RoleTool, Content: last}})
	if in == nil || price == 0 {
		return ""
	}
	interest, _ := parseMoney(in[1])
	f := priceField
	return fmt.Sprintf("In all %s: the price %s and %s interest (a down payment is part of the price).",
		f.value(price+interest, c.before.money), f.value(price, c.before.money), in[1])
}

// statedPrice is the last price the latest result of the turn or before it that states one
// states; 0 when none does. (A question's request read again later is read as it was.)
func (c *conv) statedPrice() float64 {
	end := len(c.msgs)
	if i := slices.IndexFunc(c.msgs[c.lastUser+1:], func(m chat.Message) bool { return m.Role == chat.RoleUser }); i >= 0 {
		end = c.lastUser + 1 + i
	}
	return statedPriceIn(c.msgs[:end])
}

// statedPriceIn is the price the newest result of msgs stated, or 0.
func statedPriceIn(msgs []chat.Message) float64 {
	for _, m := range slices.Backward(msgs) {
		if ms := statedPriceRe.FindAllStringSubmatch(m.Content, -1); m.Role == chat.RoleTool && ms != nil {
			v, _ := parseMoney(ms[len(ms)-1][1])
			return v
		}
	}
	return 0
}

// filterBesides is the clear filtering plan of the words that the ordering plan sorter
// leaves ("everything under $25k" of "everything under $25k sorted by price"), or nil.
func (c *conv) filterBesides(text string, toks []token, sorter *plan) *plan {
	var b strings.Builder
	prev := 0
	for i, t := range toks {
		order := slices.ContainsFunc(hints[t.norm], func(h string) bool { return h == "asc" || h == "desc" }) // "cheapest first"
		if i < len(sorter.used) && sorter.used[i] || t.kind == kindWord && (sortWords[t.norm] || sortFillers[t.norm] || order) {
			b.WriteString(text[prev:t.start])
			prev = t.end
		}
	}
	b.WriteString(text[prev:])
	rest := strings.TrimSpace(b.String())
	if k := slices.IndexFunc(toks, func(t token) bool { return sortVerbs[t.norm] }); k > 0 {
		rest = text[:toks[k].start] // "the electric cars, sorted from cheapest to most expensive"
	}
	f := route(rest, c.tools) // nil when nothing is left or it scores too low
	if f == nil || f.def.Name == sorter.def.Name || len(f.missing) > 0 || len(f.values) == 0 ||
		isOrdering(f) || wantsIDs(f) || !c.clearMatch(f, tokenize(rest), false) {
		return nil
	}
	return f
}

// negated reports a message that opens by saying not to do something: "don't cancel it",
// "please do not book", "never mind". ("No breakfast" is a value, not a refusal.)
func negated(toks []token) bool {
	i := 0
	for wordAt(toks, i, "please", "no", "ok", "okay", "wait", "actually", "oh") {
		i++
	}
	return wordAt(toks, i, "don't", "dont", "never") && i+1 < len(toks) ||
		wordAt(toks, i, "do") && wordAt(toks, i+1, "not")
}

// normAt reports a word at toks[i] whose normal form is one of ws: "abt" is "about".
func normAt(toks []token, i int, ws ...string) bool {
	return i >= 0 && i < len(toks) && toks[i].kind == kindWord && slices.Contains(ws, toks[i].norm)
}

// wordAt reports a word at toks[i] that is one of ws (in lower case, ’ written ').
func wordAt(toks []token, i int, ws ...string) bool {
	return i >= 0 && i < len(toks) && toks[i].kind == kindWord &&
		slices.Contains(ws, strings.ToLower(strings.ReplaceAll(toks[i].raw, "’", "'")))
}

// group are the items "them" points at: those the last reply named, or a last list of two
// or three.
func (c *conv) group() []*item {
	if named := c.lastNamed(); len(named) >= 2 || !c.fewSeen() {
		return named
	}
	return c.before.last
}

// countAsk is a count asked for in words no tool has: "get me 3", "i'll take 2", "book 2 for me".
var countAsk = regexp.MustCompile(`(?i)^\s*(?:i'?ll\s+take|i'?d\s+like|i\s+want|(?:can|could)\s+(?:i|we|you)\s+(?:get|grab|book|reserve)|get|grab|take|book|reserve)(?:\s+(?:me|us))?\s+(\d{1,2})(?:\s+(?:for\s+(?:me|us)|please|pls|then))?\s*[.!?]*\s*$`)

// countVerb is countAsk's count said with the verb of the page's one tool that takes an item
// and an integer the count fits ("buy 3"); "" for other words, or when no one tool does.
func (c *conv) countVerb(said string) string {
	m := countAsk.FindStringSubmatch(said)
	if m == nil {
		return ""
	}
	n, _ := strconv.Atoi(m[1])
	var verbs []string
	for _, t := range c.tools {
		ps := parseSchema(t.Parameters).props
		item := slices.ContainsFunc(ps, func(p *property) bool { single, _ := idParam(p); return single })
		count := slices.ContainsFunc(ps, func(p *property) bool {
			return slices.Contains(p.schema.types, "integer") && p.schema.valid(float64(n))
		})
		if w := identWords(ownName(t.Name)); item && count && len(w) > 0 && toolVerbs[w[0]] {
			verbs = append(verbs, w[0])
		}
	}
	if len(verbs) != 1 {
		return ""
	}
	return verbs[0] + " " + m[1]
}

// isTheRank asks which choice ranks: "which colour is the cheapest".
var isTheRank = regexp.MustCompile(`(?i)\b(?:is|are|was|'s)\s+the\s+\w+est\b`)

// rankedOne is the one item of those shown that the ranking asked picks ("the cheapest"), or
// nil (several tie, or fewer than two are shown).
func (c *conv) rankedOne(r *reading) *item {
	if r.memRank && len(r.refs) == 1 {
		return r.refs[0]
	}
	if w := ranked(c.before.last, r.order); len(c.before.last) >= 2 && len(w) > 0 && len(tiedWith(c.before.last, r.order, w[0])) <= 1 && max(r.n, 1) == 1 {
		return w[0]
	}
	return nil
}

// choosable are the items a pick is among: those just named or seen (group), else the last list.
func (c *conv) choosable() []*item {
	if g := c.group(); len(g) >= 2 {
		return g
	}
	return c.before.last
}

// fewSeen reports a last list of two or three items: "them" may be all of them.
func (c *conv) fewSeen() bool {
	return len(c.before.last) >= 2 && len(c.before.last) <= 3
}

// pluralPronoun reports words that point at the items just listed: "them", "these", "those",
// "both", "all of them".
func pluralPronoun(toks []token) bool {
	for i := range toks {
		if wordAt(toks, i, "them", "em", "these", "those", "both", "they", "their") || wordAt(toks, i, "all") && (wordAt(toks, i+1, "two", "three", "four") || i+1 < len(toks) && toks[i+1].kind == kindNumber) {
			return true
		}
	}
	return false
}

// manyOrOther reports words of more than one item, or of another one: "compare both Audis",
// "the other Tesla".
func manyOrOther(toks []token) bool {
	return pluralPronoun(toks) || anyNorm(toks, "other", "another", "all", "compare", "each", "every")
}

// anyNorm reports a word of toks whose normal form is one of ws.
func anyNorm(toks []token, ws ...string) bool {
	return slices.ContainsFunc(toks, func(t token) bool { return slices.Contains(ws, t.norm) })
}

// differs reports a question of how the items differ: "whats the difference in price".
func differs(toks []token) bool {
	return slices.ContainsFunc(toks, func(t token) bool { return differWords[t.norm] })
}

// justNamed is the one item the last reply named, or named first as the answer ("The Miata
// is the cheaper, at … (the 430i is …)"); nil when none.
func (c *conv) justNamed() *item {
	if named := c.lastNamed(); len(named) == 1 {
		return named[0]
	}
	return c.leadNamed()
}

// leadNamed is the one item the first clause of the last reply names ("The 2021 Toyota Tacoma
// is the cheapest, at $34,500 (the 2021 Ford F-150 is …)"), or nil.
func (c *conv) leadNamed() *item {
	lead, _, _ := strings.Cut(c.lastReply(), "(")
	if named := c.itemsNamed(lead); len(named) == 1 {
		return named[0]
	}
	return nil
}

// asksDifference reports a question of how much two items differ: "whats the difference in
// price", "how much more is the 330i", "how much less is it".
func asksDifference(toks []token) bool {
	much := slices.IndexFunc(toks, func(t token) bool { return t.norm == "much" })
	return differs(toks) || much > 0 && toks[much-1].norm == "how" && (wordAt(toks, much+1, "more", "less", "cheaper") || wordAt(toks, much-2, "by"))
}

// differWords ask how items differ (a set, so that respell knows them).
var differWords = rawSet("difference differ apart")

// plainAction reports a request that clearly calls a tool taking no item, and names no tool
// that takes one, whatever "it" stands for: "close it" in the comparison drawer closes the
// drawer, it opens no car; "book it for Friday" still books the room "it" is.
func (c *conv) plainAction(r *reading) bool {
	ps := r.plain
	if len(ps) == 0 || ps[0].score < threshold || !c.clearMatch(ps[0], r.toks, r.question) {
		return false
	}
	return !slices.ContainsFunc(ps, func(p *plan) bool {
		return slices.ContainsFunc(p.schema.props, takesIDs) && (p == ps[0] || c.nameHit(p, r.toks))
	})
}

// allKind reports "all" said of a kind ("all pickups"), not of those shown ("all the red
// ones", "all of them", "all three").
func allKind(toks []token) bool {
	i := slices.IndexFunc(toks, func(t token) bool { return t.norm == "all" })
	return i >= 0 && i+1 < len(toks) && toks[i+1].kind == kindWord && !wordAt(toks, i+1, "of", "the", "those", "these", "them", "two", "three", "four")
}

// narrows reports words that narrow what is shown rather than start over ("only the
// hybrids", "just the red ones", "red ones?", "which of those are electric", "also under
// 30k", "keep it below 30k") or change
// one thing of the last request ("and at 3.9%?", "what about 48 months?", "under 45k then").
func narrows(toks []token) bool {
	words := slices.DeleteFunc(slices.Clone(toks), func(t token) bool { return t.kind == kindPunct })
	if wordAt(toks, 0, "and", "with") || normAt(toks, 0, "what", "how") && normAt(toks, 1, "about") || // ("wat abt suvs", "with under 30k miles")
		wordAt(toks, 0, "which") && wordAt(toks, 1, "is", "one", "ones", "are") || // "which is best for a family" of those shown
		wordAt(words, len(words)-1, "then") { // "under 45k then"
		return true
	}
	for i := range toks {
		ofThose := wordAt(toks, i, "of", "among") && wordAt(toks, i+1, "those", "these", "them")
		theOne := wordAt(toks, i, "the") && wordAt(toks, i+2, "one", "ones") // "open the red one": of those shown
		// "is there one that's diesel?", "any that are red?": one of those shown
		oneThat := wordAt(toks, i, "one", "ones", "any") && wordAt(toks, i+1, "that", "which", "thats", "that's")
		// "red ones?" after electric SUVs: ones of those; "keep it below 30k": the same, bounded
		// ("red one pls" to begin with: one of those)
		ones := i > 0 && (wordAt(toks, i, "ones") || i == 1 && wordAt(toks, i, "one")) && toks[i-1].kind == kindWord && !wordAt(toks, i-1, "other", "new", "different")
		keep := wordAt(toks, i, "keep") && wordAt(toks, i+1, "it", "them", "that", "those") || wordAt(toks, i, "stay") // "we'd like to stay under 35k"
		if wordAt(toks, i, "only", "just", "also", "too", "instead", "rather") || ofThose || theOne || oneThat || ones || keep {
			return true
		}
	}
	return false
}

// applyEdits turns the list parameters the text changes ("add the tech package", "remove the
// roof") into whole lists, from the list of the conversation's last call of the tool that
// set it. A removal with no such call cannot be applied (the page may hold any list): it
// is answered with a question instead (ok false), whose choices are the plan with none of
// the list, or with one of it.
func (c *conv) applyEdits(p *plan) (question intent, ok bool) {
	for name, e := range p.edits {
		var prev []string
		if json.Unmarshal(c.lastArgs(p.def.Name, name)[name], &prev) != nil { // none, or no list
			if len(e.drop) == 0 {
				continue // "add the winter package": what the page had is not known; this is what was asked
			}
			with := func(label string, list ...string) choice {
				ch := choice{label, &plan{}}
				*ch.plan = *p
				ch.plan.values, ch.plan.edits = maps.Clone(p.values), nil
				ch.plan.values[name] = append([]string{}, list...) // (never null)
				return ch
			}
			all := []choice{with("none")} // the list's choices (its items are a string enum: route's enums)
			for _, q := range p.schema.props {
				if q.name == name && q.schema.items != nil {
					for _, v := range q.schema.items.enum {
						all = append(all, with(v.label(), v.str))
					}
				}
			}
			labels := labels(all[1:])
			return intent{reply: "Which " + identPhrase(name) + " should it have now: " + strings.Join(labels, ", ") +
				" or none?", choices: all}, false
		}
		out := slices.DeleteFunc(prev, func(v string) bool {
			// (the roof added to another car, whose packages this one has not, is not kept)
			return slices.Contains(e.drop, v) || !slices.ContainsFunc(p.schema.props, func(q *property) bool {
				return q.name == name && (q.schema.items == nil || q.schema.items.valid(v))
			})
		})
		for _, v := range e.add {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		p.values[name] = out
	}
	return intent{}, true
}

// lastArgs are the arguments of the conversation's last call of tool before this turn (the
// last that set param, when param is not ""); nil when there is none, or when a tool of this
// page that clears or resets ran after it.
func (c *conv) lastArgs(tool, param string) map[string]json.RawMessage {
	for k := range c.earlierCalls {
		if ws := identWords(k.name); k.name != tool && c.offers(k.name) && (slices.Contains(ws, "clear") || slices.Contains(ws, "reset")) {
			return nil // "under 30k" after "clear the filters": none of those before
		}
		var args map[string]json.RawMessage
		if k.name == tool && json.Unmarshal([]byte(k.args), &args) == nil &&
			(param == "" || args[param] != nil) {
			return args
		}
	}
	return nil
}

// carryOver adds to p the arguments of the conversation's last call of the same tool that p
// does not set itself: "only the hybrids" after "under 20,000 miles" keeps the mileage. With
// notDefaults, a parameter that has a default keeps it ("sort by year" after "price high to
// low" sorts in the default order).
func (c *conv) carryOver(p *plan, notDefaults bool) {
	prev := map[string]any{}
	if w := identWords(ownName(p.def.Name)); len(w) == 0 || !addsNew[w[0]] { // (a task added is no value of the next one)
		for k, v := range c.lastArgs(p.def.Name, "") {
			prev[k] = v
		}
	}
	if q := c.unanswered; q != nil && q.def.Name == p.def.Name {
		maps.Copy(prev, q.values) // the question came after the call
	}
	// "just suvs" after hybrid SUVs: the values said, already set, alone
	if justThat.MatchString(c.text) && len(p.values) > 0 && len(prev) > len(p.values) && !slices.ContainsFunc(slices.Collect(maps.Keys(p.values)), func(k string) bool {
		a, _ := json.Marshal(p.values[k])
		b, _ := json.Marshal(prev[k])
		return string(a) != string(b)
	}) {
		return
	}
	for _, prop := range p.schema.props {
		keep := notDefaults && len(prop.schema.def) > 0 || // the default stays, and so does a
			!prop.required && slices.Contains(p.missing, prop) // question ("add a note please")
		if _, set := p.values[prop.name]; !set && prev[prop.name] != nil && !keep && stillTakes(prop, prev[prop.name]) {
			p.values[prop.name] = prev[prop.name]
		}
		// "my name is spelled Markus, with a k" after Marcus Webb: Markus Webb
		v, _ := p.values[prop.name].(string)
		var old string
		if raw, ok := prev[prop.name].(json.RawMessage); ok {
			_ = json.Unmarshal(raw, &old)
		}
		if nameKind.wants(prop) && v != "" && !strings.Contains(v, " ") && spelledRe.MatchString(c.text) {
			if ws := strings.Fields(old); len(ws) >= 2 {
				p.values[prop.name] = v + " " + strings.Join(ws[1:], " ")
			}
		}
	}
	p.missing = slices.DeleteFunc(p.missing, func(m *property) bool { return p.values[m.name] != nil })
}

// addsNew are the verbs of tools that add a new thing each call: "add_task", "create_event".
var addsNew = rawSet(`add create append insert`)

// stillTakes reports a value carried from an earlier call that the parameter still takes: not
// the red of another car, in colours this one has not.
func stillTakes(prop *property, v any) bool {
	if raw, ok := v.(json.RawMessage); ok {
		var x any
		if json.Unmarshal(raw, &x) != nil {
			return false
		}
		v = x
	}
	return prop.schema.valid(v)
}

// spelledRe says how a name is written: "my name is spelled Markus".
var spelledRe = regexp.MustCompile(`(?i)\bspel(?:led|t)\b`)

// approval is what a value said alone may come with: "no sorry, 48 was better".
var approval = rawSet(`was better fine good best nah nope`)

// bareValue is the follow-up that gives only one number ("and at 72?", "what about 48"): the
// tool of this page with the one parameter whose enum has that number, the values of its last
// call kept; nil when the message is anything else.
func (c *conv) bareValue(toks []token) (*plan, []*plan) {
	nums := slices.DeleteFunc(slices.Clone(toks), func(t token) bool { return t.kind != kindNumber })
	other := func(t token) bool {
		return t.kind == kindWord && !stopWords[t.norm] && !correctionWords[t.norm] && !approval[strings.ToLower(t.raw)] && !bareAsk[strings.ToLower(t.raw)]
	}
	if len(nums) != 1 || slices.ContainsFunc(toks, other) {
		return nil, nil
	}
	// take is the plan of tool t with the one parameter whose choices have the number; nil
	// when none has, or two have (the planner does not guess).
	take := func(t chat.ToolDef) (p *plan, hits int) {
		s := parseSchema(t.Parameters)
		for _, q := range s.props {
			for _, e := range q.schema.enum {
				if e.isNum && e.num == nums[0].value {
					p, hits = &plan{def: t, schema: s, values: map[string]any{q.name: e.raw}}, hits+1
				}
			}
		}
		return p, hits
	}
	// "36" on the calculator, before any calculation or after: the one parameter here that offers it
	var only *plan
	for _, t := range c.tools {
		if p, hits := take(t); hits > 1 || hits == 1 && only != nil {
			return nil, nil
		} else if hits == 1 {
			only = p
		}
	}
	if only != nil {
		c.carryOver(only, false)
		return only, nil
	}
	ps := c.bareAmount(nums[0])
	if len(ps) == 1 {
		return ps[0], nil
	}
	return nil, ps
}

// bareAsk are the words that ask for a figure said alone: "can u do 5.5", "how about 2000?".
var bareAsk = rawSet(`can could would you u do try how about what if maybe instead then`)

// bareAmount are the plans of the last call's tool here with a figure said alone ("nah make
// it 1500", "can u do 5.5") in a numeric parameter without choices that it fits: one bounded
// to at most 100 when it is within that bound (a rate), else the one the visitor set before
// (the down payment); both when a whole number from 10 fits both ("how about 20").
func (c *conv) bareAmount(n token) []*plan {
	for k := range c.earlierCalls {
		t := c.toolDef(k.name)
		if !c.offers(k.name) {
			continue
		}
		s := parseSchema(t.Parameters)
		var args map[string]json.RawMessage // what the visitor set before
		_ = json.Unmarshal([]byte(k.args), &args)
		var small, set []*property
		for _, q := range s.props {
			if !q.schema.isNumber() || len(q.schema.enum) > 0 || !q.schema.valid(n.value) {
				continue
			}
			if q.schema.maximum != nil && *q.schema.maximum <= 100 {
				small = append(small, q)
			} else if args[q.name] != nil {
				set = append(set, q)
			}
		}
		pick := set
		if len(small) > 0 && (len(set) == 0 || n.value < 10 || n.value != float64(int(n.value))) {
			pick = small
		} else {
			pick = append(pick, small...)
		}
		var out []*plan
		for _, q := range pick {
			p := &plan{def: t, schema: s, values: map[string]any{q.name: n.value}}
			c.carryOver(p, false)
			out = append(out, p)
		}
		return out
	}
	return nil
}

// followsUp reports a request that changes some values of the conversation's last call of a
// tool that needs values (a calculator, a form), rather than starting a new one: "at 3.9%"
// or "with 5000 down" after "48 months" (it lacks a required value that call had), "72
// months" after "48 months at 3.9%" (a tool with required values keeps those not changed; a
// filter without any, "show me SUVs" after "hybrids", starts over). A tool that takes item
// ids is not followed up: a request for another item names it.
func (c *conv) followsUp(p *plan) bool {
	prev := c.lastArgs(p.def.Name, "")
	if prev == nil || slices.ContainsFunc(p.schema.props, takesIDs) {
		return false
	}
	if len(p.missing) == 0 {
		return slices.ContainsFunc(p.schema.props, func(q *property) bool { return q.required })
	}
	return slices.ContainsFunc(p.missing, func(m *property) bool { return prev[m.name] != nil })
}

// rankOnSeen reports a ranking about items already on screen: "the cheaper one", "which is
// cheapest", "the cheapest of them", "of the two".
func (c *conv) rankOnSeen(toks []token, at int) bool {
	if ofAll(toks) {
		return false // "the cheapest one overall": of every item, not of those shown
	}
	if strings.HasSuffix(strings.ToLower(toks[at].raw), "er") { // "cheaper", "newer", "pricier"
		return true
	}
	for i, t := range toks {
		after := i > at && i <= at+3 && (strings.EqualFold(t.raw, "one") || t.norm == "of") // "the three cheapest ones" ranks the list
		before := i < at && (t.norm == "which" || t.norm == "these" || t.norm == "those")
		if t.kind == kindWord && (after || before) {
			return true
		}
	}
	return c.fewSeen() && anyNorm(toks, "them")
}

// filtered reports that the last call of listing tool name had arguments: the list shows
// some items only (its filters stay while the visitor is on other pages).
func (c *conv) filtered(name string) bool {
	for _, k := range slices.Backward(c.calls) {
		if k.name == name {
			return !noArguments(k.args)
		}
	}
	return false
}

// ofAll reports words that ask about every item, not those the last list showed: "the
// cheapest one overall", "the newest of all", "on the lot", "in stock", "the newest car u have".
func ofAll(toks []token) bool {
	return anyNorm(toks, "overall", "altogether") || slices.ContainsFunc(toks, func(t token) bool {
		i := slices.Index(toks, t)
		return t.norm == "of" && wordAt(toks, i+1, "all", "everything") || wordAt(toks, i, "on") && wordAt(toks, i+1, "the") && wordAt(toks, i+2, "lot") ||
			wordAt(toks, i, "in") && wordAt(toks, i+1, "stock") || wordAt(toks, i, "you", "u") && wordAt(toks, i+1, "have", "got") && i+2 == len(toks)
	})
}

// sortCue reports a request to reorder the list rather than to name a winner: "cheapest
// first", "sort by newest", "order by price".
func sortCue(toks []token, at int) bool {
	return slices.ContainsFunc(toks, func(t token) bool {
		after := t.start > toks[at].start && (t.norm == "first" || t.norm == "top")
		return t.kind == kindWord && (sortWords[t.norm] || after)
	})
}

var sortWords = rawSet("sort sorted order ordered arrange rank ascending descending")

// sortFillers are the words besides sortWords of a sort request: "then by price", "newest first".
var sortFillers = rawSet("by first last then and")

// lastAdded is the last value the last call of the last turn, of a tool here, added to a list,
// with what one is called ("tow package" of configure_car {"packages":["tow"]}); "" when there
// is none.
func (c *conv) lastAdded() string {
	for k := range c.earlierCalls {
		var args map[string]any
		if !c.offers(k.name) || json.Unmarshal([]byte(k.args), &args) != nil {
			return ""
		}
		for _, name := range slices.Sorted(maps.Keys(args)) {
			if vs, ok := args[name].([]any); ok && len(vs) > 0 {
				if v, ok := vs[len(vs)-1].(string); ok {
					return v + " " + stem(identPhrase(name))
				}
			}
		}
		return ""
	}
	return ""
}

// countOf is n of "n of them", "3 of those"; 0 when the words say no such count.
func countOf(toks []token) int {
	for i, t := range toks {
		if t.kind == kindNumber && !t.money && t.value >= 1 && t.value <= 20 && wordAt(toks, i+1, "of") && wordAt(toks, i+2, "them", "those", "these") {
			return int(t.value)
		}
	}
	return 0
}

// questionPair splits a message of two questions at the "and" or the "?" between them: "what
// colours does it come in and how much is it?".
func questionPair(text string) (a, b string, ok bool) {
	toks := tokenize(text)
	asks := func(toks []token) bool {
		return wordAt(toks, 0, "what", "what's", "whats", "which", "how", "is", "are", "does", "do") && len(toks) > 2
	}
	for i := 1; i+1 < len(toks); i++ {
		if wordAt(toks, i, "and") || toks[i].raw == "?" {
			a, b = strings.TrimRight(text[:toks[i].start], " ,"), text[toks[i+1].start:]
			if at, bt := tokenize(a), tokenize(strings.TrimRight(b, " ?")); len(bt) == 2 && wordAt(bt, 0, "what", "which") && len(at) > 2 && wordAt(at, 0, "what", "which") {
				b = strings.TrimRight(b, " ?") + " " + a[at[2].start:] // "what colors does it come in and what trims": trims it comes in
			}
			if asks(tokenize(a)) && asks(tokenize(b)) {
				return a, b, true
			}
		}
	}
	return "", "", false
}

// askWords open a question at the end of a message (lastQuestion, requestThenQuestion).
var askWords = []string{"what", "what's", "whats", "which", "how", "is", "are", "does", "do"}

// requestThenQuestion is a request, then a question: "white please. what trims are there?",
// "make it white, and what trims are there?".
var requestThenQuestion = regexp.MustCompile(`(?i)^([^?]*\w[^?]*?)(?:[.!;]\s*|,\s*|\s+and\s+)(?:and\s+|also\s+)?((?:` +
	strings.Join(askWords, "|") + `)\b[^.!?]*\?)\s*$`)

// lastQuestion is the question that ends a message whose sentences before it ask for nothing
// to be done ("i need something that can tow."); "" when there is none.
func lastQuestion(text string) string {
	i := strings.LastIndexAny(strings.TrimRight(text, "?! "), ".!")
	if i < 0 || !strings.HasSuffix(strings.TrimSpace(text), "?") {
		return ""
	}
	before, q := tokenize(text[:i]), strings.TrimSpace(text[i+1:])
	asks := wordAt(tokenize(q), 0, askWords...)
	// ("we have three kids so …": a count in words is no figure for a tool)
	inWords := func(t token) bool { return t.kind == kindNumber && strings.IndexFunc(t.raw, unicode.IsDigit) < 0 }
	if !asks || slices.ContainsFunc(before, func(t token) bool {
		return actionVerbs[t.norm] || t.kind != kindWord && t.kind != kindPunct && !inWords(t)
	}) {
		return ""
	}
	return q
}

// bothQuestions answers two questions in one message, each as it would be on its own, when
// each is answered or read from the page (no question back, nothing done).
func (c *conv) bothQuestions(r *reading) (intent, bool) {
	a, b, _ := questionPair(r.text)
	var ins []intent
	for i, q := range []string{a, b} {
		// "which of those is the cheapest, and how much would it be per month …": "it" is the
		// one the first answer names, and the second goes where its answer is
		chained := false
		if lead := ""; i == 1 && ins[0].steps == nil && itRe.MatchString(q) {
			lead, _, _ = strings.Cut(ins[0].reply, "(")
			if named := c.itemsNamed(lead); len(named) == 1 {
				q, chained = itRe.ReplaceAllLiteralString(q, theTitle(named[0])), true
			}
		}
		in := c.understand(q, r.lookup)
		steps := []*plan(nil)
		if in.steps != nil {
			steps = in.steps(c)
		}
		if in.asked != nil || in.final != nil || in.reply == "" && len(steps) == 0 || // (choices offered are kept: "red")
			strings.HasPrefix(in.reply, "Sorry") || strings.HasPrefix(in.reply, "I'm not sure") ||
			!chained && slices.ContainsFunc(steps, func(p *plan) bool { return !reads(p.def) }) {
			return intent{}, false
		}
		ins = append(ins, in)
	}
	switch {
	case ins[0].steps == nil && ins[1].steps == nil && ins[0].reply == ins[1].reply: // "Is it safe? Does it have good crash test ratings?"
		return ins[0], true
	case ins[0].steps == nil && ins[1].steps == nil:
		return intent{reply: ins[0].reply + " " + ins[1].reply, choices: append(ins[0].choices, ins[1].choices...)}, true
	case ins[0].steps == nil:
		return intent{steps: ins[1].steps, final: func(c *conv) string { return ins[0].reply + " " + c.summary() }}, true
	case ins[1].steps == nil:
		return intent{steps: ins[0].steps, final: func(c *conv) string { return c.summary() + " " + ins[1].reply }}, true
	}
	return intent{}, false
}

// itRe is "it" or "that one" in a question: the item another answer named.
var itRe = regexp.MustCompile(`(?i)\b(?:it|that one|this one)\b`)

// isQuestion reports a question rather than a request: "can I test drive the Civic on
// Sunday?" and "could you show me SUVs?" are requests.
func isQuestion(text string, toks []token) bool {
	if wordAt(toks, 0, "can", "could", "does", "is") && wordAt(toks, 1, "it", "this", "they") {
		return true // "can it tow"
	}
	if wordAt(toks, 0, "can", "could", "would", "will") && wordAt(toks, 1, "i", "you", "we", "u") &&
		(!wordAt(toks, 2, "get", "have", "tell") || wordAt(toks, 3, "it", "this", "that") && wordAt(toks, 4, "with", "in")) {
		return false // "could you tell me …?" asks; "could i get it with the touring trim?" does
	}
	// ("do wilderness in silver and …", "do 60 months": "do" that asks no one does it)
	doIt := wordAt(toks, 0, "do") && (!wordAt(toks, 1, "you", "u", "they", "it", "i", "we", "these", "those", "any", "the", "all", "both") ||
		wordAt(toks, 1, "it", "that") && wordAt(toks, 2, "in", "with", "for", "on")) // "do it in white with the king ranch"
	return strings.HasSuffix(strings.TrimSpace(text), "?") ||
		wordAt(toks, 0, "what", "what's", "whats", "wat", "wats", "wut", "which", "how", "is", "are", "does", "who") || wordAt(toks, 0, "do") && !doIt ||
		fieldOf(toks)
}

// fieldOf tells a request that names fields of an item as a noun phrase, which asks them:
// "price and mileage of the Kia Sportage", "the mileage of the rav4".
func fieldOf(toks []token) bool {
	k := 0
	if wordAt(toks, 0, "the") {
		k = 1
	}
	if k >= len(toks) || !slices.ContainsFunc(fields, func(f *field) bool { return slices.Contains(f.words, toks[k].norm) }) {
		return false
	}
	of := slices.IndexFunc(toks, func(t token) bool { return t.norm == "of" })
	return of > k && of <= k+4
}

// genericNameWords are words of tool names that say what the page is about, not what to do.
var genericNameWords = rawSet("get data info car item product")

// hasParam reports whether a tool of the page has a parameter that wants.
// surname reports a name of several items said as a person's last name: right after a word of
// no request, beside an e-mail or phone, on a page whose form takes a name ("Lena Ford
// lena@ford.io").
func (c *conv) surname(toks []token, m mention) bool {
	i := slices.IndexFunc(toks, func(t token) bool { return t.end > m.start }) - 1
	return i >= 0 && toks[i].kind == kindWord && !stopWords[toks[i].norm] && !lexicon[toks[i].norm] && !c.vocab[toks[i].norm] &&
		slices.ContainsFunc(toks, contactToken) && c.hasParam(nameKind.wants)
}

func (c *conv) hasParam(wants func(*property) bool) bool {
	return slices.ContainsFunc(c.tools, func(t chat.ToolDef) bool {
		return slices.ContainsFunc(parseSchema(t.Parameters).props, wants)
	})
}

// weekdayParam is a parameter whose choices are the days of the week.
func weekdayParam(p *property) bool {
	return slices.ContainsFunc(p.schema.enum, func(e enumValue) bool { return strings.EqualFold(e.str, "monday") }) &&
		slices.ContainsFunc(p.schema.enum, func(e enumValue) bool { return strings.EqualFold(e.str, "friday") })
}

// clockParam is a parameter that takes a time of day: by its name, or an enum of times.
func clockParam(p *property) bool {
	en := p.schema.enum
	return timeKind.wants(p) || len(en) > 0 && en[0].isStr && clockRe.MatchString(en[0].str)
}

// listsItems reports a page with a tool that takes an item's id (a list of items, not one
// item's own page).
func (c *conv) listsItems() bool {
	return c.hasParam(takesIDs)
}

// wantsIDs reports a plan that still needs ids of items: a required id parameter unset (as
// every missing one is) or set to no ids.
func wantsIDs(p *plan) bool {
	return slices.ContainsFunc(p.schema.props, func(q *property) bool {
		v, set := p.values[q.name]
		vs, isList := v.([]string)
		return takesIDs(q) && q.required && (!set || isList && len(vs) == 0)
	})
}

// nameForID reports a plan that took a name for an item's id: "F-150" for compare_cars,
// whose ids have no pattern, though the ids of the page have one and no item seen has it.
func (c *conv) nameForID(p *plan) bool {
	return slices.ContainsFunc(p.schema.props, takesIDs) && slices.ContainsFunc(stringArgs(p.arguments()), func(v string) bool {
		return c.before.items[v] == nil && !c.looksLikeID(v)
	})
}

// unknownWords are the words of the text that no tool knows and that are not ordinary
// words of a request: likely names ("RAV4", "CR-V", "the Civic").
func (c *conv) unknownWords(toks []token, p *plan) []string {
	var out []string
	for i, t := range toks {
		glued := i+1 < len(toks) && toks[i+1].kind == kindWord && toks[i+1].start == t.end
		if t.kind == kindNumber && glued && !(i < len(p.used) && p.used[i]) {
			out = append(out, t.raw+toks[i+1].raw) // "330i", "4Runner": a model's name
			continue
		}
		if name := hyphenModel(toks, i); name != "" && (!(i < len(p.used) && p.used[i]) || !c.looksLikeID(name) && c.before.items[name] == nil) {
			out = append(out, name) // "F-150", "CX-5" (which compare_cars, whose ids have no pattern, took for one)
			continue
		}
		// "compare the kia and the crv": a make said as one car is a name to look up
		theMake := wantsIDs(p) && saysVerb(toks, p.def) && wordAt(toks, i-1, "the", "compare", "and", "vs", "versus", "with", "to", "or") && !strings.HasSuffix(strings.ToLower(t.raw), "s") &&
			(i+1 == len(toks) || toks[i+1].kind != kindWord || wordAt(toks, i+1, "and", "vs", "versus", "with", "to", "or"))
		if t.kind == kindWord && len(t.raw) == 1 && unicode.IsUpper(rune(t.raw[0])) && wordAt(toks, i-1, "model", "class", "series") {
			out = append(out, toks[i-1].raw+" "+t.raw) // "the Model Y" (a letter is no name alone)
			continue
		}
		// A number is no name of its own ("Model 3": the word before it counts); nor is a day
		// of the month ("on Friday the 11th").
		if t.kind != kindWord || i < len(p.used) && p.used[i] || c.looksLikeID(t.raw) || len(t.norm) < 2 || ordinalDigits.MatchString(t.raw) || sortVerbs[t.norm] ||
			ordinary(t.norm) || correctionWords[t.norm] || (c.vocab[t.norm] || c.vocab[strings.TrimSuffix(t.norm, "s")]) && !theMake || // ("Thanks. Actually, …"; "the audis")
			bestMatch(queryWord{word: t.norm, weight: 1}, p.vocab) > 0 {
			continue
		}
		if placeWords(toks, i) {
			continue // "in the top trim", "the base model": a place among choices
		}
		afterThe := i > 0 && (toks[i-1].norm == "the" || toks[i-1].norm == "that") ||
			i > 1 && toks[i-2].norm == "the" && c.vocab[toks[i-1].norm] || // "the subaru outback"
			i == 1 && c.vocab[toks[0].norm] && toks[0].kind == kindWord // "honda civic"
		if i > 1 && toks[i-2].norm == "the" && toks[i-1].kind == kindNumber && toks[i-1].start < t.start && !(i-1 < len(p.used) && p.used[i-1]) {
			out = append(out, toks[i-1].raw+" "+t.raw) // "the 3 series": a model's name, no figure
			continue
		}
		// "open tacoma", "tacoma pls": the word an opening verb takes, or the only one
		afterOpen := i > 0 && opensFirst[toks[i-1].norm] && (i+1 == len(toks) || toks[i+1].kind != kindWord)
		alone := !slices.ContainsFunc(toks, func(o token) bool {
			return o.start != t.start && o.kind != kindPunct && !politeWords[o.norm] && o.norm != "the"
		})
		// "compare camry and civic": what a tool of items is asked to do with names them
		// ("Book a test drive for this car …": a word of the planner's, capital only as the first)
		first := (i == 0 || toks[i-1].kind == kindPunct && strings.ContainsAny(toks[i-1].raw, ".!?")) && lexicon[t.norm]
		if nameLike(t.raw) && !personName(toks, i) && !first || afterThe || afterOpen || alone || wantsIDs(p) && saysVerb(toks, p.def) {
			out = append(out, t.raw)
		}
	}
	return out
}

// hyphenModel is a model's name written as letters, a hyphen and a number from toks[i] ("F-150",
// "CX-5"), or "".
func hyphenModel(toks []token, i int) string {
	var b strings.Builder
	end := toks[i].end
	for k := i; k < len(toks) && k < i+3 && (k == i || toks[k].start == end); k++ {
		b.WriteString(toks[k].raw)
		end = toks[k].end
	}
	if name := b.String(); toks[i].kind == kindWord && hyphenModelRe.MatchString(name) {
		return hyphenModelRe.FindString(name)
	}
	return ""
}

var hyphenModelRe = regexp.MustCompile(`^[A-Za-z]{1,3}-[0-9]{1,4}`)

// personName reports a word of a person's name written before their e-mail or phone ("Kim Lee
// kim@lee.org", "Jane Doe, jane@example.com") or after saying it is one ("my name is Grace
// Kim and my email is …", "I'm Grace Kim"): contact details, never a search for an item.
func personName(toks []token, i int) bool {
	k := i - 1
	for k >= i-2 && k >= 0 && toks[k].kind == kindWord && nameLike(toks[k].raw) && !wordAt(toks, k, "i'm", "i") {
		k--
	}
	if wordAt(toks, k, "i'm", "im") || wordAt(toks, k, "is") && wordAt(toks, k-1, "name") || wordAt(toks, k, "am") && wordAt(toks, k-1, "i") {
		return true
	}
	for j, words := i+1, 1; j < len(toks) && words <= 3; j++ {
		switch t := toks[j]; {
		case t.kind == kindEmail || t.kind == kindPhone:
			return true
		case t.kind == kindWord:
			words++
		case t.kind != kindPunct || t.raw != ",":
			return false
		}
	}
	return false
}

// looksLikeID reports a word written like the page's ids: matching an id parameter's
// pattern, or, when no id parameter has one, a lower-case "c01".
func (c *conv) looksLikeID(w string) bool {
	patterned := false
	for _, t := range c.tools {
		for _, p := range parseSchema(t.Parameters).props {
			s := p.schema
			if _, list := idParam(p); list && s.items != nil {
				s = s.items
			}
			if takesIDs(p) && s.pattern != nil {
				patterned = true
				if s.pattern.MatchString(w) {
					return true
				}
			}
		}
	}
	return !patterned && idRe.MatchString(w) && w == strings.ToLower(w)
}

// nameLike reports a word written like a model name: with a digit, a capital or a dash.
func nameLike(w string) bool {
	return strings.ContainsAny(w, "0123456789-") || w != strings.ToLower(w)
}

// wantsItem reports a request about one item ("open the …", "show me the …"): a word of a
// tool that takes an id, then "the".
func (c *conv) wantsItem(r *reading) bool {
	acts := func(p *plan) bool {
		return wantsIDs(p) && (c.actionWord(p, r.toks) || anyNorm(r.toks, "see", "view", "show"))
	}
	return slices.ContainsFunc(r.plain, acts) && anyNorm(r.toks, "the", "that")
}

// actionWord reports a word of the tool's name, or the verb its description starts with.
func (c *conv) actionWord(p *plan, toks []token) bool {
	return c.nameHit(p, toks) || verbSaid(p, toks)
}

// commitWord reports words that say a committing tool's action: its verb, or a word of its
// name as typed ("a table for 4" of book_table), not one read into a word that hints at it
// ("mo" of "mo li … mo@li.com" is a month, which hints at apply_for_financing).
func (c *conv) commitWord(p *plan, toks []token) bool {
	words := identWords(p.def.Name)
	typed := slices.ContainsFunc(toks, func(t token) bool {
		w := strings.ToLower(t.raw)
		return t.kind == kindWord && len(w) > 2 && !stopWords[w] && slices.Contains(words, w)
	})
	return saysVerb(toks, p.def) || verbSaid(p, toks) || typed && c.nameHit(p, toks)
}

// verbSaid reports the first word of the tool's description, or a word that hints at it
// ("send" at "Submit …").
func verbSaid(p *plan, toks []token) bool {
	verb := ""
	if d := strings.Fields(p.def.Description); len(d) > 0 {
		verb = normWord(strings.Trim(d[0], ".,;:"))
	}
	return verb != "" && slices.ContainsFunc(toks, func(t token) bool {
		isVerb := func(h hint) bool { return h.word == verb }
		return t.kind == kindWord && (t.norm == verb || slices.ContainsFunc(hintsOf([]token{t})[0], isVerb))
	})
}

// requestWords are words of requests that are not names.
var requestWords = wordSet(`open show see view display pick choose select compare comparison between versus vs
	side both two three car item one ones option options thing stuff info information detail details page list
	please thank thanks want would like prefer need find look check tell about get give take put set add drop remove
	including everything altogether
	and or with without for me my them those these it its the a an pull up bring more other another`)

// opener reports a tool that opens an item's page: named open_…, select_…, view_…, show_…,
// see_… or go_…, with a parameter for the item's id.
func opener(t chat.ToolDef) bool {
	props := parseSchema(t.Parameters).props
	return named(t.Name, opensFirst) && slices.ContainsFunc(props, func(p *property) bool {
		single, _ := idParam(p)
		return single
	})
}

// openFor handles a request about one item that this page cannot do: when the page has a
// tool that opens an item (open_…, select_…, view_…), it opens this one, and the request is
// read again on the item's page (goOn), whose own tools may do it.
func (c *conv) openFor(it *item) (intent, bool) {
	for _, t := range c.tools {
		if !opener(t) {
			continue
		}
		s := parseSchema(t.Parameters)
		p := withIDs(&plan{def: t, schema: s, values: map[string]any{}}, []*item{it})
		unset := func(q *property) bool { _, set := p.values[q.name]; return q.required && !set }
		if p == nil || slices.ContainsFunc(s.props, unset) {
			continue
		}
		p.opens = true
		// The page it opens goes on with the request (Planner.goOn); a page that stays
		// (the tool opens nothing) ends with the summary.
		return callIntent(p), true
	}
	return intent{}, false
}

// backTo opens the item the visitor goes back to; its page does not read "go back" again.
func (c *conv) backTo(it *item) (intent, bool) {
	in, ok := c.openFor(it)
	if ok {
		in.first(c).opens = false
	}
	return in, ok
}

// lister is a tool that lists the page's items when called without arguments: no required
// parameter, and a name or description about searching, listing or filtering.
func (c *conv) lister() *plan {
	var best *plan
	bestRank := 0
	for _, t := range c.tools {
		s := parseSchema(t.Parameters)
		if navTool(t) || slices.ContainsFunc(s.props, func(p *property) bool { return p.required }) {
			continue // back_to_inventory goes to the list; it lists nothing here
		}
		d, rank := strings.ToLower(t.Description), 0
		switch {
		case slices.ContainsFunc(identWords(t.Name), func(w string) bool { return listerNames[w] }):
			// A list with filters is the catalogue; one without is often the visitor's own.
			rank = 2 + min(len(s.props), 1)
		case strings.Contains(d, "list") || strings.Contains(d, "search") || strings.Contains(d, "filter"):
			rank = 1
		}
		if rank > bestRank {
			best, bestRank = &plan{def: t, schema: s, values: map[string]any{}}, rank
		}
	}
	return best
}

var listerNames = rawSet("list browse catalog catalogue all inventory search find filter query lookup")

// listVerbs ask to see a list: "show rooms", "list all the rooms", "see every room".
var listVerbs = wordSet(listVerbText)

const listVerbText = `show list see display view browse all every available have offer`

// wholeList reports a request for the listing tool's whole list: the words of the text name
// what it lists (a word of its name or its description: "rooms" of search_rooms) and only ask to see it ("show
// rooms", "what rooms do you have"), with nothing to filter by.
func wholeList(toks []token, l *plan) bool {
	names := identWords(l.def.Name)
	for _, w := range identWords(l.def.Description) { // "kettles" of "List the shop's kettles."
		if !stopWords[w] && !listVerbs[w] && w != "page" {
			names = append(names, w)
		}
	}
	noun := false
	for _, t := range toks {
		switch {
		case t.kind == kindPunct:
		case t.kind != kindWord:
			return false
		case slices.ContainsFunc(names, func(w string) bool { return len(w) > 2 && wordsMatch(t.norm, w) }) || t.norm == "everything":
			noun = true // "show rooms", "show me everything"
		case !listVerbs[t.norm] && !stopWords[t.norm] && !preambleWords[t.norm] && !countFillers[t.norm]: // ("how many cars do you have in total")
			return false
		}
	}
	return noun
}

// noArguments reports a call's arguments that set nothing: "", "{}", "null".
func noArguments(args string) bool {
	var v map[string]json.RawMessage
	return strings.TrimSpace(args) == "" || json.Unmarshal([]byte(args), &v) == nil && len(v) == 0
}

// listNoun is what a listing tool lists, from its name: "cars" of search_cars; "items" when
// its name does not say.
func listNoun(name string, n int) string {
	ws := strings.Fields(identPhrase(ownName(name)))
	noun := "items"
	if len(ws) > 1 && !toolVerbs[normWord(ws[len(ws)-1])] && len(ws[len(ws)-1]) > 2 {
		noun = ws[len(ws)-1]
	}
	if n == 1 {
		return stem(noun) // "car", "class"
	}
	return noun
}

// prose reports a text with many words that neither the page's tools nor requests use
// (pasted text, a story): it names no item, so no listing is called to look its words up.
func (c *conv) prose(toks []token) bool {
	n := 0
	for i, t := range toks {
		// (not the words of a request, "book", "drive", nor details: "my name is rob fox and email …")
		if t.kind == kindWord && len(t.norm) >= 2 && !ordinary(t.norm) && !c.vocab[t.norm] && !asksOf([]token{t}) &&
			!personName(toks, i) && !detailWords[t.norm] {
			n++
		}
	}
	return n > 5
}

// detailWords label a visitor's details.
var detailWords = rawSet("name email mail phone number")

// actionWords reports whether the text asks for something besides pointing at the items:
// a verb of the usual requests ("open", "show", "compare", "book"...) or a word of a page tool
// that is not one of the items' names.
func (c *conv) actionWords(text string, refs []*item) bool {
	rest := strings.ToLower(text)
	for _, r := range refs {
		for _, w := range []string{r.id, r.name} {
			if w != "" {
				rest = strings.ReplaceAll(rest, strings.ToLower(w), " ")
			}
		}
	}
	return slices.ContainsFunc(tokenize(rest), func(t token) bool {
		pageWord := c.vocab[t.norm] && !requestWords[t.norm]
		return t.kind == kindWord && !stopWords[t.norm] && (actionVerbs[t.norm] || pageWord)
	})
}

// actionVerbs are the verbs of requests to act on an item, whatever the page's tools say.
var actionVerbs = rawSet(`open show view display see pick choose select compare book reserve order buy add
	remove delete cancel apply configure schedule take go visit start drive finance`)

// pronounRef resolves "it", "this one", "that one", "that car" to the item the previous
// answer was about: the only item it named, or the only item of the last list.
func (c *conv) pronounRef(toks []token) *item {
	if !pronounIn(toks) {
		return nil
	}
	// The latest answer that named items, within the last three turns: one that named none
	// ("Sorry, I can't help with that") does not make "it" forget the car before it.
	turns := 0
	for i := c.lastUser - 1; i >= 0 && turns < 3; i-- {
		m := c.msgs[i]
		if m.Role == chat.RoleUser {
			turns++
		}
		if m.Role != chat.RoleAssistant || strings.TrimSpace(m.Content) == "" {
			continue
		}
		// (not the items of its suggestions: "Noted: … “open the 2023 Toyota RAV4”" names none)
		named := c.itemsNamed(suggestionRe.ReplaceAllString(m.Content, ""))
		if len(named) == 0 {
			continue
		}
		if len(named) == 1 {
			return named[0]
		}
		// "The 2023 Toyota RAV4 is the newest (the others are …)": the one its first
		// sentence names.
		first := m.Content
		if i := strings.IndexAny(first, "(.!?\n"); i > 0 {
			first = first[:i]
		}
		if mns := nameMentions(first, c.before.known(), c.vocab); len(mns) == 1 && len(mns[0].items) == 1 {
			return mns[0].items[0]
		}
		break
	}
	if it := c.pageItem(); it != nil {
		return it // of the page the visitor came to by a link
	}
	if len(c.before.last) == 1 {
		return c.before.last[0]
	}
	return nil
}

// readLast is the item the conversation's latest call read by its id alone
// (apartment_details {"apartmentId":"a3"}), or nil.
func (c *conv) readLast() *item {
	for k := range c.earlierCalls {
		return c.before.items[onlyArg(k)]
	}
	return nil
}

// goAhead is a way of saying yes that names no page: "please go ahead and book it".
var goAhead = regexp.MustCompile(`(?i)\bgo ahead(,| and\b)?`)

// fromComparison says where an item to open is shown: "the first one in the comparison".
var (
	fromComparison      = regexp.MustCompile(`(?i)\s+(?:in|from|of)\s+(?:the\s+|this\s+|that\s+)?(?:comparison|drawer)\b`)
	opensFromComparison = regexp.MustCompile(`(?i)\b(?:open|see|view|show|look\s+at|select|pick|go\s+to)\b.*\b(?:in|from|of)\s+(?:the\s+|this\s+|that\s+)?(?:comparison|drawer)\b`)
)

// whichIsThis asks which item the page is of: "which car is this for?", "remind me what car
// this is", "what vehicle am i looking at".
var whichIsThis = regexp.MustCompile(`(?i)^\s*(?:(?:remind|tell)\s+me\s+(?:again\s+)?)?(?:which|what)\s+(?:car|vehicle|one|model|item)\s+(?:is\s+(?:this|it)|(?:this|it)\s+is|am\s+i\s+looking\s+at|are\s+we\s+(?:on|looking\s+at))(?:\s+(?:for|about))?(?:\s+again)?\s*[?.!]*\s*$`)

// titled is the item whose page (or a page of it: its calculator) the visitor is on: the one
// opened last, when the page's title names it; nil on a page of no item.
func (c *conv) titled() *item {
	title, _ := pageOf(c.msgs)
	if it := cmp.Or(c.openedLast(), c.pageItem()); it != nil && len(nameMentions(title, []*item{it}, nil)) > 0 {
		return it
	}
	return nil
}

// setNow asks which value is set: "what trim is it set to now?", "what colour is it now?",
// "what time is it booked for now?", "which trim is it set to at the moment?",
// "what is the current trim?", "which package is selected?".
var setNow = regexp.MustCompile(`(?i)^\s*(?:what|which)\s+(?:(\w+)\s+is\s+it\s+(?:(?:set|booked)\s+(?:to|for)(?:\s+` + nowWords + `)?|currently|` + nowWords + `)|is\s+the\s+current\s+(\w+)|(\w+)\s+(?:is|are)\s+(?:selected|chosen|picked)(?:\s+` + nowWords + `)?)\s*\??\s*$`)

// nowWords say "now": "now", "at the moment", "right now".
const nowWords = `(?:now|at\s+the\s+moment|right\s+now)`

// allTogether is "altogether" written as two words.
var allTogether = regexp.MustCompile(`(?i)\ball\s+together\b`)

// justThat keeps only what it names: "just suvs", "ok only the hybrids".
var justThat = regexp.MustCompile(`(?i)^\s*(?:(?:ok|okay|actually|no|now)[\s,]+)*(?:just|only)\b`)

// cameBefore is a first sentence that tells of an earlier visit: "Hi, I came by last week.",
// "I was here yesterday."
var cameBefore = regexp.MustCompile(`(?i)^\s*(?:(?:hi|hello|hey|good\s+(?:morning|afternoon|evening))[\s,!.]+)?(?:i|we)\s+(?:came\s+(?:by|in)|was\s+here|were\s+here|visited|stopped\s+by|dropped\s+by)\b[^.!?]*[.!?]\s*`)

// withChoiceAgain reads "what about with the winter package?" right after a figure worked out
// from values alone (the calculator's payment, no list among them) as the choice added, then
// the same figure again: "add the winter package and calculate payment". The item's page adds
// it, and the calculator, reached again, keeps the values said. Not of a value of that call
// ("with 5000 down", "with a longer term") nor of another item ("with the civic").
func (c *conv) withChoiceAgain(text string) string {
	m := withChoice.FindStringSubmatch(text)
	if m == nil || c.openedLast() == nil || strings.ContainsAny(m[1], "0123456789") || len(nameMentions(m[1], c.now.known(), nil)) > 0 {
		return text
	}
	// a choice by its kind ("the winter package"), or one a result named ("the roof" of
	// "Panoramic roof $1,400"), or two or three words no tool here and no item knows after
	// "the" ("the home charger", which only the item's page lists): not an item's name ("with
	// the civic", which the list looks up)
	said := regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(m[1]) + `\b`)
	ws := tokenize(m[1])
	unknown := len(ws) >= 2 && len(ws) <= 3 && strings.Contains(strings.ToLower(text), "with the "+strings.ToLower(m[1])) && !slices.ContainsFunc(ws, func(t token) bool {
		return t.kind != kindWord || c.vocab[t.norm] || stopWords[t.norm] || peopleWords[t.norm] || units[t.norm] != nil
	})
	if !choiceNoun(ws) && !unknown && !slices.ContainsFunc(c.calls, func(k call) bool { return k.done && said.MatchString(k.result) }) {
		return text
	}
	for k := range c.earlierCalls {
		if k.page {
			continue // the item of the page's address, no call
		}
		// Asked on the page of that call, away from the item's own page; read again on the
		// pages the turn went through after leaving it.
		here := slices.ContainsFunc(c.tools, func(t chat.ToolDef) bool { return t.Name == k.name && !navTool(t) })
		asked := len(c.done) == 0 && here && c.onScreen() != "" && !c.onItsPage() && !c.hasParam(func(p *property) bool { return p.schema.items != nil })
		var args map[string]any
		if !k.done || !asked && (len(c.done) == 0 || !named(c.done[0].name, goesFirst)) || named(k.name, commitFirst) ||
			json.Unmarshal([]byte(k.args), &args) != nil || len(args) == 0 {
			return text
		}
		for name, v := range args {
			if _, list := v.([]any); list || slices.ContainsFunc(identWords(m[1]), func(w string) bool {
				return slices.ContainsFunc(identWords(name), func(x string) bool { return wordsMatch(w, x) })
			}) {
				return text
			}
		}
		return "add the " + m[1] + " and " + identPhrase(k.name)
	}
	return text
}

var withChoice = regexp.MustCompile(`(?i)^\W*(?:(?:and|so|ok|okay|now)[\s,]+)?(?:(?:what|how)\s+about|how\s+much|and|what(?:'s|\s+is|s)?\s+(?:it|that|the\s+payment|the\s+monthly))?\s*with\s+(?:the\s+|a\s+|an\s+)?([a-z][\w -]{1,40}?)\s*(?:too|also|added|then|instead)?\s*[?.!]*\s*$`)

// amountSaidBefore writes "under that amount", "in that range" as the amount said before it,
// in the message or, failing that, in the visitor's last message that said one: "we have about
// $30,000 to spend, so show me the sedans under that amount" is under $30,000, and so is "show
// me the sedans under that" after "we have about 30000 to spend".
func (c *conv) amountSaidBefore(text string) string {
	m := thatAmount.FindStringIndex(text)
	if m == nil {
		return text
	}
	said := []string{text[:m[0]]}
	for i := c.lastUser - 1; i >= 0; i-- {
		if c.msgs[i].Role == chat.RoleUser {
			said = append(said, c.msgs[i].Content)
		}
	}
	for _, s := range said {
		toks := tokenize(s)
		if k := slices.IndexFunc(toks, func(t token) bool {
			return t.money || t.kind == kindNumber && !t.percent && !t.yearLike() && t.value >= 1000
		}); k >= 0 {
			return text[:m[0]] + "under " + toks[k].raw + text[m[1]:]
		}
	}
	return text
}

var thatAmount = regexp.MustCompile(`(?i)\b(?:under|below|within|in|inside|for)\s+(?:that|this|the|our|my)\s+(?:amount|range|budget|price\s+range|figure|limit)\b|\b(?:under|below)\s+that\s*(?:[?.!,;]|$)`)

// neverMindThe takes back a choice: "never mind the winter package", "nvm the roof package".
var neverMindThe = regexp.MustCompile(`(?i)\b(?:never\s*mind|nvm)[\s,]+the\s+((?:[\w-]+\s+){0,2}(?:package|pkg|option))\b`)

// makeItChoice sets a choice named by its kind: "make it the SX trim", "switch it to the
// TRD Off-Road trim".
var makeItChoice = regexp.MustCompile(`(?i)\b(?:make|switch|change|swap|set)\s+(?:it|this|that)\s+(?:to\s+|for\s+|with\s+)?(?:the\s+|a\s+)?((?:[\w-]+\s+){1,3}(?:trim|package|colou?r|paint))\b`)

// switchTo asks for another item in place of the one on screen: "swap to the model y", "can i
// switch to the model y instead", "change car to the A6".
var switchTo = regexp.MustCompile(`(?i)^\s*(?:(?:ok|actually|wait|hmm|no)[\s,]+)*(?:(?:can|could)\s+(?:i|we|you)\s+|i'?d\s+like\s+to\s+|let'?s\s+|pls\s+|please\s+)?(?:switch|swap|change)(?:\s+(?:the\s+)?(?:car|it|this))?\s+(?:to|for|with)\s+(.+?)(?:\s+instead)?\s*(?:pls|please)?[?.!]*\s*$`)

// sameWhen keeps the day and time said: "same day and time", "same time if possible".
var sameWhen = regexp.MustCompile(`(?i)[,;]?\s*(?:on\s+|at\s+)?(?:the\s+)?same\s+(?:day|date|time|slot)(?:\s+and\s+(?:time|day|date))?(?:\s+if\s+(?:possible|you\s+can))?\b`)

// pageKind is what the page is for an item, as its title says before the item's name: "Test
// drive" of "Test drive: 2023 Toyota RAV4 — Northwind Motors"; "" on a page of no item.
func (c *conv) pageKind() string {
	title, _ := pageOf(c.msgs)
	kind, _, ok := strings.Cut(strings.TrimSpace(titleSepRe.Split(title, 2)[0]), ": ")
	if !ok || c.openedLast() == nil {
		return ""
	}
	return kind
}

// backToItemThen goes back to the item's page for a request: "go back to the car and pick the
// Limited trim", "ok back to the car, I want the SX".
var backToItemThen = regexp.MustCompile(`(?i)^\s*(?:(?:ok(?:ay)?|so|now|and)[\s,]+)*(?:(?:i(?:'d|\s+would)\s+like\s+to|(?:can|could)\s+(?:we|you|i)|please)\s+)?(?:(?:go|take\s+me|head|let'?s\s+go|let\s+us\s+go)\s+)?back\s+to\s+(?:the|my|this)\s+(\w+)(?:\s+page)?\s*(?:,|and\b|then\b|&)\s*(?:then\s+)?(.{3,})$`)

// everyChoice writes "all the packages", "every package" as the choices of a list parameter
// here that its noun names: "the winter and tech and cargo packages".
func (c *conv) everyChoice(text string) string {
	if !everyWord.MatchString(text) {
		return text // (no pattern of the page's nouns to build)
	}
	for _, t := range c.tools {
		for _, p := range parseSchema(t.Parameters).props {
			if !p.schema.isArray() || p.schema.items == nil || len(p.schema.items.enum) < 2 || !p.schema.items.enum[0].isStr {
				continue
			}
			noun := regexp.QuoteMeta(p.words[len(p.words)-1])
			re := regexp.MustCompile(`(?i)\b(?:all|every|each)\s+(?:of\s+)?(?:the\s+)?(?:\w+\s+)?` + noun + `s?\b`)
			var names []string
			for _, e := range p.schema.items.enum {
				names = append(names, e.text())
			}
			text = re.ReplaceAllLiteralString(text, "the "+strings.Join(names, " and ")+" "+p.words[len(p.words)-1]+"s")
		}
	}
	return text
}

// withAll asks of the item with every choice of a list: "how much with all the packages?".
var withAll = regexp.MustCompile(`(?i)\bwith\s+(?:all|every)\b`)

// qualityAsk asks whether the items in view have a quality, in one word after "is it" (not
// "is it a Prius", a name), in the words after "do they have", "do any have" and "which ones
// have", or as "how far can it go".
var qualityAsk = regexp.MustCompile(`(?i)^\s*(?:(?:is|are)\s+(?:it|they|these|those|this|that|both|either)(?:\s+(?:one|ones|cars?))?\s+([\w-]+)|(?:(?:does|do)\s+(?:it|they|these|those|this|that|either|both|any)(?:\s+(?:one|ones|of\s+(?:them|these|those)))?|which(?:\s+(?:one|ones|cars?|of\s+(?:them|these|those)))?)\s+(?:have|has|comes?\s+with|get|gets|include|includes)\s+(.+?)|how\s+(far|fast|quick|big|roomy|spacious|safe|reliable|comfortable|efficient|quiet)\s+(?:is|are|can|does|do)\s+(?:it|they|this|that|these|those)(?:\s+(?:one|ones|cars?))?\b(.*?))\s*[?.!]*\s*$`)

// bestDeal asks for the best buy, which no result ranks: "whats ur best deal", "which is the
// best value".
var bestDeal = regexp.MustCompile(`(?i)\b(?:best|good|great)\s+(?:deal|value|offer|bargain|buy)s?\b`)

// recommendAsk asks for a pick among items: "which one should i get", "what would you recommend".
var recommendAsk = regexp.MustCompile(`(?i)\b(?:which|what)\b.*\b(?:recommend|suggest|should\s+(?:i|we)\s+(?:get|buy|pick|choose|take|go\s+(?:for|with))|would\s+you\s+(?:get|buy|pick|choose|take|go\s+(?:for|with)))\b`)

// unknownRank reports a comparison of a quality: "more range", "faster", "the best" (not "best
// for a family", a kind).
func unknownRank(toks []token) bool {
	for i, t := range toks {
		w := strings.ToLower(t.raw)
		if t.kind == kindWord && !wordAt(toks, i+1, "for") && (wordAt(toks, i, "more", "most", "less", "least", "better", "best", "worse", "worst") ||
			len(w) >= 5 && (strings.HasSuffix(w, "er") || strings.HasSuffix(w, "est")) && !lexicon[t.norm]) {
			return true
		}
	}
	return false
}

// themWords point at what was just set: "them", "all of them".
var themWords = regexp.MustCompile(`(?i)\b(?:all\s+(?:of\s+)?)?(?:them|those|these|em)\b`)

// hashPlace is a place in a list written with "#": "open #2".
var hashPlace = regexp.MustCompile(`(^|\s)#([1-9][0-9]?)\b`)

// theWordOne is a choice said by a word and "one": "the winter one".
var theWordOne = regexp.MustCompile(`(?i)\bthe\s+([a-z]+)\s+one\b`)

// dropThem writes "them" of a request to remove as the one list of choices this page's calls
// have filled: "nah remove them" after all the packages were added is "remove the packages";
// and "one" after a word that is no ranking, place or colour: "remove the winter one" is "remove
// the winter package" (which the car may not have).
func (c *conv) dropThem(text string) string {
	m := theWordOne.FindStringSubmatch(text)
	if m != nil {
		w := normWord(m[1])
		if rankWords[w].field != nil || slices.Contains(ordinalNames, w) || colourWords[w] || stepWords[w] != 0 || endWords[w] != 0 || lexicon[w] && !c.vocab[w] {
			m = nil // "remove the cheaper one", "the first one", "the red one", "the other one"
		}
	}
	if !themWords.MatchString(text) && m == nil {
		return text
	}
	noun := ""
	for _, t := range c.tools {
		for _, p := range parseSchema(t.Parameters).props {
			var had []string
			if !p.schema.isArray() || p.schema.items == nil || !p.schema.items.stringEnum() {
				continue
			}
			if json.Unmarshal(c.lastArgs(t.Name, p.name)[p.name], &had) == nil && len(had) > 0 {
				if noun != "" {
					return text // two lists: which one is not said
				}
				noun = p.words[len(p.words)-1]
			}
		}
	}
	if l := c.oneList(); m != nil && l != "" {
		text = strings.Replace(text, m[0], "the "+m[1]+" "+l, 1) // (set or not)
	}
	if noun == "" {
		return text
	}
	return themWords.ReplaceAllLiteralString(text, "the "+noun+"s")
}

// oneList is the noun of the page's one list of choices ("package" of packages), or "" when
// it has none or several.
func (c *conv) oneList() string {
	lists := map[string]bool{}
	for _, t := range c.tools {
		for _, p := range parseSchema(t.Parameters).props {
			if p.schema.isArray() && p.schema.items != nil && p.schema.items.stringEnum() {
				lists[p.words[len(p.words)-1]] = true
			}
		}
	}
	if len(lists) != 1 {
		return ""
	}
	for l := range lists {
		return l
	}
	return ""
}

// withEverything asks with every choice, naming none: "how much with everything".
var withEverything = regexp.MustCompile(`(?i)\bwith\s+(?:everything|every\s+thing|all\s+(?:the\s+)?extras|all\s+options|all\s+the\s+options)\b`)

// goWithChoice goes to a page with a choice set first: "take me to financing for the EX-L
// configuration", "go to financing with the Limited trim".
var goWithChoice = regexp.MustCompile(`(?i)\b(?:take\s+(?:me|us)|go|bring\s+(?:me|us))\s+to\s+(?:the\s+)?(\w+)(?:\s+page)?\s+(?:for|with)\s+(?:the\s+)?([\w-]+(?:\s+[\w-]+)?)\s+(trim|package|colou?r|configuration|config|setup|version)\b`)

// monthlyOver is a monthly payment over a bare number of months: "the monthly over 48".
var monthlyOver = regexp.MustCompile(`(?i)\b((?:monthly|payments?|a\s+month|per\s+month)\s+(?:over|for|at|on))\s+(12|24|36|48|60|72|84|96)(\s*(?:[?.!,;]|$|\s+(?:pls|please|then)\b))`)

// narrowTo narrows the list to some: "narrow it to ones from 2023", "filter the list down to".
var narrowTo = regexp.MustCompile(`(?i)\b(?:narrow|filter|limit|cut)\s+(?:it|them|this|that|the\s+list|the\s+results)\s+(?:down\s+)?to\b`)

// everyWord says all of something: "all", "every", "each".
var everyWord = regexp.MustCompile(`(?i)\b(?:all|every|each)\b`)

// cheapestTrim asks for the trim that costs least, which is the base trim.
var cheapestTrim = regexp.MustCompile(`(?i)\b(?:cheapest|least\s+expensive)\s+trim\b`)

// endWords name a value of a list of choices by its place: "the top trim" is the last trim the
// tool lists (1), "the base trim" its first (-1), "the middle trim" the one between (0).
var endWords = map[string]int{"top": 1, "highest": 1, "best": 1, "fanciest": 1,
	"base": -1, "basic": -1, "lowest": -1, "entry": -1, "middle": 0, "mid": 0}

// unknownStretch is the stretch of text from the first to the last content word plan p does
// not know: "leather seats" of "show me white ones with leather seats".
func (c *conv) unknownStretch(text string, toks []token, p *plan) string {
	_, at := c.unknownTo(p, toks)
	// ("looking for a small car, maybe": "small")
	at = slices.DeleteFunc(at, func(i int) bool {
		w := toks[i].norm
		return requestWords[w] || stopWords[w] || politeWords[w] || vagueWords[w] || dayWords[w] // ("… for the summer")
	})
	if len(at) == 0 {
		return ""
	}
	return text[toks[at[0]].start:toks[at[len(at)-1]].end]
}

// vagueWords are words around a request that ask for nothing: "I'm looking for …, maybe".
var vagueWords = rawSet(`looking maybe perhaps possibly something anything just really`)

// placeWords reports the words of a place among choices: "top" and "trim" of "the top trim".
func placeWords(toks []token, i int) bool {
	_, place := endWords[toks[i].norm]
	_, placed := endWords[toks[max(i-1, 0)].norm]
	return place && i+1 < len(toks) && toks[i+1].kind == kindWord || i > 0 && placed && toks[i].kind == kindWord
}

// stepWords move a choice one place along its list: "a cheaper trim" is the one before the
// trim set, "a higher trim" the one after (-1, 1).
var stepWords = map[string]int{"cheaper": -1, "lower": -1, "smaller": -1, "simpler": -1,
	"higher": 1, "better": 1, "nicer": 1, "fancier": 1, "bigger": 1}

// rewritePlaces writes the value a word of place names in place of the word, for a parameter
// of the page's tools with a list of at least three string choices that the next word names:
// an end of the list ("green with the top trim" becomes "green with the Limited trim"), or a
// step from the value the conversation set here ("thats too much. cheaper trim" after the
// Wilderness becomes "… Onyx XT trim").
func (c *conv) rewritePlaces(text string) string {
	toks := tokenize(text)
	for i := len(toks) - 2; i >= 0; i-- {
		end, isEnd := endWords[toks[i].norm]
		step, isStep := stepWords[toks[i].norm]
		if !isEnd && !isStep || toks[i+1].kind != kindWord {
			continue
		}
		for _, t := range c.tools {
			for _, p := range parseSchema(t.Parameters).props {
				en := p.schema.enum
				if !p.schema.stringEnum() || len(en) < 3 || !slices.ContainsFunc(p.words, func(w string) bool { return wordsMatch(toks[i+1].norm, w) }) {
					continue
				}
				at := (len(en) - 1) * (end + 1) / 2
				if isEnd && end == 0 && len(en)%2 == 0 {
					continue // of four there is no middle one
				} else if isStep {
					var now string
					if raw := c.lastArgs(t.Name, p.name)[p.name]; raw == nil || json.Unmarshal(raw, &now) != nil {
						continue
					}
					set := slices.IndexFunc(en, func(e enumValue) bool { return e.str == now })
					if at = set + step; set < 0 || at < 0 || at >= len(en) {
						continue // (none lower than the first: notOffered says which there are)
					}
				}
				return text[:toks[i].start] + en[at].str + text[toks[i].end:]
			}
		}
	}
	return text
}

// compareAgain asks for the last comparison again: "compare again", "compare them again",
// "show me the comparison again".
var compareAgain = regexp.MustCompile(`(?i)^\W*(?:(?:can|could)\s+(?:you|we|i)\s+)?(?:compare\s+(?:(?:them|those|these|the\s+\w+)\s+)?again|(?:show|see|open)\s+(?:me\s+|us\s+)?(?:the\s+)?comparison\s+again)\W*$`)

// comparedLast are the titles of the items the last call that took a list of ids had (a
// comparison), or none.
func (c *conv) comparedLast() []string {
	for k := range c.earlierCalls {
		var args map[string]json.RawMessage
		_ = json.Unmarshal([]byte(k.args), &args)
		for _, name := range slices.Sorted(maps.Keys(args)) {
			var ids []string
			if ws := identWords(name); len(ws) > 0 && ws[len(ws)-1] == "ids" && json.Unmarshal(args[name], &ids) == nil && len(ids) > 1 {
				var out []string
				for _, id := range ids {
					if it := c.before.items[id]; it != nil {
						out = append(out, theTitle(it))
					}
				}
				return out
			}
		}
	}
	return nil
}

// youShowed says that the items meant are those a reply listed: "the first car you showed
// me", "the one you found earlier".
var youShowed = regexp.MustCompile(`(?i)\s+(?:that\s+|which\s+)?(?:you|u)\s+(?:showed|shown|gave|listed|found|suggested|mentioned)(?:\s+(?:me|us))?(?:\s+(?:before|earlier|first|at\s+first))?\b`)

// thisBefore is a text that ends in "this": the name after it is the item on screen.
var thisBefore = regexp.MustCompile(`(?i)\bthis\s+$`)
