package indexer

import (
	"bufio"
	"database/sql"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/gitmemory/gitmemory/store"
	"github.com/gitmemory/gitmemory/understand/entity"
)

// Resolving an import to a file of the repository, or else naming the
// module: IMPORTS goes from the importing file to "file:<path>" or to
// "module:<name as written>". A Go package of the repository is a
// directory, "module:./<dir>" ("module:." at the root).

// moduleNode names a module the repository does not hold.
func moduleNode(name string) string { return "module:" + name }

// resolveImport returns an import's target node and the repository files
// it stands for ("dir/" for a Go package).
func (r *relater) resolveImport(from, lang string, im entity.Import) (string, []string) {
	if im.Path == "" && im.Level == 0 {
		return "", nil
	}
	r.loadFiles()
	var found string
	switch lang {
	case "C", "C++":
		if im.Local {
			found = r.existing(path.Join(path.Dir(from), im.Path))
		}
		if found == "" && (im.Local || strings.Contains(im.Path, "/")) {
			found = r.bySuffix(im.Path, from)
		}
		if found == "" && !im.Local { // <x.h>: the repository's own include directories
			found = r.firstOf(im.Path, "include/"+im.Path, "src/"+im.Path)
		}
	case "Go":
		if dir, ok := r.goPackage(im.Path); ok {
			if dir == "." {
				return "module:.", []string{"./"}
			}
			return "module:./" + dir, []string{dir + "/"}
		}
	case "Python":
		found = r.pythonModule(from, im)
	case "JavaScript", "TypeScript", "TSX":
		if strings.HasPrefix(im.Path, ".") || strings.HasPrefix(im.Path, "/") {
			p := path.Join(path.Dir(from), im.Path)
			found = r.withExt(p, ".js", ".ts", ".tsx", ".jsx", ".mjs", ".cjs", ".d.ts")
			if ext := path.Ext(p); found == "" && ext != "" && strings.Contains(".js.jsx.mjs.cjs", ext) {
				// TypeScript imports its own modules by the name they compile to.
				found = r.withExt(strings.TrimSuffix(p, ext), ".ts", ".tsx", ".mts", ".cts")
			}
		}
	case "Java":
		if !strings.HasSuffix(im.Path, "*") {
			found = r.bySuffix(strings.ReplaceAll(im.Path, ".", "/")+".java", from)
		}
	case "Rust":
		found = r.rustModule(from, im)
	case "Ruby":
		if im.Local {
			found = r.withExt(path.Join(path.Dir(from), im.Path), ".rb")
		} else { // the load path: lib/ (of any gem of the repository), or the root
			p := strings.TrimSuffix(im.Path, ".rb") + ".rb"
			if found = r.firstOf(p, "lib/"+p); found == "" {
				found = r.bySuffix("lib/"+p, from)
			}
		}
	case "PHP":
		if strings.HasSuffix(im.Path, ".php") || strings.HasSuffix(im.Path, ".inc") {
			if strings.HasPrefix(im.Path, "/") || strings.HasPrefix(im.Path, ".") {
				found = r.existing(path.Join(path.Dir(from), im.Path))
			}
			if found == "" {
				found = r.bySuffix(strings.TrimLeft(im.Path, "./"), from)
			}
			break
		}
		// PSR-4: a namespace prefix stands for a directory, the rest of
		// the name for the directories and file under it; at least the
		// class's directory and file must match (case aside).
		parts := strings.Split(strings.Trim(im.Path, `\`), `\`)
		for i := 0; i+2 <= len(parts) && found == ""; i++ {
			found = r.bySuffixFold(strings.Join(parts[i:], "/")+".php", from)
		}
	}
	if found != "" {
		return FileNode(found), []string{found}
	}
	if relativeImport(lang, im) {
		return "", nil // a file of the repository that is not there: no module either
	}
	name := im.Path
	if lang == "Python" && im.Level > 0 {
		name = strings.Repeat(".", im.Level) + name
	}
	return moduleNode(name), nil
}

// relativeImport reports whether an import names a path relative to the
// importing file, which can only be a file of the repository.
func relativeImport(lang string, im entity.Import) bool {
	switch lang {
	case "JavaScript", "TypeScript", "TSX":
		return strings.HasPrefix(im.Path, ".") || strings.HasPrefix(im.Path, "/")
	case "Python":
		return im.Level > 0
	case "Ruby", "Rust":
		return im.Local
	}
	return false
}

// existing returns p if it is a live path.
func (r *relater) existing(p string) string {
	if r.isLive(p) {
		return p
	}
	return ""
}

// withExt returns the live path among p, p with one of exts, and p's
// index file with one of them.
func (r *relater) withExt(p string, exts ...string) string {
	if r.isLive(p) {
		return p
	}
	for _, base := range []string{p, path.Join(p, "index")} {
		for _, e := range exts {
			if r.isLive(base + e) {
				return base + e
			}
		}
	}
	return ""
}

// bySuffix returns the live path that is suffix or ends with "/"+suffix:
// the only one, or the one sharing the longest directory prefix with
// from; "" when none or a tie.
func (r *relater) bySuffix(suffix, from string) string {
	suffix = path.Clean(suffix)
	var cands []string
	for _, p := range r.byBase[path.Base(suffix)] {
		if (p == suffix || strings.HasSuffix(p, "/"+suffix)) && r.isLive(p) {
			cands = append(cands, p)
		}
	}
	switch len(cands) {
	case 0:
		return ""
	case 1:
		return cands[0]
	}
	best, bestN, tie := "", -1, false
	for _, c := range cands {
		n := sharedDirs(c, from)
		switch {
		case n > bestN:
			best, bestN, tie = c, n, false
		case n == bestN:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// bySuffixFold is bySuffix with letter case ignored.
func (r *relater) bySuffixFold(suffix, from string) string {
	if f := r.bySuffix(suffix, from); f != "" {
		return f
	}
	suffix = strings.ToLower(path.Clean(suffix))
	var cands []string
	for _, p := range r.byLowerBase[path.Base(suffix)] {
		if lp := strings.ToLower(p); (lp == suffix || strings.HasSuffix(lp, "/"+suffix)) && r.isLive(p) {
			cands = append(cands, p)
		}
	}
	if len(cands) != 1 {
		return ""
	}
	return cands[0]
}

// sharedDirs counts the leading directories two paths share.
func sharedDirs(a, b string) int {
	n := 0
	for {
		i, j := strings.IndexByte(a, '/'), strings.IndexByte(b, '/')
		if i < 0 || j < 0 || a[:i] != b[:j] {
			return n
		}
		n++
		a, b = a[i+1:], b[j+1:]
	}
}

// pythonModule resolves import a.b, from a.b import c and from .a import
// b to the module's file: a/b.py or a/b/__init__.py, relative to the
// importing package for a relative import, else anywhere in the
// repository (src/ layouts).
func (r *relater) pythonModule(from string, im entity.Import) string {
	rel := strings.ReplaceAll(im.Path, ".", "/")
	if im.Level > 0 {
		dir := path.Dir(from)
		for range im.Level - 1 {
			dir = path.Dir(dir)
		}
		p := path.Join(dir, rel)
		if rel == "" {
			p = dir
		}
		if f := r.withExt(p, ".py"); f != "" && path.Ext(f) == ".py" {
			return f
		}
		return r.existing(path.Join(p, "__init__.py"))
	}
	if !strings.Contains(rel, "/") {
		// A top-level module: beside the importing script, or at a source
		// root; elsewhere it is not importable by this name.
		dir := path.Dir(from)
		return r.firstOf(path.Join(dir, rel+".py"), rel+".py", "src/"+rel+".py", path.Join(dir, rel, "__init__.py"),
			rel+"/__init__.py", "src/"+rel+"/__init__.py")
	}
	if f := r.bySuffix(rel+".py", from); f != "" {
		return f
	}
	return r.bySuffix(rel+"/__init__.py", from)
}

// firstOf returns the first of the paths that is live.
func (r *relater) firstOf(paths ...string) string {
	for _, p := range paths {
		if r.isLive(p) {
			return p
		}
	}
	return ""
}

// moduleFile returns the file of module name inside the package whose
// file is pkg (Python: from pkg import mod), if the repository has it.
func (r *relater) moduleFile(pkg, name, lang string) (string, bool) {
	if lang != "Python" || path.Base(pkg) != "__init__.py" {
		return "", false
	}
	dir := path.Dir(pkg)
	if f := r.existing(path.Join(dir, name+".py")); f != "" {
		return f, true
	}
	if f := r.existing(path.Join(dir, name, "__init__.py")); f != "" {
		return f, true
	}
	return "", false
}

// rustModule resolves mod m; to its file, and use crate::a::b to the
// file of the deepest module of the path the repository has.
func (r *relater) rustModule(from string, im entity.Import) string {
	dir := path.Dir(from)
	if base := path.Base(from); base != "mod.rs" && base != "lib.rs" && base != "main.rs" {
		dir = path.Join(dir, strings.TrimSuffix(base, ".rs"))
	}
	if im.Local {
		if f := r.existing(path.Join(dir, im.Path+".rs")); f != "" {
			return f
		}
		return r.existing(path.Join(dir, im.Path, "mod.rs"))
	}
	segs := strings.Split(im.Path, "::")
	switch segs[0] {
	case "crate":
		dir = r.crateRoot(from)
	case "super":
		dir = path.Dir(dir)
	case "self":
	default:
		return ""
	}
	found := ""
	for _, s := range segs[1:] {
		if s == "super" {
			dir = path.Dir(dir)
			continue
		}
		if f := r.existing(path.Join(dir, s+".rs")); f != "" {
			found = f
		} else if f := r.existing(path.Join(dir, s, "mod.rs")); f != "" {
			found = f
		} else {
			break
		}
		dir = path.Join(dir, s)
	}
	return found
}

// crateRoot is the directory of the lib.rs or main.rs nearest above a
// Rust file.
func (r *relater) crateRoot(from string) string {
	for dir := path.Dir(from); ; dir = path.Dir(dir) {
		if r.isLive(path.Join(dir, "lib.rs")) || r.isLive(path.Join(dir, "main.rs")) {
			return dir
		}
		if dir == "." || dir == "/" {
			return path.Dir(from)
		}
	}
}

// goPackage returns the directory of the repository's package an import
// path names: by the module path of the repository's go.mod, or else the
// longest directory of Go files that ends the path and declares the
// package the path's last element names.
func (r *relater) goPackage(importPath string) (string, bool) {
	if r.goMod != "" {
		if importPath == r.goMod {
			return ".", r.hasGo(".")
		}
		if rest, ok := strings.CutPrefix(importPath, r.goMod+"/"); ok {
			return rest, r.hasGo(rest)
		}
		return "", false
	}
	r.loadGoPackages()
	name := entity.GoPackageName(importPath)
	best := ""
	for dir, pkg := range r.goPkgs {
		if dir != "." && pkg == name && (importPath == dir || strings.HasSuffix(importPath, "/"+dir)) && len(dir) > len(best) {
			best = dir
		}
	}
	if best != "" {
		return best, true
	}
	first, _, _ := strings.Cut(importPath, "/")
	if strings.Contains(first, ".") && r.goPkgs["."] == name {
		return ".", true
	}
	return "", false
}

// hasGo reports whether a directory holds a Go package the index knows.
func (r *relater) hasGo(dir string) bool {
	r.loadGoPackages()
	_, ok := r.goPkgs[dir]
	return ok
}

// goModulePath reads the module path of the go.mod at a repository's
// root, in its working tree ("" for none, or a bare repository).
func goModulePath(root string) string {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// loadFiles reads the paths the store knows, once (their liveness is
// looked up when a resolution needs it), with this sync's changes over
// them.
func (r *relater) loadFiles() {
	if r.filesLoaded || r.err != nil {
		return
	}
	paths, err := r.st.KnownPaths(r.ctx)
	if err != nil {
		r.err = err
		return
	}
	r.filesLoaded = true
	for _, p := range paths {
		r.notePath(p, 0)
	}
	for p, live := range r.pending {
		r.setPath(p, live)
	}
	r.pending = nil
}

// loadGoPackages reads, once for a store with history, the package name
// of each directory with Go functions.
func (r *relater) loadGoPackages() {
	if r.fresh || r.goPkgsLoaded || r.err != nil {
		return
	}
	r.goPkgsLoaded = true
	err := store.EachRow(r.ctx, r.st.DB, `SELECT path, qualified FROM entities WHERE language = 'Go' AND kind = 'function'`,
		nil, func(rows *sql.Rows) error {
			var p, q string
			if err := rows.Scan(&p, &q); err != nil {
				return err
			}
			if dir := path.Dir(p); r.goPkgs[dir] == "" {
				pkg, _, _ := strings.Cut(q, ".")
				r.goPkgs[dir] = pkg
			}
			return nil
		})
	if err != nil {
		r.err = err
	}
}
