package bb

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/boot"
	"github.com/blackboard-hub/bb/internal/gitrepo"
	"github.com/blackboard-hub/bb/internal/hub"
)

// targetDir is where init/destroy act: --dir, BB_DIR, else the working directory.
func (a *app) targetDir() (string, error) {
	d := a.explicitDir()
	if d == "" {
		wd, err := a.env.Getwd()
		if err != nil {
			return "", &hub.Error{Code: hub.CodeIOReadFailed, Message: "cannot read the working directory", Err: err}
		}
		d = wd
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		return "", hub.Errorf(hub.CodeInvalidInput, "invalid directory %q", d)
	}
	return abs, nil
}

// initTarget is where bb init (without --dir) makes the board: the working
// directory, or, in a linked git work tree, the same place in the
// repository's main work tree (its top when that place does not exist
// there), so every work tree shares one board. linked is the linked work
// tree's top ("" otherwise).
func (a *app) initTarget(wd string) (dir, linked string, err error) {
	repo, ok, err := gitrepo.FromEnv(a.env.Getenv, wd)
	if !ok || repo.Kind != gitrepo.Linked {
		return wd, "", nil // a bare repository or a broken .git file: init says so below if it matters
	}
	if err != nil {
		return "", "", &hub.Error{Code: hub.CodeInvalidInput, Message: "Cannot create the board: " + err.Error() + "."}
	}
	from, _, err := a.boardSearch(wd)
	if err != nil {
		return "", "", err
	}
	for d := from; ; d = filepath.Dir(d) {
		if isDir(filepath.Join(d, BoardDir)) {
			return d, repo.Top, nil // already there: init keeps it
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if !isDir(from) {
		from = repo.MainTop
	}
	return from, repo.Top, nil
}

func (a *app) initCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create the board (.bb/blackboard.db) in this directory",
		Long: `Create .bb/ in the project directory (--dir, $BB_DIR, or the working
directory; in a linked git work tree, the repository's main work tree, so
that every work tree of the repository shares one board) with the SQLite database and a .gitignore of "*" so the board is
never committed. Running it again keeps everything and exits 0.

With --database-url or $BB_DATABASE_URL (postgres://…), the board lives in
that PostgreSQL database instead: init applies the schema there (every
command also does, on connect) and .bb/ only marks the project root.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runInit(cmd)
		},
	}
}

// initOutcome is what bb init did: where the board is and whether it was
// there before.
type initOutcome struct {
	dir, linked, boardDir, location, dbURL string
	// existed: the board was there already; rebuilt: its database was a
	// 0-byte file, replaced by a new board.
	existed, rebuilt bool
}

// runInit is bb init's body: it finds the project directory, creates .bb/
// with its .gitignore when missing, and opens the board with Create so the
// database (or the server database's schema) is there.
func (a *app) runInit(cmd *cobra.Command) error {
	dir, linked, err := a.initProjectDir()
	if err != nil {
		return err
	}
	boardDir := filepath.Join(dir, BoardDir)
	dbPath := filepath.Join(boardDir, DBName)
	fi, statErr := os.Stat(dbPath)
	existed := statErr == nil
	// A 0-byte database holds no board: init builds a new one in
	// its place and says so.
	rebuilt := existed && fi.Mode().IsRegular() && fi.Size() == 0
	existed = existed && !rebuilt
	dbURL := a.databaseURL()
	if dbURL != "" {
		// The board lives in the server database; .bb/ only marks
		// the project root. existed: the schema was there already.
		var err error
		if existed, err = boot.SchemaExists(cmd.Context(), dbURL); err != nil {
			return err
		}
	} else if !existed && !rebuilt && isDir(boardDir) && !a.g.quiet {
		a.errorf("Warning: %s exists but its database is missing. Recreating...\n", boardDir)
	}
	if err := initBoardDir(boardDir); err != nil {
		return err
	}
	b, err := boot.Open(cmd.Context(), boot.Config{SQLitePath: dbPath, Create: true, InitEmpty: true, DatabaseURL: dbURL, ProjectRoot: dir})
	if err != nil {
		return err
	}
	r := initOutcome{dir: dir, linked: linked, boardDir: boardDir, location: b.Location, dbURL: dbURL, existed: existed, rebuilt: rebuilt}
	b.Close()
	data := map[string]any{"project_dir": dir, "board_dir": boardDir, "database": r.location, "created": !existed}
	if linked != "" {
		data["work_tree"] = linked
	}
	return a.reply(cmd, data, r.print)
}

// initProjectDir is the directory bb init makes the board in: --dir or
// $BB_DIR as given, else initTarget of the working directory; linked is
// the linked work tree init was run from ("" otherwise).
func (a *app) initProjectDir() (dir, linked string, err error) {
	dir, err = a.targetDir()
	if err != nil {
		return "", "", err
	}
	if a.explicitDir() == "" {
		if dir, linked, err = a.initTarget(dir); err != nil {
			return "", "", err
		}
	}
	if !isDir(dir) {
		return "", "", hub.Errorf(hub.CodeInvalidInput, "directory %s does not exist", dir)
	}
	return dir, linked, nil
}

// initBoardDir creates .bb/ and its .gitignore of "*" when they are
// missing. A new .bb/ is its owner's alone (0700 whatever the umask); an
// existing one keeps its mode.
func initBoardDir(boardDir string) error {
	if !isDir(boardDir) {
		if err := os.MkdirAll(boardDir, 0o700); err != nil {
			return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot create " + boardDir, Err: err}
		}
		if err := os.Chmod(boardDir, 0o700); err != nil {
			return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot create " + boardDir, Err: err}
		}
	}
	gi := filepath.Join(boardDir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, fs.ErrNotExist) {
		if err := os.WriteFile(gi, []byte("*\n"), 0o644); err != nil {
			return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot write " + gi, Err: err}
		}
	}
	return nil
}

// print is bb init's text reply.
func (r initOutcome) print(w io.Writer) {
	if r.linked != "" {
		fmt.Fprintf(w, "%s is a linked work tree of the repository at %s; its board is the main work tree's.\n", r.linked, r.dir)
	}
	switch {
	case r.dbURL != "" && r.existed:
		fmt.Fprintf(w, "Blackboard already initialized in %s (project %s)\n", r.location, r.dir)
	case r.dbURL != "":
		fmt.Fprintf(w, "Initialized blackboard in %s (project %s)\n", r.location, r.dir)
	case r.rebuilt:
		fmt.Fprintf(w, "The database %s was empty (0 bytes, no board in it): built a new, empty board in its place\n", r.location)
	case r.existed:
		fmt.Fprintf(w, "Blackboard already initialized at %s\n", r.dir)
	default:
		fmt.Fprintf(w, "Initialized blackboard at %s%c\n", r.boardDir, filepath.Separator)
	}
}

func (a *app) destroyCmd() *cobra.Command {
	var confirm bool
	c := &cobra.Command{
		Use:   "destroy",
		Short: "Delete the board (.bb/) and everything in it",
		Long: `Remove the .bb/ directory of the project (--dir, $BB_DIR, or the
working directory) with all agents, messages, artifacts and events.
Without --confirm it only says what it would delete.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := a.targetDir()
			if err != nil {
				return err
			}
			if a.explicitDir() == "" {
				if found, err := a.findProject(); err == nil {
					dir = found
				}
			}
			boardDir := filepath.Join(dir, BoardDir)
			if !isDir(boardDir) {
				return notInitialized(dir)
			}
			if !confirm {
				return a.reply(cmd, map[string]any{"board_dir": boardDir, "destroyed": false}, func(w io.Writer) {
					fmt.Fprintf(w, "This will permanently delete %s and all its contents.\nRun 'bb destroy --confirm' to proceed.\n", boardDir)
				})
			}
			if err := os.RemoveAll(boardDir); err != nil {
				return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot delete " + boardDir, Err: err}
			}
			// The board is gone: no check-in afterwards.
			a.g.as, a.g.asGiven = "", false
			a.env.Getenv = withoutAgent(a.env.Getenv)
			return a.reply(cmd, map[string]any{"board_dir": boardDir, "destroyed": true}, func(w io.Writer) {
				fmt.Fprintf(w, "Destroyed blackboard at %s%c\n", boardDir, filepath.Separator)
			})
		},
	}
	c.Flags().BoolVar(&confirm, "confirm", false, "really delete the board")
	return c
}

func withoutAgent(get func(string) string) func(string) string {
	return func(k string) string {
		if k == "BB_AGENT_ID" {
			return ""
		}
		return get(k)
	}
}
