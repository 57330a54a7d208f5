package api

import "github.com/gitmemory/gitmemory/retrieve"

// lookupWire carries a lookup's result with each match's ranking details,
// which retrieve.LookupResult keeps out of its JSON (seed 000 fixes the
// fields of that format) but the CLI prints.
type lookupWire struct {
	*retrieve.LookupResult
	Ranking []matchRanking `json:"ranking"`
}

// matchRanking is why a match ranks where it does.
type matchRanking struct {
	Severity      retrieve.Severity `json:"severity"`
	Overlap       int               `json:"overlap"`
	ByPath        bool              `json:"by_path"`
	ByFingerprint bool              `json:"by_fingerprint"`
}

func wireLookup(r *retrieve.LookupResult) lookupWire {
	w := lookupWire{LookupResult: r, Ranking: []matchRanking{}}
	for _, m := range r.Matches {
		w.Ranking = append(w.Ranking, matchRanking{m.Severity, m.Overlap, m.ByPath, m.ByFingerprint})
	}
	return w
}

func (w *lookupWire) result() *retrieve.LookupResult {
	if w.LookupResult == nil {
		return &retrieve.LookupResult{}
	}
	for i := range w.Matches {
		if i < len(w.Ranking) {
			r := w.Ranking[i]
			w.Matches[i].Severity, w.Matches[i].Overlap, w.Matches[i].ByPath, w.Matches[i].ByFingerprint =
				r.Severity, r.Overlap, r.ByPath, r.ByFingerprint
		}
	}
	return w.LookupResult
}
