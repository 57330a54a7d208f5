package secrets

import (
	"os"
	"testing"
)

func loadClean() string {
	bs, _ := os.ReadFile("testdata/clean.diff")
	return string(bs)
}

func BenchmarkScratchRedact(b *testing.B) {
	s, _ := New()
	txt := loadClean()
	b.SetBytes(int64(len(txt)))
	b.ReportAllocs()
	for b.Loop() {
		s.Redact(txt)
	}
}

func BenchmarkScratchFindings(b *testing.B) {
	s, _ := New()
	txt := loadClean()
	b.SetBytes(int64(len(txt)))
	for b.Loop() {
		s.findings(txt)
	}
}

func BenchmarkScratchAll(b *testing.B) {
	s, _ := New()
	txt := loadClean()
	b.SetBytes(int64(len(txt)))
	for b.Loop() {
		s.all.DetectString(txt)
	}
}

func BenchmarkScratchEntropy(b *testing.B) {
	txt := loadClean()
	b.SetBytes(int64(len(txt)))
	for b.Loop() {
		highEntropySpans(txt, nil)
	}
}

func BenchmarkScratchPEM(b *testing.B) {
	txt := loadClean()
	b.SetBytes(int64(len(txt)))
	for b.Loop() {
		privateKeySpans(txt, nil)
	}
}

func BenchmarkScratchFind(b *testing.B) {
	s, _ := New()
	txt := loadClean()
	lower := []byte(txt)
	b.SetBytes(int64(len(txt)))
	for b.Loop() {
		s.lits.find(lower, func(pos, n int, r int32) {})
	}
}
