package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
)

// auditFile is the audit log's name in the home: the daemon writes its
// requests there, and the CLI its deletions (seed 003 asks for an audit
// log of deletions, whoever makes them).
const auditFile = "audit.log"

// openAudit opens the audit log for appending: path, else the home's.
func openAudit(home, path string) (*slog.Logger, func(), error) {
	if path == "off" {
		return nil, func() {}, nil
	}
	if path == "" {
		path = filepath.Join(home, auditFile)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("audit log: %w", err)
	}
	return slog.New(slog.NewJSONHandler(f, nil)), func() { f.Close() }, nil
}

// recordDeletion appends a deletion made by this process to the home's
// audit log. A deletion that cannot be recorded is still done (the user
// asked for it), and the failure is reported on stderr.
func (a *app) recordDeletion(home, op, repo string, attrs ...any) {
	log, closeLog, err := openAudit(home, "")
	if err != nil {
		fmt.Fprintf(a.stderr, "warning: %v: the %s of %s is not recorded\n", err, op, repo)
		return
	}
	defer closeLog()
	log.Info("deletion", append([]any{"op", op, "client", "cli", "user", os.Getenv("USER"), "pid", os.Getpid(),
		"repository", repo, "status", "ok"}, attrs...)...)
}
