// Command xpassage measures, outside the index, how a commit's message is
// best made into vectors for the local embedder: vector-only recall@5 and
// MRR of an evaluation set's questions over a repository's non-merge
// commits, each scored by
//
//	whole   its message embedded as one text;
//	lead    the message's vector plus its subject's, normalised (what the
//	        index does, Doc.Lead);
//	maxwp   the best of the message and its passages (the subject alone,
//	        and the subject with each body paragraph of 40 bytes or more);
//	sumall  the normalised sum of the message's and the passages' vectors.
//
// Usage: xpassage -repo GITDIR -set eval/SET.jsonl [-split dev|test]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"os/exec"
	"sort"
	"strings"

	"github.com/gitmemory/gitmemory/vectors"
)

type evalCase struct {
	ID, Kind, Question, Split string
	Expected                  []string
}

func main() {
	repo := flag.String("repo", "", "git dir")
	set := flag.String("set", "", "eval jsonl")
	split := flag.String("split", "dev", "")
	flag.Parse()
	out, err := exec.Command("git", "-C", *repo, "log", "--no-merges", "-z", "--format=%H%n%B").Output()
	if err != nil {
		log.Fatal(err)
	}
	var hashes []string
	var whole []string
	var pass []string
	var owner []int
	var isSubj []bool
	for _, rec := range strings.Split(string(out), "\x00") {
		rec = strings.TrimSpace(rec)
		if len(rec) < 41 {
			continue
		}
		h, msg := rec[:40], strings.TrimSpace(rec[41:])
		i := len(hashes)
		hashes = append(hashes, h)
		whole = append(whole, msg)
		subject, body, _ := strings.Cut(msg, "\n")
		pass = append(pass, subject)
		owner = append(owner, i)
		isSubj = append(isSubj, true)
		for _, p := range strings.Split(body, "\n\n") {
			p = strings.TrimSpace(p)
			if len(p) < 40 || strings.Contains(p, "Signed-off-by") {
				continue
			}
			pass = append(pass, subject+"\n"+p)
			owner = append(owner, i)
			isSubj = append(isSubj, false)
		}
	}
	emb := vectors.NewLocal(0)
	ctx := context.Background()
	wv, err := emb.Embed(ctx, whole)
	if err != nil {
		log.Fatal(err)
	}
	pv, err := emb.Embed(ctx, pass)
	if err != nil {
		log.Fatal(err)
	}
	wsDot := make([]float64, len(hashes))
	for j, v := range pv {
		if isSubj[j] {
			wsDot[owner[j]] = dot(wv[owner[j]], v)
		}
	}
	cv := make([][]float32, len(hashes))
	for i := range cv {
		cv[i] = append([]float32(nil), wv[i]...)
	}
	for j, v := range pv {
		for d := range v {
			cv[owner[j]][d] += v[d]
		}
	}
	for i := range cv {
		n := math.Sqrt(dot(cv[i], cv[i]))
		for d := range cv[i] {
			cv[i][d] /= float32(n)
		}
	}
	fmt.Fprintf(os.Stderr, "%d commits, %d passages\n", len(hashes), len(pass))
	f, _ := os.Open(*set)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	type acc struct{ r5, mrr, n float64 }
	res := map[string]*acc{}
	for sc.Scan() {
		var c evalCase
		json.Unmarshal(sc.Bytes(), &c)
		if c.Split != *split || c.Kind == "history" {
			continue
		}
		q, _ := emb.Embed(ctx, []string{c.Question})
		ws := make([]float64, len(hashes))
		ps := make([]float64, len(hashes))
		ss := make([]float64, len(hashes))
		cs := make([]float64, len(hashes))
		for i, v := range wv {
			ws[i] = dot(q[0], v)
			cs[i] = dot(q[0], cv[i])
		}
		for j, v := range pv {
			s := dot(q[0], v)
			if s > ps[owner[j]] {
				ps[owner[j]] = s
			}
			if isSubj[j] {
				ss[owner[j]] = s
			}
		}
		for _, mode := range []string{"whole", "maxwp", "lead", "sumall"} {
			sc := make([]float64, len(hashes))
			for i := range sc {
				switch mode {
				case "whole":
					sc[i] = ws[i]
				case "lead":
					sc[i] = (ws[i] + ss[i]) / math.Sqrt(2+2*wsDot[i])
				case "sumall":
					sc[i] = cs[i]
				case "maxwp":
					sc[i] = max(ws[i], ps[i])
				}
			}
			r5, rr := score(sc, hashes, c.Expected)
			for _, k := range []string{"all", c.Kind} {
				a := res[mode+" "+k]
				if a == nil {
					a = &acc{}
					res[mode+" "+k] = a
				}
				a.r5 += r5
				a.mrr += rr
				a.n++
			}
		}
	}
	var keys []string
	for k := range res {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a := res[k]
		fmt.Printf("%-20s n=%2.0f R@5 %.3f MRR %.3f\n", k, a.n, a.r5/a.n, a.mrr/a.n)
	}
}

func dot(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func score(sc []float64, hashes, expected []string) (float64, float64) {
	idx := make([]int, len(sc))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return sc[idx[a]] > sc[idx[b]] })
	exp := map[string]bool{}
	for _, e := range expected {
		exp[e] = true
	}
	hit5, rr := 0.0, 0.0
	for r, i := range idx[:10] {
		if exp[hashes[i]] {
			if r < 5 {
				hit5++
			}
			if rr == 0 {
				rr = 1 / float64(r+1)
			}
		}
	}
	return hit5 / float64(len(expected)), rr
}
