package indexer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gitmemory/gitmemory/internal/gittest"
)

// cProgram is a random C program that a test history edits: functions
// calling each other across files, a static helper of the same name in
// several files, functions added, changed, deleted (with their calls),
// moved between files, and files renamed and deleted.
type cProgram struct {
	rng    *rand.Rand
	files  map[string][]cFunc
	serial int
}

type cFunc struct {
	name   string
	static bool
	calls  []string
}

func (p *cProgram) paths() []string {
	var out []string
	for f := range p.files {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// names are the functions a function of file may call.
func (p *cProgram) names(file string) []string {
	var out []string
	for f, fns := range p.files {
		for _, fn := range fns {
			if !fn.static || f == file {
				out = append(out, fn.name)
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func (p *cProgram) someCalls(file string) []string {
	names := p.names(file)
	var calls []string
	for range p.rng.IntN(4) {
		if len(names) > 0 {
			calls = append(calls, names[p.rng.IntN(len(names))])
		}
	}
	return calls
}

func (p *cProgram) render(file string) string {
	var b strings.Builder
	b.WriteString("#include \"common.h\"\n")
	for _, fn := range p.files[file] {
		static := ""
		if fn.static {
			static = "static "
		}
		fmt.Fprintf(&b, "\n%sint %s(void)\n{\n\treturn 0", static, fn.name)
		for _, c := range fn.calls {
			fmt.Fprintf(&b, " + %s()", c)
		}
		b.WriteString(";\n}\n")
	}
	return b.String()
}

// step edits the program and writes the files it changed (or the empty
// string for one to delete).
func (p *cProgram) step() map[string]string {
	changed := map[string]bool{}
	paths := p.paths()
	switch k := p.rng.IntN(20); {
	case len(paths) < 3 || k < 3: // a new file with a function or two
		p.serial++
		f := fmt.Sprintf("src/m%d.c", p.serial)
		p.files[f] = nil
		for range 1 + p.rng.IntN(2) {
			p.serial++
			p.files[f] = append(p.files[f], cFunc{name: fmt.Sprintf("fn%d", p.serial), calls: p.someCalls(f)})
		}
		if p.rng.IntN(2) == 0 {
			p.files[f] = append(p.files[f], cFunc{name: "helper", static: true, calls: p.someCalls(f)})
		}
		changed[f] = true
	case k < 5: // delete a function and the calls to it
		f := paths[p.rng.IntN(len(paths))]
		if len(p.files[f]) < 2 {
			return nil
		}
		i := p.rng.IntN(len(p.files[f]))
		gone := p.files[f][i]
		p.files[f] = slices.Delete(p.files[f], i, i+1)
		changed[f] = true
		if !gone.static {
			p.uncall(gone.name, "", changed)
		} else {
			p.uncall(gone.name, f, changed)
		}
	case k < 7: // move a function to another file
		from, to := paths[p.rng.IntN(len(paths))], paths[p.rng.IntN(len(paths))]
		if from == to || len(p.files[from]) < 2 {
			return nil
		}
		i := p.rng.IntN(len(p.files[from]))
		fn := p.files[from][i]
		if fn.static {
			return nil
		}
		p.files[from] = slices.Delete(p.files[from], i, i+1)
		p.files[to] = append(p.files[to], fn)
		changed[from], changed[to] = true, true
	case k < 8: // rename a file
		from := paths[p.rng.IntN(len(paths))]
		p.serial++
		to := fmt.Sprintf("lib/r%d.c", p.serial)
		p.files[to] = p.files[from]
		delete(p.files, from)
		changed[from], changed[to] = true, true
	case k < 9: // delete a file and the calls to its functions
		f := paths[p.rng.IntN(len(paths))]
		fns := p.files[f]
		delete(p.files, f)
		changed[f] = true
		for _, fn := range fns {
			if !fn.static {
				p.uncall(fn.name, "", changed)
			}
		}
	default: // change some functions' calls
		for range 1 + p.rng.IntN(3) {
			f := paths[p.rng.IntN(len(paths))]
			if len(p.files[f]) == 0 {
				continue
			}
			i := p.rng.IntN(len(p.files[f]))
			p.files[f][i].calls = p.someCalls(f)
			changed[f] = true
		}
	}
	out := map[string]string{}
	for f := range changed {
		if _, ok := p.files[f]; ok {
			out[f] = p.render(f)
		} else {
			out[f] = ""
		}
	}
	return out
}

// uncall removes the calls to name (in file only, when given).
func (p *cProgram) uncall(name, file string, changed map[string]bool) {
	for f, fns := range p.files {
		if file != "" && f != file {
			continue
		}
		for i := range fns {
			if n := len(fns[i].calls); slices.Contains(fns[i].calls, name) {
				fns[i].calls = slices.DeleteFunc(fns[i].calls, func(c string) bool { return c == name })
				changed[f] = changed[f] || len(fns[i].calls) != n
			}
		}
	}
}

// TestRelationshipsFollowHistory edits a random C program over many
// commits and checks that the relationships the commits' additions and
// removals leave are those of the last version read whole, and that syncs
// in several steps record what one sync does.
func TestRelationshipsFollowHistory(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			p := &cProgram{rng: rand.New(rand.NewPCG(seed, 7)), files: map[string][]cFunc{}}
			repo := gittest.New(t)
			repo.Write("src/common.h", "int helper(void);\n")
			stepped := openStore(t)
			for i := 0; i < 60; i++ {
				for f, text := range p.step() {
					if text == "" {
						repo.Git("rm", "-q", f)
					} else {
						repo.Write(f, text)
					}
				}
				repo.Git("add", "-A")
				if out, err := repo.TryGit("diff", "--cached", "--quiet"); err == nil {
					_ = out
					continue
				}
				repo.Commit(fmt.Sprintf("step %d", i))
				if i%13 == 5 {
					sync(t, repo.Dir, stepped, Options{})
				}
			}
			sync(t, repo.Dir, stepped, Options{})
			whole := openStore(t)
			sync(t, repo.Dir, whole, Options{})
			got, want := current(t, stepped), current(t, whole)
			if !slices.Equal(got, want) {
				t.Errorf("syncs in steps:\n got %q\nwant %q", got, want)
			}

			last := gittest.New(t)
			for _, f := range p.paths() {
				last.Write(f, p.render(f))
			}
			last.Write("src/common.h", "int helper(void);\n")
			last.Commit("the last version")
			read := openStore(t)
			sync(t, last.Dir, read, Options{})
			if head := current(t, read); !slices.Equal(want, head) {
				t.Errorf("history's relationships differ from the last version's:\n got %q\nwant %q", want, head)
			}
		})
	}
}
