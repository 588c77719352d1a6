package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// oneShotEnv makes the test binary a one-shot writer (see
// TestOneShotWritersKeepTheLogSmall): open the board named by it, commit
// one transaction, exit without closing — what every bb command does.
const oneShotEnv = "BB_TEST_ONE_SHOT_BOARD"

// TestOneShotWritersKeepTheLogSmall: processes that each open the board,
// commit and exit (leaving the file to the operating system) keep the
// write-ahead log under its limit: a commit past it empties the log. With
// SQLite's automatic checkpoint alone the log of such processes never
// starts over and grows with every commit (each new process rebuilds the
// log's index from all of its frames).
func TestOneShotWritersKeepTheLogSmall(t *testing.T) {
	const limit = 256 << 10
	if path := os.Getenv(oneShotEnv); path != "" {
		st, err := sqlite.Open(context.Background(), path, sqlite.Options{LogResetBytes: limit})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		err = st.Write(context.Background(), func(tx hub.Tx) error {
			for i := range 20 {
				m := hub.Message{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", time.Now().UnixNano()%1e9*100+int64(i)),
					From: "a", To: hub.Broadcast, Body: strings.Repeat("x", 3000), CreatedAt: time.Now()}
				if err := tx.InsertMessage(context.Background(), &m); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
		os.Exit(0) // no Close: the process leaves the file as it is
	}
	path := filepath.Join(t.TempDir(), "bb.db")
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	wal := path + "-wal"
	largest, resets := int64(0), 0
	for range 30 { // about 2 MB of commits, 8 times the limit
		c := exec.Command(os.Args[0], "-test.run=^TestOneShotWritersKeepTheLogSmall$")
		c.Env = append(os.Environ(), oneShotEnv+"="+path)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("one-shot writer: %v\n%s", err, out)
		}
		fi, err := os.Stat(wal)
		if err != nil {
			t.Fatal(err)
		}
		largest = max(largest, fi.Size())
		if fi.Size() == 0 {
			resets++
		}
	}
	// One commit of 20 messages adds about 20 pages (80 KB) to a log
	// just under the limit.
	if largest > limit+200<<10 {
		t.Fatalf("the write-ahead log grew to %d bytes over 30 one-shot commits (limit %d): it is never reset", largest, limit)
	}
	if resets == 0 {
		t.Fatal("no commit emptied the write-ahead log")
	}
}
