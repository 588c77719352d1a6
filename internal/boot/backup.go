package boot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/blackboard-hub/bb/internal/termtext"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/store/storecopy"
)

// BackupInput names the board to copy and the file to write.
type BackupInput struct {
	From Config
	// To is the SQLite file to write; it must not exist unless Force.
	To    string
	Force bool
}

// BackupResult describes a verified backup file.
type BackupResult struct {
	From Side   `json:"from"`
	File string `json:"file"`
	// Method is how the copy was taken: "vacuum_into" (SQLite's own
	// consistent copy of a SQLite board) or "copy" (a PostgreSQL board read
	// in one snapshot, written table by table, counts checked).
	Method string `json:"method"`
	Bytes  int64  `json:"bytes"`
	// SchemaVersion is the file's schema version.
	SchemaVersion int `json:"schema_version"`
	// Tables are the file's row counts (for "copy", checked against the
	// source's snapshot).
	Tables []storecopy.TableCount `json:"tables"`
	Rows   int64                  `json:"rows"`
	// Integrity is SQLite's integrity_check of the file: "ok".
	Integrity string `json:"integrity"`
}

// Backup writes a consistent copy of the board to a new SQLite file while
// agents keep writing, then verifies it. A SQLite board is copied by
// SQLite itself (VACUUM INTO: one read snapshot, no write lock held); a
// PostgreSQL board is read in one REPEATABLE READ snapshot and written
// table by table, every table's count checked. The file is written beside
// its final name and renamed into place only once verified, so a failed
// backup leaves nothing behind.
func Backup(ctx context.Context, in BackupInput) (BackupResult, error) {
	target, err := backupTarget(in)
	if err != nil {
		return BackupResult{}, err
	}
	from := in.From
	from.Create = false
	src, err := openStore(ctx, from)
	if err != nil {
		return BackupResult{}, err
	}
	defer src.Close()
	res := BackupResult{From: Side{Backend: src.Backend(), Location: src.Location()}, File: target}
	tmp := filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+fmt.Sprintf(".%d.partial", os.Getpid()))
	_ = os.Remove(tmp)
	defer os.Remove(tmp)
	if src.Backend() == "sqlite" {
		if same(from.SQLitePath, target) {
			return res, hub.FieldErr(hub.CodeInvalidInput, "file", "%s is the board itself: back up to another file", target)
		}
		res.Method = "vacuum_into"
		if _, err := src.SQL().ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
			return res, &hub.Error{Code: hub.CodeIOWriteFailed, Message: fmt.Sprintf("cannot write the backup %s: %s", target, termtext.FirstLine(err.Error())), Err: err}
		}
	} else {
		res.Method = "copy"
		dst, err := openStore(ctx, Config{SQLitePath: tmp, Create: true, InitEmpty: true})
		if err != nil {
			return res, err
		}
		cr, err := storecopy.Copy(ctx, src, dst, storecopy.Options{})
		_ = dst.Close()
		if err != nil {
			return res, err
		}
		res.Tables, res.Rows = cr.Tables, cr.Rows
	}
	v, err := VerifyBackup(ctx, tmp)
	if err != nil {
		return res, err
	}
	res.SchemaVersion, res.Integrity = v.SchemaVersion, v.Integrity
	if res.Tables == nil {
		res.Tables, res.Rows = v.Tables, v.Rows
	}
	if err := os.Rename(tmp, target); err != nil {
		return res, &hub.Error{Code: hub.CodeIOWriteFailed, Message: fmt.Sprintf("cannot move the backup into place at %s: %v", target, errors.Unwrap(err)), Err: err}
	}
	if fi, err := os.Stat(target); err == nil {
		res.Bytes = fi.Size()
	}
	return res, nil
}

