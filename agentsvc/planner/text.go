package planner

import (
	"cmp"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// kind is the kind of a token of the user's text.
type kind int

const (
	kindWord   kind = iota
	kindNumber      // 40k, $40,000, 4.9%, 2021
	kindQuote       // "…", “…” or '…'; raw is the inner text
	kindEmail
	kindDate  // ISO date; raw is YYYY-MM-DD
	kindTime  // raw is HH:MM
	kindPhone // raw as written
	kindPunct // , ; . ! ?
	kindSym   // < > + = -
	kindPath  // /tmp/notes.txt, ~/docs, ./a.md; raw as written
)

// token is one piece of the user's text.
type token struct {
	kind kind
	raw  string
	norm string // words: lower case, rewritten, stemmed; empty for the other kinds
	// start and end are the token's byte offsets in the text (a quote's include its marks).
	start, end int
	// numbers
	value    float64
	money    bool // $, €, £, k, thousand
	percent  bool
	grouped  bool // written with a unit or separators, so not a year
	decimals bool
}

// yearLike reports a number written like a calendar year.
func (t token) yearLike() bool {
	return t.kind == kindNumber && !t.money && !t.percent && !t.grouped && !t.decimals &&
		t.value >= 1900 && t.value <= 2100
}

var (
	// pathRe finds a file path written whole: from "/", "~/", "./" or "../" after a space,
	// the start or an opening mark ("24/7" and "and/or" are not paths).
	pathRe        = regexp.MustCompile(`(?:^|[\s("'“])((?:~|\.{1,2})?/[A-Za-z0-9._~/-]*[A-Za-z0-9_~/-])`)
	emailRe       = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)
	dateRe        = regexp.MustCompile(`(\d{4})-(\d{2})-(\d{2})`)
	clockRe       = regexp.MustCompile(`(?i)(\d{1,2}):(\d{2})(?:\s*([ap])\.?m\b\.?)?`)
	ampmRe        = regexp.MustCompile(`(?i)(\d{1,2})()\s*([ap])\.?m\b\.?`) // the same groups as clockRe
	phoneRe       = regexp.MustCompile(`\+?\(?\d[\d ().-]{5,}\d`)
	phoneCue      = regexp.MustCompile(`(?i)(phone|tel|call|mobile|cell|number)(?:\W+is)?\W*$`) // ("phone is 5553339999")
	ordinalDigits = regexp.MustCompile(`(?i)^\d+(?:st|nd|rd|th)$`)
	scanRe        = regexp.MustCompile(`(?i:\d+(?:st|nd|rd|th)\b)|(?:[$€£]\s?)?\d+(?:,\d{3})*(?:\.\d+)?(?:\s?[kK]\b)?(?:\s?%)?|\p{L}[\p{L}\p{N}_']*|[,;.!?<>+=-]`)
)

