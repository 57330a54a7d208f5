package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/gitmemory/gitmemory/indexer"
)

// progressBar draws done/total, rate and ETA on a terminal, redrawn in
// place at most ten times a second. Off a terminal it draws nothing, so
// logs and pipes stay clean.
type progressBar struct {
	w     io.Writer
	label string
	on    bool
	last  time.Time
	drawn bool
}

func newProgressBar(w io.Writer, label string, quiet bool) *progressBar {
	on := false
	if f, ok := w.(*os.File); ok && !quiet {
		on = term.IsTerminal(int(f.Fd()))
	}
	return &progressBar{w: w, label: label, on: on}
}

func (p *progressBar) update(pr indexer.Progress) {
	if !p.on || (time.Since(p.last) < 100*time.Millisecond && pr.Done < pr.Total) {
		return
	}
	p.last = time.Now()
	p.drawn = true
	fmt.Fprintf(p.w, "\r%s", renderProgress(p.label, pr, 30))
}

func (p *progressBar) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// renderProgress formats one progress line with a bar of width cells.
func renderProgress(label string, pr indexer.Progress, width int) string {
	frac := 0.0
	if pr.Total > 0 {
		frac = float64(pr.Done) / float64(pr.Total)
	}
	fill := int(frac * float64(width))
	bar := strings.Repeat("=", fill) + strings.Repeat(" ", width-fill)
	rate := 0.0
	if s := pr.Elapsed.Seconds(); s > 0 {
		rate = float64(pr.Done) / s
	}
	eta := "--:--"
	if rate > 0 {
		left := time.Duration(float64(pr.Total-pr.Done)/rate) * time.Second
		eta = fmt.Sprintf("%d:%02d", int(left.Minutes()), int(left.Seconds())%60)
	}
	line := fmt.Sprintf("%s [%s] %d/%d %3.0f%% %.0f commits/s ETA %s", label, bar, pr.Done, pr.Total, frac*100, rate, eta)
	if pr.Failed > 0 {
		line += fmt.Sprintf(" (%d failed)", pr.Failed)
	}
	return line
}
