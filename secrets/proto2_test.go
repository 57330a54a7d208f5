package secrets

import (
	"os"
	"testing"
	"strings"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

func BenchmarkProto(b *testing.B) {
	logging.Logger = zerolog.Nop()
	d, _ := detect.NewDetectorDefaultConfig()
	bs, _ := os.ReadFile("testdata/clean.diff")
	s := string(bs)
	b.SetBytes(int64(len(s)))
	for i := 0; i < b.N; i++ {
		d.DetectString(s)
	}
}

func TestKeywordsHit(t *testing.T) {
	d, _ := detect.NewDetectorDefaultConfig()
	bs, _ := os.ReadFile("testdata/clean.diff")
	s := strings.ToLower(string(bs))
	for _, r := range d.Config.Rules {
		for _, k := range r.Keywords {
			if strings.Contains(s, strings.ToLower(k)) {
				t.Log(r.RuleID, k)
				break
			}
		}
	}
}
