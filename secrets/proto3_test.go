package secrets

import (
	"fmt"
	"sort"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
)

func TestProtoAnalyze(t *testing.T) {
	d, _ := detect.NewDetectorDefaultConfig()
	var ids []string
	for id := range d.Config.Rules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	nw := 0
	for _, id := range ids {
		r := d.Config.Rules[id]
		if r.Regex == nil {
			fmt.Println("NOREGEX", id)
			continue
		}
		sh, _ := analyzeRegexp(r.Regex.String(), r.Keywords)
		w := sh.windowable(r.Keywords)
		if !w {
			nw++
			fmt.Printf("FULL %s kw=%v lits=%q maxNL=%v maxW=%d\n   %s\n", id, r.Keywords, sh.lits, sh.maxNL, sh.maxW, r.Regex.String())
		} else if testing.Verbose() {
			fmt.Printf("WIN %s kw=%v lits=%q maxNL=%v maxW=%d\n", id, r.Keywords, sh.lits, sh.maxNL, sh.maxW)
		}
	}
	fmt.Println("non-windowable", nw, "of", len(ids))
}
