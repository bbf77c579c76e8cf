package planner

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// monthRe is a month's name or its short form ("maybe 11" is no May 11th, "marching" no March).
const monthRe = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`

var (
	relDayRe  = regexp.MustCompile(`(?i)\b((the )?day after ` + tomorrow + `|` + tomorrow + `|today|tonight)\b`)
	tomorrow  = `(?:tomm?orr?ow|tmrw|tmr|tmw|2morr?ow|2moro)` // as typed on a phone
	weekdayRe = regexp.MustCompile(`(?i)\b(?:(next|this|coming|on|a\s+week\s+from)\s+)?` +
		`((?:mon|tue|wed|thu|fri|sat|sun)[a-z]*)\b(\s+next\s+week\b)?`)
	shortDayRe = regexp.MustCompile(`(?i)\b(?:sun|tue|thu)(?:\s+(?:at\s+)?\d|\s+instead\b|\s+same\b|\s*[?!.]*\s*$)`)
	// "December 3", "Dec 3rd", "3 December", "3rd of Dec".
	calDateRe = regexp.MustCompile(`(?i)\b(?:` + monthRe + `\s+(\d{1,2})(?:st|nd|rd|th)?|` +
		`(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRe + `)\b`)
	// "12/12", "12/12/26": month first, as the site's shoppers write it (day first when the
	// first number cannot be a month); not part of a longer figure ("1/2/3", "$12/12").
	numDateRe = regexp.MustCompile(`(?:^|[^\d/$.])(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?(?:$|[^\d/%])`)
	atHourRe  = regexp.MustCompile(`(?i)\b(at|@|around|by|after|before|say|\d{4}-\d\d-\d\d)\s+(\d{1,2})(?::([0-5]\d))?\b`)
	noonRe    = regexp.MustCompile(`(?i)\b(?:at\s+)?noon\b`)
	// pastHourRe is a time said by the clock's face: "half past ten", "a quarter past 2".
	pastHourRe = regexp.MustCompile(`(?i)\b(?:at\s+)?(?:a\s+)?(half|quarter)\s+(?:past|after)\s+(\w+)\b`)
	// hourWords are the hours in words; hourWordRe one said as a time: after "at", "say",
	// "around" or "by", or before o'clock, am or pm.
	hourWords  = strings.Fields("one two three four five six seven eight nine ten eleven twelve")
	hourWordRe = regexp.MustCompile(`(?i)(\b(?:at|say|around|by)\s+|\b)(` + strings.Join(hourWords, "|") + `)(\s*(?:o'?clock|o’clock|[ap]\.?m\b)|\b)`)
	oclockRe   = regexp.MustCompile(`(?i)(?:\bat\s+)?\b(\d{1,2})\s*(?:o'?clock|o’clock)`)
	// "the 12th", "saturday the 12th" (not "the 12th of December", which calDateRe reads)
	// a weekday named before a date: "thursday, dec 10", "fri 12/11"
	dayBeforeDate = regexp.MustCompile(`(?i)\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+(\d{4}-\d\d-\d\d)`)
	placeAfter    = regexp.MustCompile(`(?i)^\s+(?:one|option|choice)\b`)
	dayOfMonthRe  = regexp.MustCompile(`(?i)\b(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,?\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\b`)
)

// calendarWords name a day unmistakably ("may", "sun" and "wed" are also other words).
var calendarWords = wordSet(`monday tuesday wednesday thursday friday saturday sunday today tomorrow tonight weekend`)

// monthList names the months, whole or short ("may" too, which monthNames leaves out: it is
// also another word); calendarList names days and months, and the times of a day.
const (
	monthList = `january february march april may june july august september october november
	december jan feb mar apr jun jul aug sep sept oct nov dec`
	calendarList = `monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu
	thur thurs fri sat sun ` + monthList + `
	today tomorrow tonight morning afternoon evening noon`
)

// monthNames are the months' names that are no other word.
var monthNames = wordSet(strings.Replace(monthList, "may ", "", 1))

// rewriteDates writes the dates a shopper says ("tomorrow", "Saturday", "next Monday",
// "December 3") as YYYY-MM-DD, counted from today, so the date parameters can take them.
// relDay is the day relDayRe's words name: "today", "tomorrow", "the day after tomorrow".
func relDay(s string, today time.Time) time.Time {
	if l := strings.ToLower(s); l != "today" && l != "tonight" {
		return today.AddDate(0, 0, 1+strings.Count(l, "after"))
	}
	return today
}

