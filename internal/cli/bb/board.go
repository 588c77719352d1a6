package bb

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	core "github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/boot"
	"github.com/blackboard-hub/bb/internal/gitrepo"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/server/remote"
)

// BoardDir is the folder that holds a project's board.
const BoardDir = ".bb"

// DBName is the SQLite file inside BoardDir.
const DBName = "blackboard.db"

func notInitialized(where string) error {
	return &hub.Error{Code: hub.CodeNotInitialized,
		Message: "No blackboard found (looked in " + where + " and its parents). Run 'bb init' to create one."}
}

// projectDir returns the directory given by --dir or BB_DIR, or "" to
// discover from the working directory.
func (a *app) explicitDir() string {
	if a.g.dir != "" {
		return a.g.dir
	}
	return a.env.Getenv("BB_DIR")
}

// findProject locates the project root: the explicit directory, or the
// nearest ancestor of the working directory that has a .bb/ folder. In a
// linked git work tree (git worktree add, .claude/worktrees/<name>) the
// search starts from the same place in the repository's main work tree,
// found through git's common directory by reading the .git file (no git
// process): one board serves every work tree of a repository.
func (a *app) findProject() (string, error) {
	if d := a.explicitDir(); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", hub.Errorf(hub.CodeInvalidInput, "invalid --dir %q: %v", d, err)
		}
		if !isDir(filepath.Join(abs, BoardDir)) {
			return "", notInitialized(abs)
		}
		return abs, nil
	}
	wd, err := a.env.Getwd()
	if err != nil {
		return "", &hub.Error{Code: hub.CodeIOReadFailed, Message: "cannot read the working directory", Err: err}
	}
	from, stop, err := a.boardSearch(wd)
	if err != nil {
		return "", err
	}
	for d := from; ; d = filepath.Dir(d) {
		if isDir(filepath.Join(d, BoardDir)) {
			return d, nil
		}
		if d == stop || filepath.Dir(d) == d {
			if from != wd {
				return "", &hub.Error{Code: hub.CodeNotInitialized,
					Message: "No blackboard found for this repository (looked in " + from + ", the main work tree of " + wd + ", and its parents). Run 'bb init' to create one."}
			}
			return "", notInitialized(wd)
		}
	}
}

