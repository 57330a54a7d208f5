// Command xrelsample samples the code relationships of indexed
// repositories for labelling, and scores the labels:
//
//	xrelsample -home H [-n 100] [-seed 1] REPO...        print a sample
//	xrelsample -score labels.tsv                          precision by language and kind
//
// A sample takes n relationships per language (by the source's language),
// uniformly among those at the newest indexed version, and prints each
// with the evidence to judge it by, read from the repository at the
// indexed head: for CALLS, the lines of the caller that call the name and
// the callee's definition; for IMPORTS, the importing lines; for EXTENDS
// and IMPLEMENTS, both headers. Each line starts with the fields of a
// labels row (repo, language, kind, from, to) and a blank label to fill in
// with "ok" or "wrong" and a note; -score reads such rows back.
package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gitmemory/gitmemory/model"
	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/understand/entity"
)

func main() {
	home := flag.String("home", os.Getenv("GITMEMORY_HOME"), "gitmemory home holding the indexed repositories")
	n := flag.Int("n", 100, "relationships per language")
	seed := flag.Uint64("seed", 1, "the sample's random seed")
	score := flag.String("score", "", "a labels file to score instead of sampling")
	flag.Parse()
	var err error
	if *score != "" {
		err = scoreLabels(*score)
	} else {
		err = sample(context.Background(), *home, *n, *seed, flag.Args())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "xrelsample:", err)
		os.Exit(1)
	}
}

// edge is one relationship with the language of its source.
type edge struct {
	repo, lang string
	rel        model.Relation
}

