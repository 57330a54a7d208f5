// Package understand turns extracted commits into knowledge: change
// classification, summaries, design notes, test associations and
// co-evolution, deterministically and offline by default.
package understand
