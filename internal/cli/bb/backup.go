package bb

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/boot"
	"github.com/blackboard-hub/bb/internal/hub"
)

func (a *app) backupCmd() *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "backup <file>",
		Short: "Write a consistent, verified copy of the whole board to a SQLite file",
		Long: `Copy every table of the board (agents, messages and receipts, events,
reservations, tasks, memory, credentials, settings, idempotency keys) into
a new SQLite file, while agents keep writing, then verify the file.

A SQLite board is copied by SQLite itself (VACUUM INTO): one read snapshot,
so the copy holds every write acknowledged before it started and none
half-done, and agents' writes are not held up. A PostgreSQL board
(--database-url / $BB_DATABASE_URL) is read in one snapshot and written
into the SQLite file table by table, every table's count checked
(pg_dump works too; see docs/ops.md).

Verification: SQLite's integrity check, the schema version, and the row
count of every table (printed). The file is written beside its final name
and moved into place only once verified: a failed backup leaves nothing.
Put it back with bb restore <file>.`,
		Example: `  bb backup backups/board-$(date +%F).db
  bb --json backup /var/backups/bb.db --force
  BB_DATABASE_URL=postgres://bb@db/bb bb backup bb.db`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.g.as = ""
			a.env.Getenv = withoutAgent(a.env.Getenv)
			from, err := a.boardConfig()
			if err != nil {
				return err
			}
			file, err := a.absPath(args[0])
			if err != nil {
				return err
			}
			res, err := boot.Backup(cmd.Context(), boot.BackupInput{From: from, To: file, Force: force})
			if err != nil {
				return err
			}
			return a.reply(cmd, res, func(w io.Writer) {
				fmt.Fprintf(w, "Backed up %s (%s) to %s: %d rows in %d tables, %d bytes.\n", res.From.Location, res.From.Backend, res.File, res.Rows, len(res.Tables), res.Bytes)
				fmt.Fprintf(w, "Verified: integrity %s, schema version %d. Restore it with: bb restore %s\n", res.Integrity, res.SchemaVersion, res.File)
			})
		},
	}
	c.Flags().BoolVar(&force, "force", false, "replace the file if it exists")
	return c
}

func (a *app) restoreCmd() *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "restore <file>",
		Short: "Replace the board's contents with a backup file's (bb backup)",
		Long: `Put a backup made by bb backup (or any copy of a board's SQLite file)
back as the board: the board's current contents are replaced by the
file's, every table's row count checked.

The file is checked first and nothing changes when it is not a board, is
damaged, or was written by a newer bb (its schema version is newer than
this binary's). An older file is migrated in a private copy; the file
itself is never changed. The board may be SQLite (.bb/blackboard.db) or
PostgreSQL (--database-url / $BB_DATABASE_URL).

Stop every bb serve on the board first: while one is connected bb restore
refuses, since its agents would see the board change under them; --force
restores anyway (a SQLite bb serve then reads the restored board).`,
		Example: `  bb restore backups/board-2026-11-30.db
  BB_DATABASE_URL=postgres://bb@db/bb bb restore bb.db
  bb restore board.db --force`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.g.as = ""
			a.env.Getenv = withoutAgent(a.env.Getenv)
			to, err := a.boardConfig()
			if err != nil {
				return err
			}
			file, err := a.absPath(args[0])
			if err != nil {
				return err
			}
			res, err := boot.Restore(cmd.Context(), boot.RestoreInput{From: file, To: to, Force: force})
			if err != nil {
				return err
			}
			return a.reply(cmd, res, func(w io.Writer) {
				fmt.Fprintf(w, "Restored %s into %s (%s): %d rows in %d tables; every table's count matches.\n", res.File, res.To.Location, res.To.Backend, res.Rows, len(res.Tables))
			})
		},
	}
	c.Flags().BoolVar(&force, "force", false, "restore even while a bb serve is connected to the board")
	return c
}

// absPath resolves a path given on the command line against the working
// directory.
func (a *app) absPath(p string) (string, error) {
	if p == "" {
		return "", hub.FieldErr(hub.CodeInvalidInput, "file", "give a file path")
	}
	if filepath.IsAbs(p) {
		return p, nil
	}
	wd, err := a.env.Getwd()
	if err != nil {
		return "", &hub.Error{Code: hub.CodeIOReadFailed, Message: "cannot read the working directory", Err: err}
	}
	return filepath.Join(wd, p), nil
}