// tokenize splits the user's text into tokens. Quotes, emails, dates, times and phone numbers
// are taken first, so their digits are not read as numbers nor their words as requests.
func tokenize(text string) []token {
	spans := quoteSpans(text)
	// claim takes text[start:end] as a token unless one taken before overlaps it.
	claim := func(k kind, start, end int, raw string) {
		if !slices.ContainsFunc(spans, func(o token) bool { return start < o.end && o.start < end }) {
			spans = append(spans, token{kind: k, raw: raw, start: start, end: end})
		}
	}
	for _, m := range emailRe.FindAllStringIndex(text, -1) {
		claim(kindEmail, m[0], m[1], text[m[0]:m[1]])
	}
	for _, m := range pathRe.FindAllStringSubmatchIndex(text, -1) {
		claim(kindPath, m[2], m[3], text[m[2]:m[3]])
	}
	for _, m := range dateRe.FindAllStringIndex(text, -1) {
		d := text[m[0]:m[1]]
		_, err := time.Parse("2006-01-02", d)
		if err == nil && !alnumNear(text, m[0], true) && !digitNear(text, m[1], false) {
			claim(kindDate, m[0], m[1], d)
		}
	}
	for _, re := range []*regexp.Regexp{clockRe, ampmRe} {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			hhmm, ok := clock(text, m)
			after := digitNear(text, m[0], true) || strings.HasSuffix(text[:m[0]], ":") // "10:30:15"
			if ok && !after && !digitNear(text, m[1], false) {
				claim(kindTime, m[0], m[1], hhmm)
			}
		}
	}
	for _, m := range phoneRe.FindAllStringIndex(text, -1) {
		if d := dateRe.FindStringIndex(text[m[0]:m[1]]); d != nil && d[0] > 0 {
			m[1] = m[0] + len(strings.TrimRight(text[m[0]:m[0]+d[0]], " ")) // "+44 7700 900123 2026-12-04"
		}
		p := text[m[0]:m[1]]
		// The label is right before the number: its last 64 bytes, not the whole text before.
		if !alnumNear(text, m[0], true) && !digitNear(text, m[1], false) && !strings.HasSuffix(strings.TrimRight(text[:m[0]], " "), "$") &&
			phoneLike(p, phoneCue.MatchString(text[max(0, m[0]-64):m[0]]) || bareNumber(p) && strings.Contains(text, "@")) {
			claim(kindPhone, m[0], m[1], p)
		}
	}
	slices.SortFunc(spans, func(a, b token) int { return a.start - b.start })

	var toks []token
	pos := 0
	scan := func(end int) {
		for _, m := range scanRe.FindAllStringIndex(text[pos:end], -1) {
			t := scanToken(text[pos+m[0] : pos+m[1]])
			t.start, t.end = pos+m[0], pos+m[1]
			toks = append(toks, t)
		}
	}
	for _, s := range spans {
		scan(s.start)
		toks = append(toks, s)
		pos = s.end
	}
	scan(len(text))
	toks = numberWordsToNumbers(toks)
	toks = mergeMultipliers(toks)
	for i := 2; i < len(toks); i++ {
		a, j, b := toks[i-2], toks[i-1], toks[i]
		if a.kind == kindNumber && b.kind == kindNumber && (j.norm == "and" || j.norm == "to" || j.raw == "-") &&
			!a.grouped && !a.money && b.grouped && a.value < 1000 && b.value >= 1000 && a.value*1000 <= b.value {
			toks[i-2].value *= 1000
			toks[i-2].money, toks[i-2].grouped = b.money, true
		}
	}
	return toks
}