func sample(ctx context.Context, home string, n int, seed uint64, repos []string) error {
	if len(repos) == 0 {
		return errors.New("no repositories given")
	}
	byLang := map[string][]edge{}
	srcs := map[string]*source{}
	for _, name := range repos {
		st, err := store.Open(ctx, filepath.Join(home, "repos", name))
		if err != nil {
			return err
		}
		defer st.Close()
		src, err := openSource(ctx, st, name)
		if err != nil {
			return err
		}
		srcs[name] = src
		rels, err := st.CurrentRelations(ctx)
		if err != nil {
			return err
		}
		for _, r := range rels {
			if r.Kind == model.Requires {
				continue
			}
			if lang := src.language(ctx, r.From); lang != "" {
				byLang[lang] = append(byLang[lang], edge{name, lang, r})
			}
		}
	}
	langs := make([]string, 0, len(byLang))
	for l := range byLang {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for _, l := range langs {
		es := byLang[l]
		// Each language's sample depends on its relationships and the
		// seed only, in a stable order.
		slices.SortFunc(es, func(a, b edge) int {
			return cmp.Or(strings.Compare(a.repo, b.repo), strings.Compare(a.rel.From, b.rel.From),
				strings.Compare(a.rel.Kind, b.rel.Kind), strings.Compare(a.rel.To, b.rel.To))
		})
		rng := rand.New(rand.NewPCG(seed, uint64(len(l))<<32|uint64(l[0])<<8|uint64(l[len(l)-1])))
		rng.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		es = es[:min(n, len(es))]
		slices.SortFunc(es, func(a, b edge) int {
			return cmp.Or(strings.Compare(a.repo, b.repo), strings.Compare(a.rel.Kind, b.rel.Kind), strings.Compare(a.rel.From, b.rel.From))
		})
		fmt.Fprintf(w, "# %s: %d of %d relationships\n", l, len(es), len(byLang[l]))
		for i, e := range es {
			fmt.Fprintf(w, "\n## %s %d\n%s\t%s\t%s\t%s\t%s\t\t\n", l, i+1, e.repo, e.lang, e.rel.Kind, e.rel.From, e.rel.To)
			srcs[e.repo].evidence(ctx, w, e.rel)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// source reads a repository's files at its indexed head.
type source struct {
	st         *store.Store
	path, head string
	files      map[string][]string
	parser     *entity.Parser
	ents       map[string][]entity.Entity
}

func openSource(ctx context.Context, st *store.Store, name string) (*source, error) {
	s := &source{st: st, files: map[string][]string{}, parser: entity.NewParser(), ents: map[string][]entity.Entity{}}
	err := st.DB.QueryRowContext(ctx, `SELECT r.path, s.last_head FROM repository r, sync_state s
		ORDER BY s.updated_at DESC LIMIT 1`).Scan(&s.path, &s.head)
	if err != nil {
		return nil, fmt.Errorf("%s: indexed head: %w", name, err)
	}
	return s, nil
}

// lines returns a file's lines at the head.
func (s *source) lines(p string) []string {
	if ls, ok := s.files[p]; ok {
		return ls
	}
	out, err := exec.Command("git", "-C", s.path, "show", s.head+":"+p).Output()
	var ls []string
	if err == nil {
		ls = strings.Split(string(out), "\n")
	}
	s.files[p] = ls
	return ls
}

// language is the language of a node: its entity's, or its file's.
func (s *source) language(ctx context.Context, node string) string {
	var lang string
	if key, ok := strings.CutPrefix(node, "entity:"); ok {
		s.st.DB.QueryRowContext(ctx, `SELECT language FROM entities WHERE key = ?`, key).Scan(&lang)
	} else if p, ok := strings.CutPrefix(node, "file:"); ok {
		s.st.DB.QueryRowContext(ctx, `SELECT language FROM file_changes WHERE path = ? ORDER BY commit_id DESC LIMIT 1`, p).Scan(&lang)
	}
	return lang
}

// span is an entity's path, lines and signature at the indexed head,
// found by parsing its file there.
func (s *source) span(ctx context.Context, node string) (path string, start, end int, sig string) {
	key := strings.TrimPrefix(node, "entity:")
	var lang string
	s.st.DB.QueryRowContext(ctx, `SELECT path, language FROM entities WHERE key = ?`, key).Scan(&path, &lang)
	ents, ok := s.ents[path]
	if !ok {
		text := strings.Join(s.lines(path), "\n")
		ents, _ = s.parser.Entities(ctx, lang, path, "", []byte(text))
		s.ents[path] = ents
	}
	for _, e := range ents {
		if model.EntityKey(path, entity.LocalName(e.Qualified)) == key {
			return path, e.StartLine, e.EndLine, e.Signature
		}
	}
	return path, 0, 0, "(not found at the head)"
}

func (s *source) evidence(ctx context.Context, w *bufio.Writer, r model.Relation) {
	switch r.Kind {
	case model.Calls:
		name := r.To[strings.LastIndexAny(r.To, "#.:")+1:]
		p, start, end, _ := s.span(ctx, r.From)
		words := regexp.QuoteMeta(name)
		switch class := classOf(r.To); {
		case name == "__init__" || name == "constructor" || name == "__construct" || name == "initialize" || name == class:
			words = regexp.QuoteMeta(class) // a constructor: new Foo(…), Foo(…), Foo.new
		}
		re := regexp.MustCompile(`(^|[^\w$])(` + words + `)\s*(!?\s*\(|::<|\.new\b)`)
		s.grep(w, p, start, end, re, 3)
		tp, tstart, _, tsig := s.span(ctx, r.To)
		fmt.Fprintf(w, "  callee %s:%d  %s\n", tp, tstart, tsig)
		var same int
		s.st.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM entities WHERE name = ?`, name).Scan(&same)
		fmt.Fprintf(w, "  confidence %.1f; %d entities named %s\n", r.Confidence, same, name)
	case model.Imports:
		p := strings.TrimPrefix(r.From, "file:")
		target := strings.TrimPrefix(strings.TrimPrefix(r.To, "file:"), "module:")
		word := filepath.Base(strings.TrimSuffix(target, filepath.Ext(target)))
		switch word {
		case "__init__", "index", "mod", "lib":
			word = filepath.Base(filepath.Dir(target)) // a package's file
		}
		if strings.HasPrefix(r.To, "module:") {
			word = target[strings.LastIndexAny(target, `/.:\`)+1:]
			if strings.HasPrefix(target, "./") || target == "." {
				word = ""
			}
		}
		re := regexp.MustCompile(`(import|include|require|use|using|mod|from|load)\b.*` + regexp.QuoteMeta(word) +
			`|["'<]` + regexp.QuoteMeta(target) + `["'>]`)
		s.grep(w, p, 1, 1<<30, re, 3)
	default:
		_, _, _, sig := s.span(ctx, r.From)
		tp, tstart, _, tsig := s.span(ctx, r.To)
		fmt.Fprintf(w, "  header  %s\n  base    %s:%d  %s\n", sig, tp, tstart, tsig)
	}
}

// classOf is the name before an entity key's last name: the class of a
// method.
func classOf(node string) string {
	q := node[strings.IndexByte(node, '#')+1:]
	parts := strings.Split(q, ".")
	if len(parts) < 2 {
		return ""
	}
	return parts[len(parts)-2]
}

// grep prints the lines of p in [start, end] that match re, at most limit.
func (s *source) grep(w *bufio.Writer, p string, start, end int, re *regexp.Regexp, limit int) {
	ls := s.lines(p)
	shown := 0
	for i := max(start, 1); i <= min(end, len(ls)) && shown < limit; i++ {
		if re.MatchString(ls[i-1]) {
			fmt.Fprintf(w, "  %s:%d  %s\n", p, i, strings.TrimSpace(ls[i-1]))
			shown++
		}
	}
	if shown == 0 {
		fmt.Fprintf(w, "  %s:%d-%d  (no matching line)\n", p, start, end)
	}
}

// scoreLabels reads labels rows (repo, language, kind, from, to, label,
// note; "#" lines and blank lines skipped) and prints the precision by
// language, and by language and kind.
func scoreLabels(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	type tally struct{ ok, n int }
	byLang, byKind := map[string]*tally{}, map[string]*tally{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, "\t")
		if len(f) < 6 {
			return fmt.Errorf("%s:%d: %d fields, want repo, language, kind, from, to, label", file, line, len(f))
		}
		label := strings.TrimSpace(f[5])
		if label != "ok" && label != "wrong" {
			return fmt.Errorf("%s:%d: label %q, want ok or wrong", file, line, label)
		}
		for k, t := range map[string]map[string]*tally{f[1]: byLang, f[1] + "\t" + f[2]: byKind} {
			if t[k] == nil {
				t[k] = &tally{}
			}
			t[k].n++
			if label == "ok" {
				t[k].ok++
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	print := func(title string, t map[string]*tally) {
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		fmt.Println(title)
		for _, k := range keys {
			fmt.Printf("%s\t%d/%d\t%.2f\n", k, t[k].ok, t[k].n, float64(t[k].ok)/float64(t[k].n))
		}
	}
	print("language\tcorrect\tprecision", byLang)
	fmt.Println()
	print("language\tkind\tcorrect\tprecision", byKind)
	return nil
}
