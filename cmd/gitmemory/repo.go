package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gitmemory/gitmemory/memory"
)

// repoFlag is the --repo option of the commands that answer about one
// repository.
type repoFlag struct{ value string }

func (r *repoFlag) register(c *cobra.Command) {
	c.Flags().StringVar(&r.value, "repo", "", "the repository: a registered name or a path inside it (default: the one containing the current directory, or the only one registered)")
}

// resolve names the repository a command is about: --repo when given,
// else the registered repository containing the current directory, else
// the only registered one. With several registered and none containing
// the current directory, the error lists them.
func (r *repoFlag) resolve(ctx context.Context, h *memory.Home) (string, error) {
	if r.value != "" {
		return h.Resolve(ctx, r.value)
	}
	return defaultRepo(ctx, h)
}

// defaultRepo is the repository a command without --repo or a repository
// argument is about.
func defaultRepo(ctx context.Context, h *memory.Home) (string, error) {
	wd, err := os.Getwd()
	if err == nil {
		if name, err := h.Resolve(ctx, wd); err == nil {
			return name, nil
		}
	}
	names, err := h.Names()
	if err != nil {
		return "", err
	}
	// Inside a work tree that is not registered, answering from another
	// repository would mislead: say so instead.
	if top, gitErr := gitOutput(ctx, wd, "rev-parse", "--show-toplevel"); gitErr == nil {
		top = strings.TrimSpace(top)
		if len(names) == 0 {
			return "", fmt.Errorf("%s is not registered: gitmemory sync %s indexes it", top, top)
		}
		return "", fmt.Errorf("%s is not registered (gitmemory sync %s indexes it); registered are %s: choose one with --repo NAME",
			top, top, strings.Join(names, ", "))
	}
	switch len(names) {
	case 0:
		return "", fmt.Errorf("%w: nothing is registered yet: gitmemory sync PATH registers and indexes a repository", memory.ErrUnknownRepo)
	case 1:
		return names[0], nil
	}
	return "", fmt.Errorf("the current directory is in no registered repository and %d are registered (%s): choose one with --repo NAME",
		len(names), strings.Join(names, ", "))
}
