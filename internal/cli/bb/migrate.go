package bb

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/boot"
	"github.com/blackboard-hub/bb/internal/cli/terminal"
	"github.com/blackboard-hub/bb/internal/hub"
)

func (a *app) migrateCmd() *cobra.Command {
	var to, from string
	var force bool
	c := &cobra.Command{
		Use:   "migrate --to <postgres://…|file.db>",
		Short: "Copy the whole board to PostgreSQL, or back to a SQLite file",
		Long: `Copy every table of the board (agents, messages and receipts, artifacts,
refs, events, reservations, tasks, memory, idempotency keys) into another
database, keeping ids, message numbers and event sequence numbers:

  bb migrate --to postgres://user:pass@host:5432/bb   # SQLite board -> PostgreSQL
  bb migrate --to backup.db                           # current board -> a SQLite file

The source is the current board (--database-url / $BB_DATABASE_URL when set,
else .bb/blackboard.db), or --from. The source is read in one consistent
snapshot; the target is migrated to the current schema, then written table by
table in transactions of 500 rows, and refused when it already holds data
unless --force (which first empties it). Every table is counted on both sides
at the end. Progress goes to stderr (a bar on a terminal, lines otherwise,
nothing with --json). Afterwards point agents at the new database with
BB_DATABASE_URL.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Migrating is not an agent's act: no check-in on either side.
			a.g.as = ""
			a.env.Getenv = withoutAgent(a.env.Getenv)
			ctx := cmd.Context()
			if strings.TrimSpace(to) == "" {
				return hub.FieldErr(hub.CodeInvalidInput, "to", "--to needs a postgres:// URL or a file path")
			}
			srcSpec := from
			if srcSpec == "" {
				srcSpec = a.databaseURL()
			}
			if srcSpec == "" {
				root, err := a.findProject()
				if err != nil {
					return err
				}
				srcSpec = filepath.Join(root, BoardDir, DBName)
			}
			src, err := a.boardSpec(srcSpec, false, "from")
			if err != nil {
				return err
			}
			dst, err := a.boardSpec(to, true, "to")
			if err != nil {
				return err
			}
			p := a.progress()
			res, err := boot.Copy(ctx, boot.CopyInput{From: src, To: dst, Force: force, Progress: p.update})
			if err != nil {
				return err
			}
			data := map[string]any{
				"from":   map[string]string{"backend": res.From.Backend, "location": res.From.Location},
				"to":     map[string]string{"backend": res.To.Backend, "location": res.To.Location},
				"tables": res.Tables, "rows": res.Rows, "forced": force, "counts_match": true,
			}
			return a.reply(cmd, data, func(w io.Writer) {
				fmt.Fprintf(w, "Copied %d rows in %d tables from %s to %s; every table's count matches.\n",
					res.Rows, len(res.Tables), res.From.Location, res.To.Location)
				if res.To.Backend == "postgres" {
					fmt.Fprintf(w, "Point agents at it with BB_DATABASE_URL=%s (or --database-url).\n", res.To.Location)
				}
			})
		},
	}
	c.Flags().StringVar(&to, "to", "", "target: a postgres:// URL, or a SQLite file path (created when missing)")
	c.Flags().StringVar(&from, "from", "", "source instead of the current board: a postgres:// URL or a SQLite file")
	c.Flags().BoolVar(&force, "force", false, "replace the contents of a non-empty target")
	_ = c.MarkFlagRequired("to")
	return c
}

// boardSpec names the board of a postgres:// URL or a SQLite file path
// (created only for a target).
func (a *app) boardSpec(spec string, create bool, field string) (boot.Config, error) {
	if boot.IsDatabaseURL(spec) {
		return boot.Config{DatabaseURL: spec}, nil
	}
	if strings.Contains(spec, "://") {
		return boot.Config{}, hub.FieldErr(hub.CodeInvalidInput, field, "--%s %q: only postgres:// URLs and SQLite file paths are supported", field, spec)
	}
	p := spec
	if !filepath.IsAbs(p) {
		wd, err := a.env.Getwd()
		if err != nil {
			return boot.Config{}, &hub.Error{Code: hub.CodeIOReadFailed, Message: "cannot read the working directory", Err: err}
		}
		p = filepath.Join(wd, p)
	}
	if isDir(p) {
		return boot.Config{}, hub.FieldErr(hub.CodeInvalidInput, field, "--%s %s is a directory; give a database file path", field, p)
	}
	return boot.Config{SQLitePath: p, Create: create, InitEmpty: create}, nil
}

// migrateProgress draws the copy's progress on stderr: a redrawn bar on a
// terminal, one line per table otherwise, nothing with --json or -q.
type migrateProgress struct {
	w     io.Writer
	tty   bool
	quiet bool
	last  string
}

func (a *app) progress() *migrateProgress {
	p := &migrateProgress{w: a.env.Stderr, quiet: a.g.json || a.g.quiet}
	p.tty = terminal.Is(a.env.Stderr)
	return p
}

func (p *migrateProgress) update(table string, done, total int64) {
	if p.quiet {
		return
	}
	if p.tty {
		const width = 30
		fill := width
		if total > 0 {
			fill = int(done * width / total)
		}
		fmt.Fprintf(p.w, "\r\033[K%-16s [%s%s] %d/%d rows", table,
			strings.Repeat("#", fill), strings.Repeat(".", width-fill), done, total)
		if done == total {
			fmt.Fprintln(p.w)
		}
		return
	}
	if done == total && p.last != table {
		fmt.Fprintf(p.w, "copied %s: %d rows\n", table, total)
		p.last = table
	}
}