// spelledUnits and spelledTens are the numbers a visitor writes as words. A ten ("sixty
// months") or a compound ("sixty-five thousand", "thirty six months") is always a number;
// below thirteen, a word is one only where it counts something (numberWordsToNumbers).
var (
	spelledUnits = map[string]float64{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
		"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
		"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
	spelledTens = map[string]float64{"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
		"seventy": 70, "eighty": 80, "ninety": 90}
)

// countedUnits are the words after which a spelled number counts something a tool takes.
var countedUnits = wordSet(`people person persons guests guest adults adult kids children child
	nights night days day weeks week months month years year seats seat rooms room tickets ticket
	bedrooms bedroom bathrooms bathroom beds bed hours hour minutes minute copies copy items item
	thousand grand`)

// spelled reads the spelled number that toks start with: its value, how many tokens it
// takes, and whether it can only be a number. "one" alone is none ("the red one").
func spelled(toks []token) (v float64, n int, sure bool) {
	word := func(k int) string {
		if k < len(toks) && toks[k].kind == kindWord {
			return strings.ToLower(toks[k].raw)
		}
		return ""
	}
	if tens, ok := spelledTens[word(0)]; ok {
		v, n, sure = tens, 1, true
		k := 1
		if k < len(toks) && toks[k].raw == "-" {
			k++
		}
		if u, ok := spelledUnits[word(k)]; ok && u < 10 {
			v, n = tens+u, k+1
		}
	} else if u, ok := spelledUnits[word(0)]; ok && u > 1 {
		v, n, sure = u, 1, u >= 13
	} else {
		return 0, 0, false
	}
	if word(n) == "hundred" && v < 100 { // "fifteen hundred", "two hundred and fifty"
		v, n, sure = v*100, n+1, true
		k := n
		if word(k) == "and" {
			k++
		}
		if rest, m, _ := spelled(toks[k:]); m > 0 && rest < 100 {
			v, n = v+rest, k+m
		}
	}
	return v, n, sure
}

// numberWordsToNumbers makes numbers of spelled numbers: a ten or a compound anywhere; a
// small one where it counts a party or a stay, after "for" ("a table for two") or before a
// unit ("three nights", "three thousand"). Elsewhere ("compare the two cheapest") they stay
// words.
func numberWordsToNumbers(toks []token) []token {
	var out []token
	for i := 0; i < len(toks); i++ {
		v, n, sure := spelled(toks[i:])
		afterFor := i > 0 && toks[i-1].kind == kindWord && strings.EqualFold(toks[i-1].raw, "for")
		beforeUnit := i+n < len(toks) && (countedUnits[toks[i+n].norm] || toks[i+n].norm == "percent") // "twenty percent down"
		half := wordAt(toks, i+n, "and") && wordAt(toks, i+n+1, "a") && wordAt(toks, i+n+2, "half")    // "four and a half percent"
		if n == 0 || !sure && !afterFor && !beforeUnit && !half {
			out = append(out, toks[i])
		} else {
			var raw []string
			for _, t := range toks[i : i+n] {
				raw = append(raw, t.raw)
			}
			out = append(out, token{kind: kindNumber, raw: strings.ReplaceAll(strings.Join(raw, " "), " - ", "-"), value: v,
				start: toks[i].start, end: toks[i+n-1].end})
			i += n - 1
		}
		// "4 and a half percent": the half is the number's
		if k := len(out) - 1; out[k].kind == kindNumber && wordAt(toks, i+1, "and") && wordAt(toks, i+2, "a") && wordAt(toks, i+3, "half") {
			out[k].value += 0.5
			out[k].raw, out[k].end = out[k].raw+" and a half", toks[i+3].end
			i += 3
		}
	}
	return out
}

// bareNumber is ten digits unbroken, a North American phone number written bare
// ("4155550123"), or eleven after a 1: a phone beside an e-mail address, not an amount.
func bareNumber(p string) bool {
	return strings.Trim(p, "0123456789") == "" && (len(p) == 10 || len(p) == 11 && p[0] == '1')
}

// phoneLike reports a phone number: 7 to 15 digits, and either a label before it ("phone"),
// a leading + or parenthesis, or groups of at most four digits ("555-1234").
func phoneLike(p string, labelled bool) bool {
	digits, group, longest := 0, 0, 0
	for _, r := range p {
		if r >= '0' && r <= '9' {
			digits++
			group++
			longest = max(longest, group)
		} else {
			group = 0
		}
	}
	trunk := p[0] == '0' && digits >= 10 // "07700 900123": no amount starts with 0
	return digits >= 7 && digits <= 15 &&
		(labelled || trunk || strings.ContainsAny(p, "+(") || (strings.ContainsAny(p, "-. ") && longest <= 4))
}

// alnumNear reports a letter or digit right before s[i] (before) or at it.
func alnumNear(s string, i int, before bool) bool {
	r, _ := utf8.DecodeRuneInString(s[i:]) // RuneError at either end, which is neither
	if before {
		r, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// digitNear reports an ASCII digit right before s[i] (before) or at it.
func digitNear(s string, i int, before bool) bool {
	if before {
		i--
	}
	return i >= 0 && i < len(s) && s[i] >= '0' && s[i] <= '9'
}

// clock normalises a matched time to HH:MM: m has the hour, the minutes and a or p.
func clock(text string, m []int) (string, bool) {
	h, _ := strconv.Atoi(text[m[2]:m[3]])
	mins, _ := strconv.Atoi(text[m[4]:m[5]])
	if m[6] >= 0 {
		if h < 1 || h > 12 {
			return "", false
		}
		h %= 12
		if strings.EqualFold(text[m[6]:m[7]], "p") {
			h += 12
		}
	}
	if h > 23 || mins > 59 {
		return "", false
	}
	return fmt.Sprintf("%02d:%02d", h, mins), true
}

// quoteClosers map an opening quote mark to its closing one.
var quoteClosers = map[rune]string{'"': `"`, '“': "”", '\'': "'"}

// quoteSpans finds text in double quotes, curly quotes, or single quotes that are not
// apostrophes (the opening one follows a space or punctuation, the closing one precedes it).
func quoteSpans(text string) []token {
	var spans []token
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		closer := quoteClosers[r]
		if r == '\'' && alnumNear(text, i, true) {
			closer = ""
		}
		end := -1
		for j := i + size; closer != "" && end < 0; j++ {
			k := strings.Index(text[j:], closer)
			if k < 0 {
				break
			}
			if j += k; closer != "'" || !alnumNear(text, j+1, false) {
				end = j
			}
		}
		if end < 0 || strings.TrimSpace(text[i+size:end]) == "" {
			i += size
			continue
		}
		inner := strings.TrimSpace(text[i+size : end])
		spans = append(spans, token{kind: kindQuote, raw: inner, start: i, end: end + len(closer)})
		i = end + len(closer)
	}
	return spans
}

// scanToken makes a word, number, punctuation or symbol token from one scanRe match.
func scanToken(s string) token {
	r, _ := utf8.DecodeRuneInString(s)
	switch {
	case unicode.IsLetter(r):
		return token{kind: kindWord, raw: s, norm: normWord(s)}
	case ordinalDigits.MatchString(s): // "2nd" is a word, as "second" is
		return token{kind: kindWord, raw: s, norm: strings.ToLower(s)}
	case strings.ContainsRune(",;.!?", r):
		return token{kind: kindPunct, raw: s}
	case strings.ContainsRune("<>+=-", r):
		return token{kind: kindSym, raw: s}
	}
	t := token{kind: kindNumber, raw: s, money: strings.ContainsRune("$€£", r)}
	num := strings.ToLower(strings.Join(strings.Fields(strings.TrimLeft(s, "$€£")), "")) // "$ 40 k"
	num, t.percent = strings.CutSuffix(num, "%")
	num, thousands := strings.CutSuffix(num, "k") // "40k" is money
	t.money, t.grouped = t.money || thousands, thousands || strings.Contains(num, ",")
	t.decimals = strings.Contains(num, ".")
	v, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", ""), 64)
	if err != nil {
		return token{kind: kindPunct, raw: s}
	}
	if thousands {
		v *= 1000
	}
	t.value = v
	return t
}

// mergeMultipliers folds "thousand", "grand" and currency words into the number before them,
// and the spelled hundreds after a spelled thousand.
func mergeMultipliers(toks []token) []token {
	out := toks[:0]
	for _, t := range toks {
		if n := len(out); t.norm == "month" && strings.EqualFold(t.raw, "mo") &&
			(n == 0 || out[n-1].kind != kindNumber && !slices.Contains([]string{"a", "per", "each", "every"}, out[n-1].norm)) {
			t.norm = "mo" // a month only after a number or "a" ("48 mo", "500 a mo"), not "mo li"
		}
		if n := len(out); n > 0 && out[n-1].grouped && t.kind == kindNumber && t.value < 1000 && letterRe.MatchString(out[n-1].raw) && letterRe.MatchString(t.raw) &&
			math.Mod(out[n-1].value, 1000) == 0 {
			out[n-1].value += t.value // "seven thousand five hundred": one figure, spelled
			out[n-1].end = t.end
			continue
		}
		if n := len(out); n > 0 && out[n-1].kind == kindNumber && t.kind == kindWord {
			switch t.norm {
			case "thousand", "grand":
				out[n-1].value *= 1000
				out[n-1].money, out[n-1].grouped = true, true
				out[n-1].end = t.end
				continue
			case "dollar", "usd", "eur", "euro", "buck": // one token: "3000 dollars down" is down
				out[n-1].money = true
				out[n-1].end = t.end
				continue
			case "percent": // and "pct", rewritten; one token, as "20%" is: "20 percent down" is down
				out[n-1].percent = true
				out[n-1].end = t.end
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// rewrites map a word to the word the tools usually use for it.
var rewrites = map[string]string{
	"colour": "color", "grey": "gray", "gas": "gasoline", "ev": "electric", "evs": "electric", "petrol": "gasoline",
	"truck": "pickup", "van": "minivan", "cabriolet": "convertible", "estate": "wagon",
	"saloon": "sedan", "automobile": "car", "vehicle": "car", "auto": "car", "yr": "year", "yrs": "year", "mos": "month", "mth": "month", "mths": "month", "mnth": "month", "mnths": "month",
	"mo": "month", "mail": "email", "telephone": "phone", "tel": "phone",
	"mobile": "phone", "does": "do", "cell": "phone", "pct": "percent", "mi": "mile", "cost": "price",
	"abt": "about", "cmp": "compare", "diff": "difference", "dn": "down", "dwn": "down", "compair": "compare", "pkg": "package", "pkgs": "package", "wat": "what", "wats": "what", "em": "them",
	"assist": "assistance", "kilometre": "km", "kilometer": "km", "gap": "difference",
	"hw": "how", "hv": "have", "morn": "morning", "teh": "the", "opn": "open", "undr": "under", "gry": "gray", "totl": "total", "vw": "volkswagen", "bak": "back", "bck": "back", "rated": "rating",
}

// lexicon is every word of the planner's word sets (setOf), with the words hints and rewrites
// read: what respell corrects a visitor's typing to.
var lexicon = map[string]bool{}

// The words fields are asked about are words too ("price" is no slip of "pricey").
func init() {
	for _, f := range fields {
		for _, w := range append(slices.Clone(f.words), f.adjective...) {
			lexicon[w] = true
		}
	}
}

// noteWords introduce words to pass on as written.
var noteWords = rawSet(`note notes comment comments message saying remark`)

// respell corrects the words of text that no tool, item or word set of the planner has and
// that are one typing slip (slips; the first letter kept) from exactly one word that one has:
// "whats the diffrence", "limted trim". Short words, names and words with capitals stay as
// typed, and so are the words after a note's (noteWords).
func (c *conv) respell(text string) string {
	var items []string
	for _, it := range c.before.known() {
		items = append(items, it.words...)
	}
	has := func(w string) bool {
		n := normWord(w)
		return lexicon[w] || lexicon[n] || c.vocab[n] || c.vocab[w] || hints[w] != nil || rewrites[w] != "" || slices.Contains(items, w) || slices.Contains(items, n)
	}
	toks := tokenize(text)
	// a note's words are the visitor's own: "add a note that we'd like to see the home charger"
	note := slices.IndexFunc(toks, func(t token) bool { return noteWords[strings.ToLower(t.raw)] })
	for i, t := range slices.Backward(toks) {
		if t.kind != kindWord || len(t.raw) < 5 || t.raw != strings.ToLower(t.raw) || strings.ContainsAny(t.raw, "'0123456789-") || has(t.raw) || personName(toks, i) ||
			note >= 0 && i > note {
			continue
		}
		// the likeliest slip first: a letter left out ("cheapr" is "cheaper", not "cheap")
		for _, tier := range slips(t.raw) {
			var fix []string
			for _, e := range tier {
				if e[0] == t.raw[0] && has(e) && !slices.Contains(fix, e) {
					fix = append(fix, e)
				}
			}
			if len(fix) == 1 {
				text = text[:t.start] + fix[0] + text[t.end:]
			}
			if len(fix) > 0 {
				break
			}
		}
	}
	return text
}

// slips are the words one typing slip from w, by kind of slip from the likeliest: a letter
// left out ("limted"), two neighbours swapped ("hybird"), and in a word of seven letters or
// more a letter changed ("cheepest"). In a shorter word a letter changed or added is a word
// of its own too often ("miles", "model", "driver") to be read as a slip.
func slips(w string) [3][]string {
	var out [3][]string
	for i := 0; i <= len(w); i++ {
		for ch := byte('a'); ch <= 'z'; ch++ {
			out[0] = append(out[0], w[:i]+string(ch)+w[i:])
			if i < len(w) && ch != w[i] && len(w) >= 7 {
				out[2] = append(out[2], w[:i]+string(ch)+w[i+1:]) // "cheepest": a letter changed, in a long word
			}
		}
		if i+1 < len(w) {
			out[1] = append(out[1], w[:i]+string(w[i+1])+string(w[i])+w[i+2:])
		}
	}
	return out
}

// hints add weaker words a word suggests: "cheapest" suggests sorting by price, ascending.
var hints = map[string][]string{
	"cheapest": {"price", "asc", "ascending"}, "cheaper": {"price", "asc", "ascending"},
	"sporty": {"coupe", "convertible"}, "family": {"minivan", "suv"}, "kids": {"minivan", "suv"}, "children": {"minivan", "suv"}, "dog": {"minivan", "suv"}, "cheap": {"price"}, "total": {"price"}, "breakdown": {"price"}, "affordable": {"price"}, "inexpensive": {"price"}, "budget": {"price"},
	"expensive": {"price", "desc", "descending"}, "priciest": {"price", "desc", "descending"}, "dearest": {"price", "desc", "descending"},
	"pricey": {"price"}, "costly": {"price"}, "sticker": {"price"}, "submit": {"book", "apply", "send"}, "send": {"submit", "book", "apply"},
	"confirm": {"submit", "book", "send"}, "add": {"sum", "total"}, "plus": {"sum", "total"}, "finalize": {"submit", "book", "send"}, "finalise": {"submit", "book", "send"},
	"newest": {"year", "desc", "descending", "new"}, "latest": {"year", "desc", "descending", "new"},
	"newer": {"year", "new"}, "recent": {"year", "desc", "descending", "new"},
	"oldest": {"year", "asc", "ascending", "old"}, "older": {"year", "old"},
	"lowest": {"asc", "ascending"}, "fewest": {"asc", "ascending"}, "smallest": {"asc", "ascending"},
	"least": {"asc", "ascending"}, "highest": {"desc", "descending"}, "largest": {"desc", "descending"},
	"biggest": {"desc", "descending"}, "greatest": {"desc", "descending"},
	"ascending": {"asc"}, "increasing": {"asc", "ascending"},
	"descending": {"desc"}, "decreasing": {"desc", "descending"},
	"km": {"mileage"}, "mile": {"mileage"}, "kilometer": {"mileage"}, "kilometre": {"mileage"}, "odometer": {"mileage"},
	"schedule": {"book"}, "reserve": {"book"}, "remove": {"clear"}, "delete": {"clear"},
	"reset": {"clear"}, "view": {"open"}, "detail": {"open"}, "interest": {"apr", "rate"}, "rate": {"apr", "interest"},
	"down": {"financing"}, "loan": {"financing", "payment"}, "installment": {"payment", "monthly"},
	"monthly": {"payment", "financing"}, "month": {"payment", "financing"}, "finance": {"financing"}, "payment": {"financing"},
	// A day hints at booking: "next wednesday 2pm" on a car's page is for its booking page.
	"pending": {"open"}, "outstanding": {"open"}, "remaining": {"open"}, "unfinished": {"open"}, "incomplete": {"open"},
	"finished": {"done"}, "completed": {"done"}, "fly": {"flight"}, "flying": {"flight"},
	"monday": {"booking"}, "tuesday": {"booking"}, "wednesday": {"booking"}, "thursday": {"booking"},
	"friday": {"booking"}, "saturday": {"booking"}, "sunday": {"booking"}, "tomorrow": {"booking"},
}

// phrases (comma-separated, the keys) override the hints of the words they are made of with
// theirs (the values). Being specific, their hints count as much as the user's own words.
var phrases = map[string]string{
	"low to high, lowest to highest, least to most, a to z, lowest price":  "asc ascending",
	"high to low, highest to lowest, most to least, z to a, highest price": "desc descending",
	"most expensive":                   "price desc descending",
	"least expensive":                  "price asc ascending",
	"how much":                         "price",
	"come to":                          "price total",
	"side by side, next to each other": "compare comparison",
	"tell me about, more about":        "detail info information describe",
	"for a spin, try it out, take it out, drive it, want to try, like to try, in person, see it in person, come see it": "test drive",
	"per month, a month, each month, monthly, the payment":                                                              "monthly payment financing",
	"interested in, curious about, check out, have a look at":                                                           "open detail",
	"put down, down payment, a loan, interest rate":                                                                     "financing",
	"sign me up, sign up, sign us up":                                                                                   "apply submit register",
	"left to do, still to do, still have to do, still need to do, not done, not finished, not yet done":                 "open",
}

// phraseList reads comma-separated phrases as their words.
func phraseList(s string) [][]string {
	var out [][]string
	for _, p := range strings.Split(s, ",") {
		out = append(out, strings.Fields(p))
	}
	return out
}

// hint is a word that a word or phrase of the text suggests.
type hint struct {
	word   string
	strong bool // from a phrase
}

// numberNear reports a number within three tokens of toks[i]: "put 5k down", "down: $4,000".
func numberNear(toks []token, i int) bool {
	return slices.ContainsFunc(toks[max(i-3, 0):min(i+4, len(toks))], func(x token) bool { return x.kind == kindNumber })
}

// hintsOf returns, for each token, the words it suggests.
func hintsOf(toks []token) [][]hint {
	out := make([][]hint, len(toks))
	add := func(i int, strong bool, words ...string) {
		for _, w := range words {
			out[i] = append(out[i], hint{w, strong})
		}
	}
	covered := make([]bool, len(toks))
	for keys, hs := range phrases {
		for _, words := range phraseList(keys) {
			for i := range toks {
				if phraseAt(toks, i, words) {
					add(i, true, strings.Fields(hs)...)
					for k := range words {
						covered[i+k] = true
					}
				}
			}
		}
	}
	for i, t := range toks {
		if t.kind == kindWord && !covered[i] {
			hs := hints[t.norm]
			if i+1 < len(toks) && toks[i+1].norm == "than" {
				// "cheaper than 25k" is a bound, not an order: no direction to sort in.
				hs = slices.DeleteFunc(slices.Clone(hs), func(w string) bool { return orderWords[w] })
			}
			if t.norm == "down" && !numberNear(toks, i) {
				hs = nil // "put my name down as …": no down payment
			}
			add(i, false, hs...)
		}
		// What a file holds, by its extension: "read notes.txt" reads text; a name with an
		// extension is a file, not a directory.
		if ext := strings.ToLower(strings.TrimPrefix(path.Ext(t.raw), ".")); t.kind == kindPath && ext != "" {
			for kinds, exts := range fileKinds {
				if slices.Contains(strings.Fields(exts), ext) {
					add(i, false, strings.Fields(kinds)...)
				}
			}
			add(i, false, "file")
		}
	}
	return out
}

// fileKinds are what a file holds, by its extension, and "media" for all but text.
var fileKinds = map[string]string{
	"text":        "txt md markdown json csv tsv log yaml yml xml html htm css js ts go py rb java c h cpp rs sh ini toml conf cfg sql",
	"image media": "png jpg jpeg gif webp svg bmp ico tiff",
	"audio media": "mp3 wav ogg flac m4a aac",
	"video media": "mp4 mov webm mkv avi",
}

// stopWords carry no request of their own. "make" names a parameter on car pages; it is a
// stop word only in requests such as "make it red", and the parameter still matches through
// its enum values.
var stopWords = rawSet(`a about afternoon again all also am an and any anything are as at available
	evening free morning
	be been being but by can could did do doing don't dont for from get give go going got
	had ha have he hello her here hey hi him his how i i'd i'll i'm im ive if in into is it it'd
	it'll its just kind know let let' like look lot make me mine more most much my need no not
	now of off ok okay on once one only or our out over own please pls really same see she
	should show so some something still such tell than thank thanks that the their them then there
	these they thing this those through to too try under until up us very wa want we were
	what when where which while who why will with would yes you your yours first you've you're we've
	we're they're i've there's that's got possible possibly final updated current new default
	we'd we'll you'd you'll they'd they'll might shall must`)

// normWord lower-cases a word, drops a possessive, rewrites synonyms and removes plurals.
func normWord(w string) string {
	w = strings.Trim(strings.TrimSuffix(strings.ToLower(w), "'s"), "'")
	if r, ok := rewrites[w]; ok {
		return r
	}
	w = stem(w)
	return cmp.Or(rewrites[w], w)
}

// stem removes an English plural ending.
func stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") ||
		strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes")):
		return w[:n-2]
	case n > 3 && w[n-1] == 's' && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") &&
		!strings.HasSuffix(w, "is"):
		return w[:n-1]
	}
	return w
}

// identWords splits an identifier or a phrase into normalised words (see identSplit).
func identWords(s string) []string {
	words := identSplit(s)
	for i, w := range words {
		words[i] = normWord(w)
	}
	return words
}

// identPhrase is an identifier as lower-case words: "guestName" → "guest name",
// "annual_income" → "annual income".
func identPhrase(name string) string {
	return cmp.Or(strings.ToLower(strings.Join(identSplit(name), " ")), name) // "$" stays "$"
}

// identSplit splits an identifier or a phrase into its words as written: on _ - . and
// spaces, and between camelCase humps ("maxPrice" → max, Price; "carIDs" → car, IDs).
func identSplit(s string) []string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' {
			b.WriteByte(' ')
			continue
		}
		if i > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			// A lone lower-case "s" that ends a word is a plural ("IDs"), not a hump.
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1]) &&
				(rs[i+1] != 's' || (i+2 < len(rs) && unicode.IsLower(rs[i+2])))
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte(' ')
			}
		}
		b.WriteRune(r)
	}
	return strings.Fields(b.String())
}

