package bb

import (
	"github.com/blackboard-hub/bb/internal/gitrepo"
	"github.com/blackboard-hub/bb/internal/hub/hooks"

	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/termtext"
)

func (a *app) agentInitCmd() *cobra.Command {
	var in hooks.InitInput
	c := &cobra.Command{
		Use:   "init",
		Short: "Start a session: register a new identity or adopt a prior one (never prompts)",
		Long: `Bootstrap this session's identity (operative protocol v1).

  --register <name> [--role r]   register a new identity (role default worker)
  --adopt <id>                   resume a prior identity; allowed only with
                                 evidence: uncommitted changes (git status
                                 --porcelain) inside a scope it reserves, or
                                 an in-progress task it owns. Records RESUME.
  (no flags)                     suggest an adjective-noun name and list
                                 identities that could be adopted
  --non-interactive              without --adopt/--register: fail with
                                 AMBIGUOUS_SESSION and a recommendation

Every answer states a deterministic reason.`,
		Example: `  bb agent init --register amber-otter --role ui --json
  bb agent init --adopt cobalt-harbor --json
  bb agent init --non-interactive --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			if in.Register == "" {
				wd, err := a.env.Getwd()
				if err != nil {
					wd = svc.Root()
				}
				in.Changes, in.ChangesNote = uncommittedFiles(cmd.Context(), a.env.Getenv, wd)
			}
			res, err := svc.InitSession(cmd.Context(), in)
			if err != nil {
				return err
			}
			if res.AgentID != "" {
				if wd, werr := a.env.Getwd(); werr == nil {
					_ = svc.ReportWhere(cmd.Context(), res.AgentID, a.where(wd)) // informative only
				}
			}
			if res.AgentID != "" {
				a.acting = res.AgentID
			}
			next := recommendation(res.Recommend)
			data := map[string]any{
				"action": res.Action, "agent_id": nilIfEmpty(res.AgentID), "reason": res.Reason,
				"recommendation": nilIfEmpty(next), "suggested_name": nilIfEmpty(res.SuggestedName),
				"candidates": res.Candidates,
			}
			if res.Agent != nil {
				data["agent"] = agentInfoView(*res.Agent)
			}
			if res.Resume != nil {
				data["resume_event"] = res.Resume.Payload
			}
			return a.reply(cmd, data, func(w io.Writer) {
				switch res.Action {
				case "suggest":
					fmt.Fprintf(w, "Suggested name: %s\n", res.SuggestedName)
					for _, c := range res.Candidates {
						fmt.Fprintf(w, "Could resume %s: %s\n", c.AgentID, termtext.Line(c.Evidence))
					}
					fmt.Fprintf(w, "Reason: %s\nNext: %s\n", res.Reason, next)
				default:
					fmt.Fprintf(w, "You are %s. %s\n", res.AgentID, capitalize(res.Reason))
				}
			})
		},
	}
	f := c.Flags()
	f.BoolVar(&in.NonInteractive, "non-interactive", false, "never prompt; fail with AMBIGUOUS_SESSION when no decision is given")
	f.StringVar(&in.Adopt, "adopt", "", "resume this existing identity (needs evidence)")
	f.StringVar(&in.Register, "register", "", "register this new identity (kebab-case, 3..48 characters)")
	f.StringVar(&in.Role, "role", "worker", "role of a newly registered identity")
	f.StringVar(&in.Display, "display", "", "display name of a newly registered identity")
	return c
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// uncommittedFiles lists the files `git status --porcelain` reports in the
// work tree holding root, as canonical paths relative to its top (the form
// of reservation scopes); note says why the
// list is empty when git cannot tell. getenv is the process environment:
// git's own variables decide where the repository is when they are set.
func uncommittedFiles(ctx context.Context, getenv func(string) string, root string) (files []string, note string) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	top, found := gitWorkTree(getenv, root)
	if !found {
		// Only git itself can tell (its environment is set).
		out, err := gitrepo.Run(ctx, root, nil, "rev-parse", "--show-toplevel")
		if err != nil {
			if _, lerr := exec.LookPath("git"); lerr != nil {
				return nil, "git is not installed"
			}
			return nil, "the project is not a git repository"
		}
		top = strings.TrimSpace(string(out))
	} else if top == "" {
		return nil, "the project is not a git repository"
	}
	out, err := gitrepo.Run(ctx, root, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, "git is not installed"
		}
		return nil, "git status failed"
	}
	return parsePorcelainZ(top, out), ""
}

// gitWorkTree finds the top of the git work tree holding dir without
// starting git (SessionStart and Stop hooks run this; a process is the
// largest part of their cost): the nearest directory, dir or above, with a
// .git entry (a directory, or a file in linked work trees and submodules),
// as git itself looks for it. top is "" when there is none. found is false
// when git's environment (GIT_DIR, GIT_WORK_TREE, GIT_CEILING_DIRECTORIES,
// GIT_DISCOVERY_ACROSS_FILESYSTEM) changes that search: then git is asked.
func gitWorkTree(getenv func(string) string, dir string) (top string, found bool) {
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"} {
		if getenv(k) != "" {
			return "", false
		}
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	if real, err := filepath.EvalSymlinks(d); err == nil {
		d = real
	}
	for {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", false // unreadable: let git decide
		}
		up := filepath.Dir(d)
		if up == d {
			return "", true
		}
		d = up
	}
}

// parsePorcelainZ reads `git status --porcelain=v1 -z`: "XY path\0", with
// renames and copies followed by "\0orig". Paths are relative to the top
// of the work tree, the form of reservation scopes.
func parsePorcelainZ(top string, out []byte) []string {
	var files []string
	recs := bytes.Split(out, []byte{0})
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if len(r) < 4 {
			continue
		}
		x := r[0]
		if f, ok := hub.RelativeScope(string(r[3:])); ok {
			files = append(files, f)
		}
		if x == 'R' || x == 'C' {
			i++ // skip the original path
		}
	}
	return files
}

// recommendation words the core's recommended next steps as bb commands:
// the best one, then the fresh start it falls back to.
func recommendation(acts []hub.Action) string {
	switch len(acts) {
	case 0:
		return ""
	case 1:
		return actionWords(acts[0])
	}
	return fmt.Sprintf("%s (or start fresh: %s)", actionWords(acts[0]), actionWords(acts[1]))
}