// boardSearch says where the search for .bb/ starts (wd, or its place in
// the main work tree when wd is in a linked one) and where it stops (""
// for the file system's root; a submodule's top, as a submodule is a
// repository of its own).
func (a *app) boardSearch(wd string) (from, stop string, err error) {
	repo, ok, err := gitrepo.FromEnv(a.env.Getenv, wd)
	if !ok {
		return wd, "", nil
	}
	if err != nil {
		return "", "", &hub.Error{Code: hub.CodeNotInitialized, Message: "Cannot find the board: " + err.Error() + "."}
	}
	switch repo.Kind {
	case gitrepo.Linked:
		return repo.Rel(wd), "", nil
	case gitrepo.Submodule:
		for d := wd; ; d = filepath.Dir(d) {
			if isDir(filepath.Join(d, BoardDir)) {
				return wd, "", nil // the submodule has a board of its own
			}
			if d == repo.Top || filepath.Dir(d) == d {
				break
			}
		}
		return "", "", &hub.Error{Code: hub.CodeNotInitialized, Message: "Cannot find the board: " + repo.Top +
			" is a git submodule, a repository of its own that the board of the project around it does not cover. Run 'bb init' there for a board of its own, or pass --dir/BB_DIR naming the board's project."}
	case gitrepo.Bare:
		return "", "", &hub.Error{Code: hub.CodeNotInitialized, Message: "Cannot find the board: " + repo.GitDir +
			" is a bare repository, which has no work tree to hold a board. Run bb in a work tree of it, or pass --dir/BB_DIR naming the board's project."}
	}
	return wd, "", nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// databaseURL is --database-url, else $BB_DATABASE_URL: when set, the
// board lives in that server database instead of .bb/blackboard.db.
func (a *app) databaseURL() string {
	if a.g.databaseURL != "" {
		return a.g.databaseURL
	}
	return strings.TrimSpace(a.env.Getenv(boot.EnvDatabaseURL))
}

// service returns the board every command works on (once per
// invocation): with BB_SERVER set, a bb serve reached over HTTP (BB_TOKEN
// its token); otherwise the local board. Both are a core.API.
func (a *app) service(ctx context.Context) (core.API, error) {
	if a.api != nil {
		return a.api, nil
	}
	if url := strings.TrimSpace(a.env.Getenv(EnvServer)); url != "" {
		clock, err := a.clock()
		if err != nil {
			return nil, err
		}
		c, err := remote.New(url, strings.TrimSpace(a.env.Getenv("BB_TOKEN")), clock)
		if err != nil {
			return nil, err
		}
		c.SetRepository(a.repositoryID(ctx))
		a.api = c
		return c, nil
	}
	svc, err := a.localService(ctx)
	if err != nil {
		return nil, err
	}
	a.api = svc
	return svc, nil
}

// scopeArg places a scope typed on the command line: locally, relative
// scopes resolve against the working directory (the core finds the work
// tree holding it); in remote mode, where this machine's paths mean nothing
// to the server, it is made relative to the top of this checkout's work
// tree here and sent with an empty directory (the server reads it from the
// top of its own).
func (a *app) scopeArg(raw string) (wd, scope string, err error) {
	wd, err = a.env.Getwd()
	if err != nil {
		return "", "", &hub.Error{Code: hub.CodeIOReadFailed, Message: "cannot read the working directory", Err: err}
	}
	if !a.remote() {
		return wd, raw, nil
	}
	sc, err := hub.CanonicalScope(a.workTreeTop(wd), wd, raw)
	if err != nil {
		return "", "", err
	}
	return "", sc.Display(""), nil
}

// workTreeTop is the top of the git work tree holding dir (read from the
// .git files), or dir itself outside git.
func (a *app) workTreeTop(dir string) string {
	if r, ok, err := gitrepo.FromEnv(a.env.Getenv, dir); ok && err == nil && r.Top != "" {
		return r.Top
	}
	return dir
}

// repositoryID is the fingerprint of the repository the working directory
// is in ("" outside git): sent to a bb serve, which refuses a clone of
// another repository than its board's.
func (a *app) repositoryID(ctx context.Context) string {
	wd, err := a.env.Getwd()
	if err != nil {
		return ""
	}
	r, ok, err := gitrepo.FromEnv(a.env.Getenv, wd)
	if !ok || err != nil || r.Top == "" {
		return ""
	}
	return gitrepo.ID(ctx, r)
}

// where is the work tree, branch and host of dir (read from the .git
// files, no git process), recorded on the acting agent; empty outside a
// git work tree (there is nothing to tell apart).
func (a *app) where(dir string) hub.Where {
	var w hub.Where
	if r, ok, err := gitrepo.FromEnv(a.env.Getenv, dir); ok && err == nil && r.Top != "" {
		w.Worktree, w.Branch = r.WorktreeName(), r.Branch()
		w.Host, _ = os.Hostname()
	}
	return w
}

// remote reports whether commands talk to a bb serve (BB_SERVER).
func (a *app) remote() bool { return strings.TrimSpace(a.env.Getenv(EnvServer)) != "" }

// EnvServer names the bb serve every command talks to instead of a local
// board (remote mode).
const EnvServer = "BB_SERVER"

// localService opens the local board (once per invocation): for commands
// that serve it (bb serve, bb mcp) or need its files.
func (a *app) localService(ctx context.Context) (core.API, error) {
	if a.local != nil {
		return a.local, nil
	}
	clock, err := a.clock()
	if err != nil {
		return nil, err
	}
	cfg, err := a.boardConfig()
	if err != nil {
		return nil, err
	}
	cfg.Clock, cfg.Env, cfg.ProcessExits, cfg.BusyTimeoutMS = clock, a.env.Getenv, a.env.ProcessExits, a.busyTimeoutMS
	cfg.LongLived = a.longLived
	if a.serving {
		cfg.ApplicationName = boot.ServeApplicationName
		release, err := boot.HoldServing(cfg)
		if err != nil {
			return nil, err
		}
		a.releaseServing = release
	}
	if a.longLived {
		// Outages of the database and recoveries, once each, on stderr.
		cfg.Log = a.logger()
	}
	b, err := boot.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	a.local = b.API
	a.closeFn = b.Close
	return a.local, nil
}

// boardConfig locates the local board: the database named by
// --database-url/$BB_DATABASE_URL, else .bb/blackboard.db of the project.
func (a *app) boardConfig() (boot.Config, error) {
	var err error
	cfg := boot.Config{DatabaseURL: a.databaseURL()}
	if cfg.DatabaseURL != "" {
		// The board is the database; the project root (for relative
		// paths) is the nearest .bb/ if any, else the target directory.
		if cfg.ProjectRoot, err = a.findProject(); err != nil {
			if cfg.ProjectRoot, err = a.targetDir(); err != nil {
				return cfg, err
			}
		}
		return cfg, nil
	}
	if cfg.ProjectRoot, err = a.findProject(); err != nil {
		return cfg, err
	}
	cfg.SQLitePath = filepath.Join(cfg.ProjectRoot, BoardDir, DBName)
	if _, err := os.Stat(cfg.SQLitePath); errors.Is(err, fs.ErrNotExist) {
		return cfg, &hub.Error{Code: hub.CodeNotInitialized,
			Message: "The board at " + filepath.Join(cfg.ProjectRoot, BoardDir) + " has no database. Run 'bb init' to recreate it."}
	}
	return cfg, nil
}

// actor returns the acting identity, validated by the board's rule (an id
// the board already knows is accepted as stored, whatever surface made it).
func (a *app) actor(ctx context.Context) (string, bool, error) {
	id, explicit := a.identity()
	if len(id) <= hub.MaxAgentIDLen {
		// Valid or not on its face: no need to open the board.
		if err := hub.ValidateBoardAgentID(id); err != nil {
			return "", false, err
		}
		return id, explicit, nil
	}
	svc, err := a.service(ctx)
	if err != nil {
		return "", false, err
	}
	if _, err := svc.AgentID(ctx, hub.GrammarBoard, id); err != nil {
		return "", false, err
	}
	return id, explicit, nil
}
