package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

func TestValidName(t *testing.T) {
	for _, ok := range []string{"api", "my-project", "git.git", "a_b.c-1"} {
		if err := ValidName(ok); err != nil {
			t.Errorf("%q rejected: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "../x", "a/b", `a\b`, ".hidden", "-flag", "a..b", "x y", strings.Repeat("a", 101), "naïve"} {
		if err := ValidName(bad); !errors.Is(err, ErrBadName) {
			t.Errorf("%q accepted (err %v)", bad, err)
		}
	}
}

func TestDefaultName(t *testing.T) {
	cases := map[string]string{"/src/api": "api", "/srv/git/big.git": "big", "/x/My Project!": "My-Project", "/x/...": "repo"}
	for root, want := range cases {
		if got := defaultName(root); got != want {
			t.Errorf("defaultName(%q) = %q, want %q", root, got, want)
		}
		if ValidName(defaultName(root)) != nil {
			t.Errorf("defaultName(%q) is not a valid name", root)
		}
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("GITMEMORY_HOME", "/a/b")
	if d := DefaultDir(); d != "/a/b" {
		t.Errorf("GITMEMORY_HOME: %s", d)
	}
	t.Setenv("GITMEMORY_HOME", "")
	t.Setenv("XDG_DATA_HOME", "/xdg")
	if d := DefaultDir(); d != "/xdg/gitmemory" {
		t.Errorf("XDG_DATA_HOME: %s", d)
	}
}

func TestResolveAndUnknown(t *testing.T) {
	ctx := context.Background()
	h, err := OpenHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Resolve(ctx, "x"); !errors.Is(err, ErrUnknownRepo) || !strings.Contains(err.Error(), "nothing is registered") {
		t.Errorf("empty home: %v", err)
	}
	g := gittest.New(t)
	g.Write("f", "x\n")
	g.Commit("one")
	if _, err := h.Add(ctx, filepath.Join(g.Dir), AddOptions{Name: "proj"}); err != nil {
		t.Fatal(err)
	}
	// A subdirectory of the work tree resolves to its repository.
	os.MkdirAll(filepath.Join(g.Dir, "sub"), 0o755)
	if name, err := h.Resolve(ctx, filepath.Join(g.Dir, "sub")); err != nil || name != "proj" {
		t.Errorf("subdirectory: %q %v", name, err)
	}
	if _, err := h.Resolve(ctx, "prj"); err == nil || !strings.Contains(err.Error(), `did you mean "proj"`) {
		t.Errorf("typo: %v", err)
	}
	// A name that could escape the home is refused before touching disk.
	if _, err := h.Get(ctx, "../proj"); !errors.Is(err, ErrBadName) {
		t.Errorf("escape: %v", err)
	}
}