// contentWords are the normalised words of s that ask for something: no stop words, no letters alone.
func contentWords(s string) []string {
	return slices.DeleteFunc(identWords(s), func(w string) bool { return len(w) <= 1 || stopWords[w] })
}

// wordsMatch reports whether two normalised words name the same thing: equal, one a prefix
// of the other ("mile"/"mileage"), or sharing a long stem ("compare"/"comparison").
func wordsMatch(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) < 4 {
		return false
	}
	if strings.HasPrefix(b, a) {
		// "mazda3" is a model, not the make "mazda": a word that goes on with digits is another;
		// so is the one who does it ("driver assistance" asks no drive)
		return !strings.ContainsAny(b[len(a):], "0123456789") && b != a+"r"
	}
	n := 0
	for n < len(a) && a[n] == b[n] {
		n++
	}
	return (n >= 5 && n >= len(a)-1) || typoMatch(a, b)
}

// typoMatch reports two words of at least five letters one typo apart: a letter missing,
// added, changed, or two neighbours swapped ("electirc").
func typoMatch(a, b string) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(b) < 5 || a == b || len(a) > len(b)+1 || digitsOf(a) != digitsOf(b) {
		return false // "mazda3" is no typo of "mazda"
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	if len(a) > len(b) {
		return a[i+1:] == b[i:]
	}
	return a[i+1:] == b[i+1:] || i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}

