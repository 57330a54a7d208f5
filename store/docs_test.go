package store

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func docTerm(t *testing.T, st *Store, w string) int {
	t.Helper()
	df, err := st.DocFrequencies(context.Background(), []string{w, "absent-word"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := df["absent-word"]; ok {
		t.Fatalf("a word in no paragraph has a count: %v", df)
	}
	return df[w]
}

func TestReplaceDocs(t *testing.T) {
	st, _ := openTest(t)
	ctx := context.Background()
	readme := DocFile{Path: "README.md", Blob: []byte{1}, Paragraphs: []string{
		"Set core.preloadIndex to check files in parallel threads.", "Threads speed up status on NFS."}}
	manual := DocFile{Path: "docs/gc.md", Blob: []byte{2}, Paragraphs: []string{"Housekeeping runs gc --auto in the background."}}
	if err := st.ReplaceDocs(ctx, "h1", nil, []DocFile{readme, manual}); err != nil {
		t.Fatal(err)
	}
	state, err := st.LoadDocsState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if state.Head != "h1" || state.Paragraphs != 3 || len(state.Blobs) != 2 || state.Blobs["docs/gc.md"][0] != 2 {
		t.Fatalf("state %+v", state)
	}
	if docTerm(t, st, "threads") != 2 || docTerm(t, st, "core.preloadindex") != 1 || docTerm(t, st, "gc") != 0 {
		t.Errorf("df threads %d, core.preloadindex %d, gc (two letters) %d", docTerm(t, st, "threads"),
			docTerm(t, st, "core.preloadindex"), docTerm(t, st, "gc"))
	}
	// A changed README replaces its paragraphs; a removed manual leaves.
	readme.Blob, readme.Paragraphs = []byte{3}, []string{"Threads are no longer used; preloading was removed."}
	if err := st.ReplaceDocs(ctx, "h2", []string{"docs/gc.md"}, []DocFile{readme}); err != nil {
		t.Fatal(err)
	}
	if state, err = st.LoadDocsState(ctx); err != nil {
		t.Fatal(err)
	}
	if state.Head != "h2" || state.Paragraphs != 1 || len(state.Blobs) != 1 || state.Blobs["README.md"][0] != 3 {
		t.Fatalf("state after the change %+v", state)
	}
	if docTerm(t, st, "threads") != 1 || docTerm(t, st, "core.preloadindex") != 0 || docTerm(t, st, "housekeeping") != 0 {
		t.Errorf("df after the change: threads %d, core.preloadindex %d, housekeeping %d", docTerm(t, st, "threads"),
			docTerm(t, st, "core.preloadindex"), docTerm(t, st, "housekeeping"))
	}
	ids, err := Ints(ctx, st.DB, `SELECT rowid FROM docs WHERE docs MATCH 'preloading'`)
	if err != nil {
		t.Fatal(err)
	}
	paras, err := st.DocParagraphs(ctx, ids)
	if err != nil || len(paras) != 1 || paras[0] != (DocParagraph{"README.md", "Threads are no longer used; preloading was removed."}) {
		t.Errorf("search after the change: %q, %v", paras, err)
	}
	if n, _ := Ints(ctx, st.DB, `SELECT rowid FROM docs WHERE docs MATCH 'housekeeping OR threads'`); len(n) != 1 {
		t.Errorf("the removed manual is still searched, or the README's new paragraph is not: rows %v", n)
	}
}

// A paragraph id the index does not hold, and a file's paragraphs that
// do not decompress, are errors naming what was asked for.
func TestDocParagraphsBadInput(t *testing.T) {
	st, _ := openTest(t)
	ctx := context.Background()
	manual := DocFile{Path: "docs/manual.md", Blob: []byte{1}, Paragraphs: []string{strings.Repeat("A long paragraph of the manual. ", 20)}}
	if err := st.ReplaceDocs(ctx, "h1", nil, []DocFile{manual}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DocParagraphs(ctx, []int64{99}); err == nil || !strings.Contains(err.Error(), "paragraph 99") {
		t.Errorf("an unknown paragraph: %v", err)
	}
	if _, err := st.DB.Exec(`UPDATE doc_files SET codec = 1, text = x'00010203'`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DocParagraphs(ctx, []int64{1}); err == nil || !strings.Contains(err.Error(), "docs/manual.md") {
		t.Errorf("a corrupt file's paragraphs: %v", err)
	}
	// Replacing the file reads its old paragraphs to count their words out: the corruption says so too.
	if err := st.ReplaceDocs(ctx, "h2", []string{"docs/manual.md"}, nil); err == nil || !strings.Contains(err.Error(), "docs/manual.md") {
		t.Errorf("dropping a corrupt file: %v", err)
	}
}

func TestDocWords(t *testing.T) {
	got := DocWords("Set `core.preloadIndex` (see --no-verify, v2.1) to an NFS share; NFS is slow.")
	want := []string{"core.preloadindex", "nfs", "no-verify", "see", "set", "share", "slow", "v2.1"}
	if !slices.Equal(got, want) {
		t.Errorf("DocWords = %q, want %q", got, want)
	}
}
