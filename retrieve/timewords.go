package retrieve

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The times a question names. A user who remembers when something
// changed says so ("in early 2019 startup got slow", "around 2012 and
// 2013 the reply vanished", "in December 2012"), and the commit that
// answers was made then: its words are often not the question's, but its
// date is.

// period is a stretch of commit time, [from, to) in Unix seconds.
type period struct{ from, to int64 }

// windows are the periods a question names; a commit is in them when it is
// in any.
type windows []period

func (ws windows) holds(t int64) bool {
	for _, w := range ws {
		if w.from <= t && t < w.to {
			return true
		}
	}
	return false
}

// whenLift scales the relevance of a commit made in a time the question
// names. A factor, as defaultLift is: it reorders the commits that match
// about as well, and a commit of that time with no match stays out. On
// the dev splits 7 of 216 questions name a year; the six sets' means
// (all recall@5 / MRR, why recall@5 / MRR) went from 0.682 / 0.572 /
// 0.651 / 0.507 to 0.691 / 0.580 / 0.669 / 0.524 at 1.3, 0.693 / 0.582 /
// 0.673 / 0.527 at 1.5 and 0.695 / 0.584 / 0.678 / 0.532 at 2.0: one
// question more at 2.0, which lets a commit of that time with half the
// match tie with the best one. Versions ("in 2.28", "Express 5"), read
// through the tags' dates, were measured the same way and not kept: a
// version says when a behaviour was seen, which may be long after the
// change that made it, and they lowered recall@5.
const whenLift = 1.5

// yearPhrase finds a year (1970-2099) with what says which part of it is
// meant: a month before it, early, mid or late (and their Russian
// forms), or a second year after it that closes a range. The qualifier's
// boundary is spelled out: \b knows only ASCII letters.
var yearPhrase = regexp.MustCompile(`(?i)(?:(?:^|[^\pL])(early|mid|late|начале|середине|конце)[\s-]+(?:of\s+)?)?` +
	`(?:\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+)?` +
	`\b((?:19[7-9]|20\d)\d)\b(?:\s*(?:and|to|or|-|–|—|и|по)\s*((?:19[7-9]|20\d)\d)\b)?`)

var monthIndex = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

// whenWindows reads the times q names: "in 2019" is that year, "early
// 2019" its first five months, "mid-2023" April to September, "late
// 2024" its second half, "December 2012" that month, "2012 and 2013" or
// "2012-2013" both years. Each is a month wider on both sides: a change
// remembered as "early 2019" may have landed at the end of 2018.
func whenWindows(q string) windows {
	var out windows
	for _, m := range yearPhrase.FindAllStringSubmatch(q, -1) {
		y, _ := strconv.Atoi(m[3])
		from, to := date(y, 1), date(y+1, 1)
		switch {
		case m[4] != "":
			if y2, _ := strconv.Atoi(m[4]); y2 >= y && y2-y < 10 {
				to = date(y2+1, 1)
			}
		case m[2] != "":
			mo := monthIndex[strings.ToLower(m[2])]
			from, to = date(y, mo), date(y, mo+1)
		default:
			switch strings.ToLower(m[1]) {
			case "early", "начале":
				to = date(y, 6)
			case "mid", "середине":
				from, to = date(y, 4), date(y, 10)
			case "late", "конце":
				from = date(y, 7)
			}
		}
		out = append(out, period{from: from.AddDate(0, -1, 0).Unix(), to: to.AddDate(0, 1, 0).Unix()})
	}
	return out
}

// date is the first day of month m of year y, UTC; a month past December
// rolls into the next year.
func date(y int, m time.Month) time.Time { return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC) }