// cueWords state a bound for the number after them; cueAfter for the number before them.
var (
	maxCues = phraseList(`less expensive than, less than, fewer than, lower than, cheaper than, older than,
		no more than, not more than, not more expensive than, no more expensive than, not pricier than, not over, not above, at most, up to, under, below, max, maximum, within, before, budget, tops,
		nothing above, nothing over, nothing more than, nothing pricier than, nothing more expensive than, none above, none over,
		<, < =`)
	minCues = phraseList(`more expensive than, pricier than, more than, greater than, higher than, newer than,
		at least,
		over, above, from, after, since, min, minimum, between, >, > =`)
	// notMaxCues deny an upper bound, read before maxCues: "no less than 2020", "not cheaper than 20k".
	notMaxCues   = phraseList(`no less than, not less than, not cheaper than, not less expensive than, not under, not below, not older than`)
	maxCuesAfter = phraseList(`or less, or fewer, or lower, or under, or below, or cheaper, or older,
		or earlier, and under, and below, and less, and older, max, maximum, tops, at most, to spend, budget`)
	minCuesAfter = phraseList(`or more, or higher, or above, or over, or newer, or later, and up, and above,
		and over, and newer, and later, onwards, onward, plus, +, min, minimum, at least`)
	// cueWordSet holds every word of the cues.
	cueWordSet = rawSet(strings.Join(
		slices.Concat(slices.Concat(maxCues, minCues, notMaxCues, maxCuesAfter, minCuesAfter)...), " "))
)