// backupTarget checks the file a backup goes to: an absolute path in an
// existing directory, not there yet (unless Force), not a directory.
func backupTarget(in BackupInput) (string, error) {
	p := strings.TrimSpace(in.To)
	if p == "" {
		return "", hub.FieldErr(hub.CodeInvalidInput, "file", "give the file to write the backup to, e.g. bb backup board-backup.db")
	}
	p, err := filepath.Abs(p)
	if err != nil {
		return "", hub.FieldErr(hub.CodeInvalidInput, "file", "invalid backup path %q", in.To)
	}
	dir := filepath.Dir(p)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", hub.FieldErr(hub.CodeInvalidInput, "file", "the directory %s does not exist: create it first, or choose another place for the backup", dir)
	}
	if in.From.DatabaseURL == "" && same(in.From.SQLitePath, p) {
		return "", hub.FieldErr(hub.CodeInvalidInput, "file", "%s is the board itself: back up to another file", p)
	}
	if fi, err := os.Stat(p); err == nil {
		if fi.IsDir() {
			return "", hub.FieldErr(hub.CodeInvalidInput, "file", "%s is a directory: give a file name for the backup", p)
		}
		if !in.Force {
			return "", hub.FieldErr(hub.CodeConflict, "file", "%s already exists: choose a new name, or --force to replace it", p)
		}
	}
	return p, nil
}

// same reports whether a and b name the same file (or the same path).
func same(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	aa, _ := filepath.Abs(a)
	bb, _ := filepath.Abs(b)
	if aa == bb {
		return true
	}
	fa, err1 := os.Stat(aa)
	fb, err2 := os.Stat(bb)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// Verified is what VerifyBackup found in a backup file.
type Verified struct {
	SchemaVersion int                    `json:"schema_version"`
	Latest        int                    `json:"latest_schema_version"`
	Integrity     string                 `json:"integrity"`
	Tables        []storecopy.TableCount `json:"tables"`
	Rows          int64                  `json:"rows"`
}

// VerifyBackup opens path read-only and checks that it is a Blackboard
// board this binary can restore: a SQLite database, with the board's
// tables, a schema no newer than this binary's, and SQLite's integrity
// check passing. It counts every table's rows.
func VerifyBackup(ctx context.Context, path string) (Verified, error) {
	var v Verified
	fi, err := os.Stat(path)
	if err != nil {
		return v, hub.FieldErr(hub.CodeNotFound, "file", "no backup file at %s", path)
	}
	if fi.IsDir() {
		return v, hub.FieldErr(hub.CodeInvalidInput, "file", "%s is a directory, not a backup file", path)
	}
	if ok, err := sqliteHeader(path); err != nil {
		return v, &hub.Error{Code: hub.CodeIOReadFailed, Message: fmt.Sprintf("cannot read %s: %v", path, errors.Unwrap(err)), Err: err}
	} else if !ok {
		return v, hub.FieldErr(hub.CodeInvalidInput, "file", "%s is not a Blackboard backup (not an SQLite database)", path)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("immutable", "1")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return v, &hub.Error{Code: hub.CodeIOReadFailed, Message: fmt.Sprintf("cannot open %s", path), Err: err}
	}
	defer db.Close()
	notBoard := func(err error) error {
		return &hub.Error{Code: hub.CodeInvalidInput, Field: "file", Message: fmt.Sprintf("%s is not a Blackboard backup (%s)", path, termtext.FirstLine(err.Error())), Err: err}
	}
	names, err := tableNames(ctx, db)
	if err != nil {
		return v, notBoard(err)
	}
	// The tables every board has: a file without them is not a board.
	for _, t := range []string{"agents", "messages", "events", "board_config"} {
		if i := sort.SearchStrings(names, t); i == len(names) || names[i] != t {
			return v, hub.FieldErr(hub.CodeInvalidInput, "file", "%s is not a Blackboard backup (it has no %s table)", path, t)
		}
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v.SchemaVersion); err != nil {
		return v, notBoard(err)
	}
	if v.Latest, err = sqlite.LatestVersion(); err != nil {
		return v, hub.Internal("read migrations", err)
	}
	if v.SchemaVersion > v.Latest {
		return v, hub.Errorf(hub.CodeSchemaTooNew, "%s has schema version %d, newer than this bb supports (%d): restore it with a newer bb", path, v.SchemaVersion, v.Latest)
	}
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check(1)").Scan(&v.Integrity); err != nil {
		return v, notBoard(err)
	}
	if v.Integrity != "ok" {
		return v, &hub.Error{Code: hub.CodeIOReadFailed, Message: fmt.Sprintf("%s is damaged (SQLite integrity check: %s)", path, v.Integrity)}
	}
	for _, t := range names {
		var n int64
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM "`+t+`"`).Scan(&n); err != nil {
			return v, notBoard(err)
		}
		v.Tables = append(v.Tables, storecopy.TableCount{Table: t, Source: n, Target: n})
		v.Rows += n
	}
	return v, nil
}

func sqliteHeader(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	b := make([]byte, 16)
	if _, err := io.ReadFull(f, b); err != nil {
		return false, nil
	}
	return string(b) == "SQLite format 3\x00", nil
}

// tableNames lists a SQLite file's board tables, sorted: the tables a
// restore copies (not SQLite's own, the search index's shadow tables nor
// the derived totals), so a backup and its restore count the same rows.
func tableNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		all = append(all, n)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The shadow tables of a virtual table (the search index) are its own.
	vt, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'`)
	if err != nil {
		return nil, err
	}
	defer vt.Close()
	var virtual []string
	for vt.Next() {
		var n string
		if err := vt.Scan(&n); err != nil {
			return nil, err
		}
		virtual = append(virtual, n+"_")
	}
	out := all[:0]
next:
	for _, n := range all {
		if storecopy.Derived(n) {
			continue // rebuilt by the target's triggers: a restore does not copy it
		}
		for _, v := range virtual {
			if strings.HasPrefix(n, v) {
				continue next
			}
		}
		out = append(out, n)
	}
	return out, vt.Err()
}

