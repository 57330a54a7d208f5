package store

import (
	"context"
	"testing"
	"time"

	"github.com/gitmemory/gitmemory/model"
)

// TestFindEntitiesExactNames: an exact key or qualified name ranks first
// even when it holds '_' or '%' (the LIKE patterns' escaped form was
// compared with =, so "a.rs#Printer.color_specs" found the most recent
// color_specs of any type instead).
func TestFindEntitiesExactNames(t *testing.T) {
	st, _ := openTest(t)
	ctx := context.Background()
	insert := func(hash string, when int64, changes ...model.EntityChange) {
		t.Helper()
		c := &model.Commit{Hash: hash, Message: "m", Author: model.Signature{Name: "a", When: time.Unix(when, 0)},
			Committer: model.Signature{Name: "a", When: time.Unix(when, 0)}}
		err := withWriter(st, func(w *Writer) error {
			return w.InsertCommit(ctx, &model.Understood{Commit: c, Entities: changes}, "main", time.Unix(when, 0))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	ch := func(path, qual, name string) model.EntityChange {
		return model.EntityChange{Path: path, Language: "Rust", Kind: "method", Name: name, Qualified: qual, Action: model.EntityIntroduced}
	}
	insert(hashA, 1000, ch("a.rs", "Printer.color_specs", "color_specs"), ch("c.rs", "x%y", "x%y"))
	insert(hashQ, 2000, ch("b.rs", "Args.color_specs", "color_specs"), ch("d.rs", "xzy", "xzy"))
	for name, want := range map[string]string{
		"a.rs#Printer.color_specs": "a.rs#Printer.color_specs",
		"Printer.color_specs":      "a.rs#Printer.color_specs",
		"color_specs":              "b.rs#Args.color_specs", // a plain name: the most recent
		"x%y":                      "c.rs#x%y",
	} {
		got, err := st.FindEntities(ctx, name, "", 5)
		if err != nil || len(got) == 0 || got[0].Key != want {
			t.Errorf("FindEntities(%q) = %v, %v; want %s first", name, got, err, want)
		}
	}
}