// phraseAt reports the words of phrase at toks[i:]: words by their normal form, symbols
// as written.
func phraseAt(toks []token, i int, phrase []string) bool {
	return i >= 0 && i+len(phrase) <= len(toks) && slices.EqualFunc(toks[i:i+len(phrase)], phrase,
		func(t token, w string) bool {
			return t.norm == w || t.kind == kindWord && t.norm == normWord(w) || t.kind == kindSym && t.raw == w
		}) // ("tops" is "top")
}

// endsWith reports whether toks[:i] ends with one of the phrases.
func endsWith(toks []token, i int, set [][]string) bool {
	return slices.ContainsFunc(set, func(c []string) bool { return phraseAt(toks, i-len(c), c) })
}

// startsWith reports whether toks[i:] starts with one of the phrases.
func startsWith(toks []token, i int, set [][]string) bool {
	return slices.ContainsFunc(set, func(c []string) bool { return phraseAt(toks, i, c) })
}

// ownName is a tool's name without the server's prefix a terminal gives it
// ("everything__get-sum" is "get-sum"); a page tool's name as it is.
func ownName(name string) string {
	if i := strings.LastIndex(name, "__"); i >= 0 {
		return name[i+2:]
	}
	return name
}

// digitsOf is the digits of w in order: "mazda3" gives "3".
func digitsOf(w string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, w)
}

