package daemon

import (
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// gitDir finds the directory holding a repository's refs: <root>/.git, the
// directory a .git file points to (worktrees, submodules), or the root of
// a bare repository.
func gitDir(root string) string {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotgit)
	switch {
	case err == nil && fi.IsDir():
		return dotgit
	case err == nil:
		b, err := os.ReadFile(dotgit)
		if target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); err == nil && ok {
			if !filepath.IsAbs(target) {
				target = filepath.Join(root, target)
			}
			return target
		}
	}
	return root
}

// refsFingerprint summarises the files that change when any ref moves:
// HEAD, packed-refs and every loose ref, by name, size and modification
// time. Polling it costs a few stat calls, so the daemon can look every
// second and notice a commit, a fetch or a force push at once, on any file
// system (inotify does not see changes made through some bind mounts).
// For a linked worktree, the shared refs live in the common directory.
func refsFingerprint(gitdir string) (string, error) {
	h := fnv.New64a()
	dirs := []string{gitdir}
	if b, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
		dirs = append(dirs, common)
	}
	found := false
	for _, dir := range dirs {
		for _, name := range []string{"HEAD", "packed-refs"} {
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil {
				found = true
				fmt.Fprintf(h, "%s/%s %d %d\n", dir, name, fi.Size(), fi.ModTime().UnixNano())
			}
		}
		err := filepath.WalkDir(filepath.Join(dir, "refs"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil // a ref deleted while walking: the next poll sees it
			}
			if fi, err := d.Info(); err == nil {
				fmt.Fprintf(h, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	if !found {
		return "", fmt.Errorf("%s: no HEAD: not a git directory (moved or deleted?)", gitdir)
	}
	return fmt.Sprintf("%016x", h.Sum64()), nil
}