func rewriteDates(text string, today time.Time) string {
	iso := func(t time.Time) string { return t.Format("2006-01-02") }
	// dated is day of month this year, or so many years or months later once it is past; s
	// when the month has no such day ("February 30").
	dated := func(s string, month time.Month, day string, years, months int) string {
		d, _ := strconv.Atoi(day)
		t := time.Date(today.Year(), month, d, 0, 0, 0, 0, time.UTC)
		if t.Day() != d {
			return s
		}
		if t.Before(time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)) {
			t = t.AddDate(years, months, 0)
		}
		return iso(t)
	}
	text = relDayRe.ReplaceAllStringFunc(text, func(s string) string { return iso(relDay(s, today)) })
	text = calDateRe.ReplaceAllStringFunc(text, func(s string) string {
		m := calDateRe.FindStringSubmatch(s)
		name := m[1] + m[4]
		month, _ := time.Parse("Jan", name[:3]) // the standard library's month names, in any case
		return dated(s, month.Month(), m[2]+m[3], 1, 0)
	})
	text = replaceNumDates(text, today)
	text = dayBeforeDate.ReplaceAllString(text, "$1") // "Thursday, December 10": the date says the day
	// "saturday the 12th", "the 12th": that day of this month, or of the next once it is past
	// (not "the 9th one", a place in a list)
	for _, m := range slices.Backward(dayOfMonthRe.FindAllStringSubmatchIndex(text, -1)) {
		if !placeAfter.MatchString(text[m[1]:]) {
			text = text[:m[0]] + dated(text[m[0]:m[1]], today.Month(), text[m[2]:m[3]], 0, 1) + text[m[1]:]
		}
	}
	// "sun 10am", "tue at 3", "sun instead", "actually sun same time", "sun?": a short day before
	// an hour or a change, or ending the message, is a day
	text = shortDayRe.ReplaceAllStringFunc(text, func(s string) string {
		return map[string]string{"sun": "sunday", "tue": "tuesday", "thu": "thursday"}[strings.ToLower(s[:3])] + s[3:]
	})
	text = weekdayRe.ReplaceAllStringFunc(text, func(s string) string {
		m := weekdayRe.FindStringSubmatch(s)
		typed := strings.ToLower(m[2])
		day := cmp.Or(map[string]string{"weds": "wed", "tues": "tue", "thur": "thu", "thurs": "thu"}[typed], typed)
		wd := time.Weekday(strings.Index("sunmontuewedthufrisat", day[:3]) / 3)
		full := strings.ToLower(wd.String())
		if !strings.HasPrefix(full, day) || m[1] == "" && typed == "sun" {
			return s // "month" is no Monday; "sun" alone is too likely the sun ("i meant thu" is a day)
		}
		if m[3] != "" { // "thursday next week": in the week after this one (weeks start on Monday)
			monday := today.AddDate(0, 0, 7-(int(today.Weekday())+6)%7) // the next Monday after today
			return iso(monday.AddDate(0, 0, (int(wd)+6)%7))
		}
		later := 0
		if strings.HasPrefix(strings.ToLower(m[1]), "a") {
			later = 7 // "a week from friday": the friday after the coming one
		}
		return iso(today.AddDate(0, 0, (int(wd)-int(today.Weekday())+6)%7+1+later))
	})
	return text
}

// replaceNumDates writes "12/12" as that day: this year's, or next year's once it is past,
// unless the year is said.
func replaceNumDates(text string, today time.Time) string {
	var b strings.Builder
	last := 0
	for _, m := range numDateRe.FindAllStringSubmatchIndex(text, -1) {
		mo, _ := strconv.Atoi(text[m[2]:m[3]])
		d, _ := strconv.Atoi(text[m[4]:m[5]])
		if mo > 12 {
			mo, d = d, mo // "25/12"
		}
		y := today.Year()
		if m[6] >= 0 {
			y, _ = strconv.Atoi(text[m[6]:m[7]])
			if y < 100 {
				y += 2000
			}
		}
		t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
		if mo < 1 || mo > 12 || t.Day() != d {
			continue // "13/13", "2/30": no day
		}
		if m[6] < 0 && t.Before(time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)) {
			t = t.AddDate(1, 0, 0)
		}
		b.WriteString(text[last:m[2]] + t.Format("2006-01-02"))
		last = max(m[5], m[7]) // the end of the year, else of the day (m[7] is -1 without a year)
	}
	return b.String() + text[last:]
}

