package boot

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A long-lived board whose folder is moved away answers
// DATABASE_UNAVAILABLE (logged once, however many calls fail), and carries
// on once it is back, with nothing lost; a board file replaced by something
// that is not a board gets the advice for that, which is then true.
func TestLongLivedBoardMovedAwayAndBack(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, ".bb")
	path := filepath.Join(dir, "blackboard.db")
	var logBuf lockedBuf
	b, err := Open(ctx, Config{SQLitePath: path, Create: true, ProjectRoot: root, LongLived: true,
		Log: slog.New(slog.NewTextHandler(&logBuf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.API.Post(ctx, hub.PostInput{From: "pat", Content: "before"}); err != nil {
		t.Fatal(err)
	}

	away := filepath.Join(root, "away")
	if err := os.Rename(dir, away); err != nil {
		t.Fatal(err)
	}
	// Calls check the files at most every checkEvery while they are fine.
	time.Sleep(checkEvery + 10*time.Millisecond)
	for range 3 {
		_, err := b.API.Log(ctx, hub.LogQuery{})
		if !hub.IsCode(err, hub.CodeDatabaseUnavailable) || !strings.Contains(err.Error(), "is missing") {
			t.Fatalf("with the board moved away: %v, want DATABASE_UNAVAILABLE", err)
		}
		if _, err := b.API.Post(ctx, hub.PostInput{From: "pat", Content: "while away"}); !hub.IsCode(err, hub.CodeDatabaseUnavailable) {
			t.Fatalf("post with the board moved away: %v", err)
		}
	}
	if n := strings.Count(logBuf.String(), "database unavailable"); n != 1 {
		t.Errorf("outage logged %d times, want once:\n%s", n, logBuf.String())
	}

	if err := os.Rename(away, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := b.API.Post(ctx, hub.PostInput{From: "pat", Content: "after"}); err != nil {
		t.Fatalf("after the board came back: %v", err)
	}
	msgs, err := b.API.Log(ctx, hub.LogQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Body)
	}
	if strings.Join(got, ",") != "after,before" {
		t.Errorf("messages after the outage: %v", got)
	}
	if n := strings.Count(logBuf.String(), "database reachable again"); n != 1 {
		t.Errorf("end of outage logged %d times, want once:\n%s", n, logBuf.String())
	}

	// Replaced by a file that is not a board: reopened, and refused with
	// the advice that fits (the file really is not an SQLite database).
	for _, f := range []string{"", "-wal", "-shm"} {
		os.Remove(path + f)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(checkEvery + 10*time.Millisecond)
	_, err = b.API.Log(ctx, hub.LogQuery{})
	if err == nil || !strings.Contains(err.Error(), "not an SQLite file): move it aside") {
		t.Fatalf("with a text file in the board's place: %v", err)
	}
}
