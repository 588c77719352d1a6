package agentmail_test

import (
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Speed targets (seed 004 issue): one agent-mail process per operation, on
// a mailbox of 100k messages. Each benchmark execs the real binary b.N
// times and reports the median wall time per process (ms/median) beside
// Go's mean (ns/op). Run:
//
//	go test ./internal/cli/agentmail -run '^$' -bench . -benchtime 50x

const benchMessages = 100_000

// seedTemplates builds the 100k mailboxes once per test binary: "live"
// (all created within the last hour) and "expired" (all 25–26 h old).
var seedOnce sync.Once
var seedDir string
var seedErr error

func seedTemplates(b *testing.B) string {
	b.Helper()
	seedOnce.Do(func() {
		seedDir, seedErr = os.MkdirTemp("", "agentmail-bench-")
		if seedErr != nil {
			return
		}
		for _, kind := range []string{"live", "expired"} {
			if seedErr = seed(filepath.Join(seedDir, kind+".db"), kind == "expired"); seedErr != nil {
				return
			}
		}
	})
	if seedErr != nil {
		b.Fatal(seedErr)
	}
	return seedDir
}

// seed creates a database with the agent-mail binary (so the schema is
// the real one), then bulk-inserts benchMessages rows: half direct to
// p:reader, a quarter direct to 50 other agents, a quarter broadcasts,
// from 50 senders.
func seed(path string, expired bool) error {
	cmd := exec.Command(amBin, "cleanup")
	cmd.Env = []string{"AGENT_MAIL_DB=" + path, "HOME=" + filepath.Dir(path)}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("create db: %v %s", err, out)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	st, err := tx.Prepare(`INSERT INTO messages (id, sender, recipient, subject, body, type, ttl_hours, created, seq)
		VALUES (?, ?, ?, ?, ?, ?, 24, ?, ?)`)
	if err != nil {
		return err
	}
	base := time.Now().Add(-time.Hour)
	if expired {
		base = time.Now().Add(-26 * time.Hour)
	}
	for i := 0; i < benchMessages; i++ {
		to, typ := "p:reader", "direct"
		switch i % 4 {
		case 1:
			to = fmt.Sprintf("p:agent%d", i%50)
		case 3:
			to, typ = "*", "broadcast"
		}
		created := hub.FormatTime(base.Add(time.Duration(i) * 30 * time.Millisecond))
		if _, err := st.Exec(uuid.NewString(), fmt.Sprintf("p:sender%d", i%50), to, fmt.Sprintf("subject %d", i),
			"a short body of a coordination message", typ, created, i+1); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func copyFile(b *testing.B, src, dst string) {
	b.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		b.Fatal(err)
	}
}

// procs execs agent-mail once per iteration and reports the median.
func procs(b *testing.B, db string, args func(i int) []string) {
	b.Helper()
	env := []string{"AGENT_MAIL_DB=" + db, "HOME=" + filepath.Dir(db), "TZ=UTC"}
	times := make([]time.Duration, 0, b.N)
	cpu := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(amBin, args(i)...)
		cmd.Env = env
		var errb strings.Builder
		cmd.Stdout, cmd.Stderr = io.Discard, &errb
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%v: %v %s", args(i), err, errb.String())
		}
		times = append(times, time.Since(t0))
		cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	b.StopTimer()
	b.ReportMetric(ms(median(times)), "ms/median")
	b.ReportMetric(ms(times[len(times)*9/10]), "ms/p90")
	// CPU time (user+sys) of the process: what the wall time would be on
	// an idle machine, minus I/O waits; the machine these numbers come
	// from is shared, so wall times are inflated by queueing.
	b.ReportMetric(ms(median(cpu)), "cpu-ms/median")
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fresh(b *testing.B, kind string) string {
	b.Helper()
	dir := seedTemplates(b)
	db := filepath.Join(b.TempDir(), "mail.db")
	copyFile(b, filepath.Join(dir, kind+".db"), db)
	return db
}

// BenchmarkSend100k: one send process on a mailbox of 100k live messages.
func BenchmarkSend100k(b *testing.B) {
	db := fresh(b, "live")
	procs(b, db, func(i int) []string {
		return []string{"send", "--from", "p:bench", "--to", "p:reader", "--subject", fmt.Sprint("bench ", i), "--body", "hello"}
	})
}

// BenchmarkRead100kLive: default read (20 oldest unread, marked read) by
// the agent that holds half of the 100k messages.
func BenchmarkRead100kLive(b *testing.B) {
	db := fresh(b, "live")
	procs(b, db, func(int) []string { return []string{"read", "p:reader"} })
}

// BenchmarkRead100kLiveNoMark: the same inbox page, nothing marked.
func BenchmarkRead100kLiveNoMark(b *testing.B) {
	db := fresh(b, "live")
	procs(b, db, func(int) []string { return []string{"read", "p:reader", "--no-mark-read"} })
}

// BenchmarkRead100kExpired: 100k expired messages are waiting. The first
// read purges them all (reported once as purge-ms); the reads measured
// after it are the steady state.
func BenchmarkRead100kExpired(b *testing.B) {
	db := fresh(b, "expired")
	cmd := exec.Command(amBin, "read", "p:reader")
	cmd.Env = []string{"AGENT_MAIL_DB=" + db, "HOME=" + filepath.Dir(db), "TZ=UTC"}
	t0 := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	purge := time.Since(t0)
	var n int
	sdb, _ := sql.Open("sqlite", db)
	_ = sdb.QueryRow(`SELECT COUNT(*) FROM messages`).Scan(&n)
	sdb.Close()
	if n != 0 {
		b.Fatalf("%d messages left after the purge", n)
	}
	procs(b, db, func(int) []string { return []string{"read", "p:reader"} })
	b.ReportMetric(ms(purge), "purge-ms") // after procs: ResetTimer drops metrics
}

// BenchmarkStatus100k: status over the whole 100k mailbox (51 agents).
func BenchmarkStatus100k(b *testing.B) {
	db := fresh(b, "live")
	procs(b, db, func(int) []string { return []string{"status"} })
}

// BenchmarkDescribe: the schema, no database.
func BenchmarkDescribe(b *testing.B) {
	procs(b, filepath.Join(b.TempDir(), "none.db"), func(int) []string { return []string{"describe"} })
}