// hourOf is the hour an hour word names ("ten" is 10), 0 for any other word.
func hourOf(w string) int {
	return slices.IndexFunc(hourWords, func(h string) bool { return strings.EqualFold(h, w) }) + 1
}

// hourH is an hour written the French way: "14h", "9h30".
var hourH = regexp.MustCompile(`(?i)\b(?:[01]?\d|2[0-3])h(?:[0-5]\d)?\b`)

// afterHour may follow an hour said after a date: "sat 10 pls", "tomorrow 10 phone 555…",
// "friday 3 ok", "tomorow 10 test drive" (not "friday 4 people").
var afterHour = regexp.MustCompile(`^(?:please|pls|plz|ok|okay|thanks|thx|then|phone|name|e-?mail|mail|my|test\s*drive|book)\b`)

// rewriteTimes writes "at 10", "at 2" and "noon" as 10:00, 14:00 and 12:00. A bare hour
// from 1 to 7 is taken in the afternoon (nobody books a test drive at 3 in the night); an
// hour followed by am/pm, a unit or a percent sign is left alone.
func rewriteTimes(text string) string {
	text = noonRe.ReplaceAllString(text, "12:00")
	text = pastHourRe.ReplaceAllStringFunc(text, func(m string) string { // "half past ten", "quarter past 2"
		sub := pastHourRe.FindStringSubmatch(m)
		h, err := strconv.Atoi(sub[2])
		if w := hourOf(sub[2]); w > 0 {
			h, err = w, nil
		}
		if err != nil || h < 1 || h > 12 {
			return m
		}
		return "at " + strconv.Itoa(h) + ":" + map[string]string{"half": "30", "quarter": "15"}[strings.ToLower(sub[1])]
	})
	text = hourH.ReplaceAllStringFunc(text, func(m string) string { // "14h", "9h30"
		h, mins, _ := strings.Cut(strings.ToLower(m), "h")
		return h + ":" + cmp.Or(mins, "00")
	})
	// An hour in words, or with o'clock: "ten o'clock", "say ten", "ten am" are at 10.
	text = hourWordRe.ReplaceAllStringFunc(text, func(m string) string {
		sub := hourWordRe.FindStringSubmatch(m)
		if strings.TrimSpace(sub[1]) == "" && strings.TrimSpace(sub[3]) == "" {
			return m // "the cheaper one", "two people"
		}
		return sub[1] + strconv.Itoa(hourOf(sub[2])) + sub[3]
	})
	text = oclockRe.ReplaceAllString(text, "at $1")
	var b strings.Builder
	last := 0
	for _, m := range atHourRe.FindAllStringSubmatchIndex(text, -1) {
		rest := strings.ToLower(strings.TrimLeft(text[m[1]:], " "))
		units := []string{"am", "pm", "a.m", "p.m", "%", "k", "percent", "month", "year"}
		unit := slices.ContainsFunc(units, func(u string) bool {
			// a word of its own, or "months", "percentage" ("10 amy wong …" is at 10)
			after := strings.TrimPrefix(rest, u)
			return strings.HasPrefix(rest, u) && (after == "" || !unicode.IsLetter(rune(after[0])) || len(u) > 3)
		}) ||
			strings.HasPrefix(text[m[1]:], "-") || len(rest) > 1 && rest[0] == '.' && unicode.IsDigit(rune(rest[1])) // "at 5.5%", not "at 11."
		// After a date only an hour that ends the words is one: "sat 9", "fri 10, please", not
		// "friday 4 people".
		dated := text[m[2]] >= '0' && text[m[2]] <= '9'
		// (or is followed by the visitor's details: "sat 10 amy wong amy.wong@mail.com")
		details := strings.Contains(strings.SplitN(rest, ",", 2)[0], "@")
		unit = unit || dated && rest != "" && !strings.ContainsAny(rest[:1], ",.!?;") && !afterHour.MatchString(rest) && !details
		h, _ := strconv.Atoi(text[m[4]:m[5]])
		if unit || digitNear(text, m[0], true) || h > 23 {
			continue
		}
		mins := "00"
		if m[6] >= 0 {
			mins = text[m[6]:m[7]]
		}
		if h >= 1 && h <= 7 {
			h += 12
		}
		b.WriteString(text[last:m[4]] + strconv.Itoa(h/10) + strconv.Itoa(h%10) + ":" + mins)
		last = m[1]
	}
	return b.String() + text[last:]
}