var (
	spacedThousands = regexp.MustCompile(`\d[\d ]*\d`)
	thousandsGroups = regexp.MustCompile(`^\d{1,3}(?: \d{3})+$`)
	decimalComma    = regexp.MustCompile(`(?i)\d,\d{1,2}\s*(?:%|percent)|\b(?:apr|rate|interest)\s+(?:of\s+|at\s+)?\d{1,2},\d{1,2}\b`)
)

// digitWords are the digits in words; pointWords a figure said with its decimals ("three point
// nine", "four point two five").
var (
	digitWords = strings.Fields(`zero one two three four five six seven eight nine`)
	pointWords = regexp.MustCompile(`(?i)\b` + digitAlt + `\s+point(?:\s+` + digitAlt + `\b){1,2}`)
	digitAlt   = "(?:" + strings.Join(digitWords, "|") + ")"
)

// writtenFigures writes figures as the planner reads them: thousands set apart by spaces
// joined ("income 48 000": 48000; a phone number "555 201 3344" is no such figure), and a
// rate's decimal comma a point ("3,9%", "apr 4,5").
func writtenFigures(text string) string {
	text = decimalComma.ReplaceAllStringFunc(text, func(s string) string { return strings.Replace(s, ",", ".", 1) })
	text = pointWords.ReplaceAllStringFunc(text, func(s string) string { // "three point nine": 3.9
		var b strings.Builder
		for _, w := range strings.Fields(strings.ToLower(s)) {
			if w == "point" {
				b.WriteByte('.')
			} else {
				b.WriteByte(byte('0' + slices.Index(digitWords, w)))
			}
		}
		return b.String()
	})
	return spacedThousands.ReplaceAllStringFunc(text, func(s string) string {
		if !thousandsGroups.MatchString(s) {
			return s
		}
		return strings.ReplaceAll(s, " ", "")
	})
}
