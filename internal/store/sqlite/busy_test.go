package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// openBusyBoard creates a board and a second, raw connection to its file
// that plays the other processes.
func openBusyBoard(t *testing.T, o sqlite.Options) (*sql.DB, func() error) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bb.db")
	o.Create = true
	st, err := sqlite.Open(ctx, path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	other.SetMaxOpenConns(1)
	if _, err := other.Exec(`CREATE TABLE other_work (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	write := func() error {
		return st.Write(ctx, func(tx hub.Tx) error { return tx.TouchAgent(ctx, "alice", time.Now()) })
	}
	return other, write
}

// A write lock that nobody releases and no commit anywhere: the write
// gives up with DATABASE_BUSY once StuckAfter has passed without progress.
func TestBusyWriteGivesUpWhenNothingCommits(t *testing.T) {
	other, write := openBusyBoard(t, sqlite.Options{BusyTimeoutMS: 20, StuckAfter: 200 * time.Millisecond})
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")
	if err := write(); hub.CodeOf(err) != hub.CodeDatabaseBusy {
		t.Fatalf("write under a held lock: %v, want DATABASE_BUSY", err)
	}
}

// Another process commits one transaction after another, each holding the
// lock longer than one attempt waits, for much longer than a fixed number
// of attempts would last: the write keeps waiting, since the board is busy,
// not stuck, and succeeds once the other side stops.
func TestBusyWriteWaitsWhileOthersCommit(t *testing.T) {
	// StuckAfter stays well above a loaded machine's scheduling delays
	// (a 400 ms setting failed once at load 16: the other side's commits
	// came further apart than that), and the commits last three times it.
	other, write := openBusyBoard(t, sqlite.Options{BusyTimeoutMS: 20, StuckAfter: time.Second})
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		var err error
		for i := 0; i < 50 && err == nil; i++ { // ~3 s of back-to-back commits
			if _, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
				break
			}
			if i == 0 {
				close(started)
			}
			if _, err = conn.ExecContext(ctx, "INSERT INTO other_work VALUES (?)", i); err == nil {
				time.Sleep(60 * time.Millisecond)
				_, err = conn.ExecContext(ctx, "COMMIT")
			}
		}
		done <- err
	}()
	<-started
	if err := write(); err != nil {
		t.Fatalf("write while another process keeps committing: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// holdNewBoard makes a new database file with a second connection that
// holds its write lock (another process creating or writing the board).
func holdNewBoard(t *testing.T) (path string, release func()) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "bb.db")
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			_, _ = conn.ExecContext(context.Background(), "COMMIT")
			conn.Close()
		})
	}
	t.Cleanup(release)
	return path, release
}

// Many processes opening a new board at once: all but one wait for the
// write lock to create the schema. One that finds the lock held for longer
// than an attempt waits (busy_timeout) waits on, and opens the board once
// the lock is free.
func TestOpenWaitsForTheBoardBeingCreated(t *testing.T) {
	path, release := holdNewBoard(t)
	time.AfterFunc(300*time.Millisecond, release)
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{Create: true, BusyTimeoutMS: 20, StuckAfter: 10 * time.Second})
	if err != nil {
		t.Fatalf("open while another connection holds the lock for a while: %v", err)
	}
	st.Close()
}

// A lock nobody releases: opening gives up with DATABASE_BUSY once nothing
// has changed for StuckAfter.
func TestOpenGivesUpWhenTheLockIsStuck(t *testing.T) {
	path, _ := holdNewBoard(t)
	_, err := sqlite.Open(context.Background(), path, sqlite.Options{Create: true, BusyTimeoutMS: 20, StuckAfter: 200 * time.Millisecond})
	if hub.CodeOf(err) != hub.CodeDatabaseBusy {
		t.Fatalf("open under a stuck lock: %v, want DATABASE_BUSY", err)
	}
}
