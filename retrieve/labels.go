package retrieve

import (
	"context"
	"fmt"
	"strings"
)

// label marks stale results (older than StaleDays, with files changed
// since) and files that no longer exist at the head (their last change
// deleted them or renamed them away). Commit ids grow in processing order,
// parents first, so "changed since" and "last change" are index seeks on
// (path, commit id) rather than scans of a busy file's history.
func (s *Searcher) label(ctx context.Context, a *Answer) error {
	cutoff := s.opts.Now().AddDate(0, 0, -s.opts.StaleDays).Unix()
	for i := range a.Items {
		it := &a.Items[i]
		rows, err := s.st.DB.QueryContext(ctx, `SELECT f.path, c.committer_time,
			EXISTS (SELECT 1 FROM file_changes g WHERE g.path = f.path AND g.commit_id > c.id),
			COALESCE((SELECT g.commit_id || ' ' || g.status FROM file_changes g WHERE g.path = f.path
				ORDER BY g.commit_id DESC LIMIT 1), ''),
			COALESCE((SELECT g.commit_id FROM file_changes g WHERE g.old_path = f.path AND g.old_path != '' AND g.path != f.path
				ORDER BY g.commit_id DESC LIMIT 1), 0)
			FROM file_changes f JOIN commits c ON c.id = f.commit_id WHERE c.hash = ? LIMIT 20`, it.Commit)
		if err != nil {
			return err
		}
		for rows.Next() {
			var path, last string
			var t, movedAway int64
			var later bool
			if err := rows.Scan(&path, &t, &later, &last, &movedAway); err != nil {
				rows.Close()
				return err
			}
			if t < cutoff && later {
				it.Stale = true
			}
			idStr, status, _ := strings.Cut(last, " ")
			var lastID int64
			fmt.Sscan(idStr, &lastID)
			if status == "deleted" || movedAway > lastID {
				it.Gone = append(it.Gone, path)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}
