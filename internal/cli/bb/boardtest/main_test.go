package boardtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// binDir holds the bb binary built once for this package.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "bb-boardtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "bb"), "github.com/blackboard-hub/bb/cmd/bb")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building bb:", err)
		return 1
	}
	binDir = dir
	return m.Run()
}

func bbPath() string { return filepath.Join(binDir, "bb") }

// bbCmd prepares a bb process in dir with a clean environment plus env.
func bbCmd(dir string, env []string, args ...string) *exec.Cmd {
	c := exec.Command(bbPath(), args...)
	c.Dir = dir
	c.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, env...)
	return c
}

// initBoard runs `bb init` in a fresh temporary directory and returns it.
func initBoard(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	if out, err := bbCmd(dir, nil, "init").CombinedOutput(); err != nil {
		tb.Fatalf("bb init: %v\n%s", err, out)
	}
	return dir
}

// SeedOptions shape the messages seedBoard inserts.
type SeedOptions struct {
	From     string
	To       string // recipient of a direct message ("" = broadcast)
	ReplyTo  int64  // seq of the parent (0 = none)
	Tags     []string
	Priority hub.Priority
	Refs     []hub.Ref
	// Varied spreads senders, tags, priorities and refs over the messages
	// (for benchmarks: realistic selectivity of every filter).
	Varied bool
	// Start is the time of the first message; each next one is Step later.
	Start time.Time
	Step  time.Duration
}

// seedBoard inserts n messages into the board database at dbPath through
// the store (InsertMessage + AppendEvent, like bb post), in batches of one
// transaction each so that 100k messages take seconds.
func seedBoard(ctx context.Context, dbPath string, n int, o SeedOptions) error {
	st, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	if o.From == "" {
		o.From = "seed"
	}
	if o.Priority == "" {
		o.Priority = hub.PriorityNormal
	}
	if o.Start.IsZero() {
		o.Start = time.Now().UTC().Add(-time.Duration(n) * time.Second)
	}
	if o.Step == 0 {
		o.Step = time.Second
	}
	const batch = 5000
	for done := 0; done < n; {
		k := min(batch, n-done)
		err := st.Write(ctx, func(tx hub.Tx) error {
			var parent *hub.Message
			if o.ReplyTo > 0 {
				p, err := tx.MessageBySeq(ctx, o.ReplyTo)
				if err != nil {
					return err
				}
				if p == nil {
					return fmt.Errorf("seed: no message %d to reply to", o.ReplyTo)
				}
				parent = p
			}
			for j := done; j < done+k; j++ {
				at := o.Start.Add(time.Duration(j) * o.Step).Truncate(time.Microsecond)
				m := hub.Message{UUID: uuid.NewString(), From: o.From, To: hub.Broadcast, Type: "broadcast",
					Body: fmt.Sprintf("seeded message %d: the quick brown fox jumps over the lazy dog", j+1),
					Tags: o.Tags, Priority: o.Priority, Refs: o.Refs, CreatedAt: at}
				if o.Varied {
					m.From = fmt.Sprintf("agent-%02d", j%20)
					m.Tags = []string{fmt.Sprintf("area-%d", j%50)}
					m.Priority = hub.Priorities[j%len(hub.Priorities)]
					if j%100 == 0 {
						m.Refs = []hub.Ref{{Where: "gh", What: "issue", Ref: hub.NewRefID(fmt.Sprint(j / 100))}}
					}
				}
				if o.To != "" {
					m.To, m.Type, m.Subject = o.To, "direct", "direct"
				}
				if parent != nil {
					m.ReplyTo = parent.UUID
				}
				if err := tx.InsertMessage(ctx, &m); err != nil {
					return err
				}
				e := &hub.Event{Type: hub.EventMessagePosted, Agent: m.From, ToAgent: hub.Broadcast, Message: "seeded", CreatedAt: at}
				if err := tx.AppendEvent(ctx, e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		done += k
	}
	return nil
}
