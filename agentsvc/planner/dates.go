package planner

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

var (
	relDayRe   = regexp.MustCompile(`(?i)\b(the day after tomorrow|day after tomorrow|tomorrow|today|tonight)\b`)
	weekdayRe  = regexp.MustCompile(`(?i)\b(?:(next|this|coming|on)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\b`)
	monthDayRe = regexp.MustCompile(`(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b`)
	dayMonthRe = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b`)
	atHourRe   = regexp.MustCompile(`(?i)\b(at|@|around|by)\s+(\d{1,2})(?::([0-5]\d))?\b`)
	noonRe     = regexp.MustCompile(`(?i)\b(?:at\s+)?noon\b`)
)

var weekdays = map[string]time.Weekday{
	"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "tues": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "thur": time.Thursday, "thurs": time.Thursday, "fri": time.Friday, "sat": time.Saturday,
}

// calendarList names days and months, and the times of a day.
const calendarList = `monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu
	thur thurs fri sat sun january february march april may june july august september october november
	december jan feb mar apr jun jul aug sep sept oct nov dec today tomorrow tonight morning afternoon evening noon`

var months = map[string]time.Month{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
	"oct": 10, "nov": 11, "dec": 12,
}

// rewriteDates writes the dates a shopper says ("tomorrow", "Saturday", "next Monday",
// "December 3") as YYYY-MM-DD, counted from today, so the date parameters can take them.
func rewriteDates(text string, today time.Time) string {
	iso := func(t time.Time) string { return t.Format("2006-01-02") }
	text = relDayRe.ReplaceAllStringFunc(text, func(s string) string {
		switch l := strings.ToLower(s); {
		case strings.Contains(l, "after"):
			return iso(today.AddDate(0, 0, 2))
		case l == "tomorrow":
			return iso(today.AddDate(0, 0, 1))
		}
		return iso(today)
	})
	text = weekdayRe.ReplaceAllStringFunc(text, func(s string) string {
		m := weekdayRe.FindStringSubmatch(s)
		day := strings.ToLower(m[2])
		wd, ok := weekdays[day]
		if !ok {
			wd = weekdays[day[:3]]
		}
		if len(day) <= 3 && m[1] == "" && day != "wed" && day != "fri" && day != "sat" && day != "mon" {
			return s // "sun", "tue" alone are too likely other words
		}
		d := (int(wd) - int(today.Weekday()) + 7) % 7
		if d == 0 {
			d = 7
		}
		return iso(today.AddDate(0, 0, d))
	})
	toDate := func(month time.Month, day int) (string, bool) {
		if day < 1 || day > 31 {
			return "", false
		}
		t := time.Date(today.Year(), month, day, 0, 0, 0, 0, time.UTC)
		if t.Month() != month {
			return "", false
		}
		if t.Before(time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)) {
			t = t.AddDate(1, 0, 0)
		}
		return iso(t), true
	}
	text = monthDayRe.ReplaceAllStringFunc(text, func(s string) string {
		m := monthDayRe.FindStringSubmatch(s)
		day, _ := strconv.Atoi(m[2])
		if d, ok := toDate(months[strings.ToLower(m[1])], day); ok {
			return d
		}
		return s
	})
	text = dayMonthRe.ReplaceAllStringFunc(text, func(s string) string {
		m := dayMonthRe.FindStringSubmatch(s)
		day, _ := strconv.Atoi(m[1])
		if d, ok := toDate(months[strings.ToLower(m[2])], day); ok {
			return d
		}
		return s
	})
	return text
}

// rewriteTimes writes "at 10", "at 2" and "noon" as 10:00, 14:00 and 12:00. A bare hour
// from 1 to 7 is taken in the afternoon (nobody books a test drive at 3 in the night); an
// hour followed by am/pm, a unit or a percent sign is left alone.
func rewriteTimes(text string) string {
	text = noonRe.ReplaceAllString(text, "12:00")
	var b strings.Builder
	last := 0
	for _, m := range atHourRe.FindAllStringSubmatchIndex(text, -1) {
		rest := strings.ToLower(strings.TrimLeft(text[m[1]:], " "))
		if strings.HasPrefix(rest, "am") || strings.HasPrefix(rest, "pm") || strings.HasPrefix(rest, "a.m") ||
			strings.HasPrefix(rest, "p.m") || strings.HasPrefix(rest, "%") || strings.HasPrefix(rest, ".") ||
			strings.HasPrefix(rest, "k") || strings.HasPrefix(rest, "percent") || strings.HasPrefix(rest, "month") ||
			strings.HasPrefix(rest, "year") || (m[1] < len(text) && text[m[1]] == '-') {
			continue
		}
		if m[0] > 0 && text[m[0]-1] >= '0' && text[m[0]-1] <= '9' {
			continue
		}
		h, _ := strconv.Atoi(text[m[4]:m[5]])
		mins := "00"
		if m[6] >= 0 {
			mins = text[m[6]:m[7]]
		}
		if h > 23 {
			continue
		}
		if h >= 1 && h <= 7 {
			h += 12
		}
		b.WriteString(text[last:m[4]])
		b.WriteString(strconv.Itoa(h/10) + strconv.Itoa(h%10) + ":" + mins)
		last = m[1]
	}
	b.WriteString(text[last:])
	return b.String()
}