// RestoreInput names the backup file and the board it replaces.
type RestoreInput struct {
	From string
	To   Config
	// Force restores even while a bb serve runs on the board.
	Force bool
}

// RestoreResult describes a finished restore.
type RestoreResult struct {
	File   string                 `json:"file"`
	To     Side                   `json:"to"`
	Tables []storecopy.TableCount `json:"tables"`
	Rows   int64                  `json:"rows"`
	// SchemaVersion is the backup's version (an older one is migrated).
	SchemaVersion int `json:"schema_version"`
}

// Restore replaces the board's contents with a backup file's: the file is
// verified first (a board, not newer than this binary, intact), refused
// while a bb serve runs on the board unless Force, migrated in a private
// copy when older (the file itself is never changed), then copied in:
// the board is emptied and filled table by table, every count checked.
func Restore(ctx context.Context, in RestoreInput) (RestoreResult, error) {
	file, err := filepath.Abs(strings.TrimSpace(in.From))
	if err != nil || strings.TrimSpace(in.From) == "" {
		return RestoreResult{}, hub.FieldErr(hub.CodeInvalidInput, "file", "give the backup file to restore, e.g. bb restore board-backup.db")
	}
	if in.To.DatabaseURL == "" && same(in.To.SQLitePath, file) {
		return RestoreResult{}, hub.FieldErr(hub.CodeInvalidInput, "file", "%s is the board itself: restore from a backup file", file)
	}
	v, err := VerifyBackup(ctx, file)
	if err != nil {
		return RestoreResult{}, err
	}
	if !in.Force {
		n, err := ServersRunning(ctx, in.To)
		if err != nil {
			return RestoreResult{}, err
		}
		if n > 0 {
			return RestoreResult{}, hub.Errorf(hub.CodeConflict, "%d bb serve process(es) are connected to this board: stop them first (their agents would see the board change under them), or --force", n)
		}
	}
	// A private copy of the file: opening it migrates an older schema.
	tmpDir, err := os.MkdirTemp("", "bb-restore-")
	if err != nil {
		return RestoreResult{}, &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot create a temporary directory", Err: err}
	}
	defer os.RemoveAll(tmpDir)
	tmp := filepath.Join(tmpDir, "restore.db")
	if err := copyFile(file, tmp); err != nil {
		return RestoreResult{}, &hub.Error{Code: hub.CodeIOWriteFailed, Message: fmt.Sprintf("cannot copy %s: %v", file, errors.Unwrap(err)), Err: err}
	}
	to := in.To
	to.Create = true
	cr, err := Copy(ctx, CopyInput{From: Config{SQLitePath: tmp}, To: to, Force: true})
	if err != nil {
		return RestoreResult{}, err
	}
	return RestoreResult{File: file, To: cr.To, Tables: cr.Tables, Rows: cr.Rows, SchemaVersion: v.SchemaVersion}, nil
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
