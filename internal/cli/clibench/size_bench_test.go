package clibench

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/testkit/bigboard"
)

// sizeNow is the present of the seeded boards (BB_NOW of every process).
var sizeNow = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// sizeCommand is one everyday read of an agent, run as a real process.
type sizeCommand struct {
	name  string
	bin   string
	args  []string
	stdin func(dir string) []byte
	// env is added to the board's environment.
	env []string
}

func sizeCommands() []sizeCommand {
	return []sizeCommand{
		{name: "bb-agent-inbox", bin: "bb", args: []string{"--as", bigboard.Reader, "agent", "inbox"}},
		{name: "bb-agent-inbox-unread", bin: "bb", args: []string{"--as", bigboard.Reader, "agent", "inbox", "--state", "unread"}},
		{name: "bb-agent-inbox-read", bin: "bb", args: []string{"--as", bigboard.Reader, "agent", "inbox", "--state", "read"}},
		{name: "bb-agent-inbox-acked", bin: "bb", args: []string{"--as", bigboard.Reader, "agent", "inbox", "--state", "acked", "--limit", "5"}},
		{name: "agent-mail-status", bin: "agent-mail", args: []string{"status", "--agent", bigboard.MailReader}},
		{name: "agent-mail-read", bin: "agent-mail", args: []string{"read", bigboard.MailReader, "--no-mark-read"}},
		{name: "bb-log", bin: "bb", args: []string{"--as", bigboard.Reader, "log"}},
		{name: "hook-UserPromptSubmit", bin: "bb", args: []string{"hook", "claude", "UserPromptSubmit"},
			stdin: func(dir string) []byte { return hookPayload(dir, "UserPromptSubmit", "prompt", "go on") }},
		// An agent that hears from the board only through hooks (read
		// cursor 0, urgent broadcasts delivered all along).
		{name: "hook-UserPromptSubmit-hook-only", bin: "bb", args: []string{"hook", "claude", "UserPromptSubmit"},
			stdin: func(dir string) []byte { return hookPayload(dir, "UserPromptSubmit", "prompt", "go on") },
			env:   []string{"BB_AGENT_ID=" + bigboard.HookReader}},
	}
}

// sizeBoard is a project whose board is a copy of a seeded template.
type sizeBoard struct {
	n        int
	dir, db  string
	env      []string
	template string
}

func openForSeed(path string) (*sql.DB, func() error, error) {
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{Create: true})
	if err != nil {
		return nil, nil, err
	}
	return st.SQL(), st.Close, nil
}

func newSizeBoard(b *testing.B, seedDir string, n int) *sizeBoard {
	b.Helper()
	t0 := time.Now()
	tpl, err := bigboard.Template(context.Background(), seedDir, bigboard.Spec{Messages: n, Broadcasts: n / 10, Now: sizeNow}, openForSeed)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("board of %d messages ready in %s", n, time.Since(t0).Round(time.Millisecond))
	dir := b.TempDir()
	sb := &sizeBoard{n: n, dir: dir, db: filepath.Join(dir, ".bb", "blackboard.db"), template: tpl}
	if err := os.MkdirAll(filepath.Dir(sb.db), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := bigboard.CopyFile(tpl, sb.db); err != nil {
		b.Fatal(err)
	}
	sb.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "BB_DIR=" + dir, "BB_AGENT_ID=" + bigboard.Reader,
		"BB_NOW=" + sizeNow.Format(time.RFC3339), "AGENT_MAIL_DB=" + sb.db}
	return sb
}

// run runs c once on the board and returns its wall and CPU time and
// stdout.
func (sb *sizeBoard) run(b *testing.B, c sizeCommand) (wall, cpu time.Duration, out string) {
	cmd := exec.Command(filepath.Join(binDir, c.bin), c.args...)
	cmd.Dir, cmd.Env = sb.dir, append(sb.env[:len(sb.env):len(sb.env)], c.env...)
	if c.stdin != nil {
		cmd.Stdin = bytes.NewReader(c.stdin(sb.dir))
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %v on %d messages: %v\n%s%s", c.bin, c.args, sb.n, err, stdout.String(), stderr.String())
	}
	return time.Since(t0), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), stdout.String()
}

// BenchmarkBoardSizeProcess: size does not matter, seen from outside. The
// everyday reads of an agent (bb agent inbox, agent-mail read, bb log, the
// hook's delivery on UserPromptSubmit) run as real processes on a board of
// 1,000 messages and on one of BB_BENCH_MESSAGES (default 1,000,000; a
// tenth broadcasts), alternating which board goes first; it reports each
// command's median wall and CPU time on both and the ratios big/small
// (1.00 = size does not matter), and prints the table. The boards are
// seeded by internal/testkit/bigboard (about 1.5 min for 1M on an idle
// machine); BB_BENCH_BOARDS=<dir> keeps the seeded templates between runs.
// Both boards show the reader the same newest messages, so every command
// must print the same number of lines on both (checked).
//
//	BB_BENCH_BOARDS=/tmp/bb-boards go test ./internal/cli/clibench -run '^$' -bench BoardSizeProcess -benchtime 40x
func BenchmarkBoardSizeProcess(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("BB_BENCH_MESSAGES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatalf("BB_BENCH_MESSAGES=%q: %v", v, err)
		}
	}
	seedDir := b.TempDir()
	boards := [2]*sizeBoard{newSizeBoard(b, seedDir, 1_000), newSizeBoard(b, seedDir, n)}
	cmds := sizeCommands()
	// One warm-up round: the first bb log moves the read cursor and the
	// first hook event records the delivery; every later run is the steady
	// state measured.
	lines := make([][2]int, len(cmds))
	for k, c := range cmds {
		for j, sb := range boards {
			_, _, out := sb.run(b, c)
			lines[k][j] = strings.Count(out, "\n")
		}
	}
	var wall, cpu [][2][]time.Duration = make([][2][]time.Duration, len(cmds)), make([][2][]time.Duration, len(cmds))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, c := range cmds {
			for j := range 2 {
				j = (j + i) % 2
				w, u, out := boards[j].run(b, c)
				wall[k][j], cpu[k][j] = append(wall[k][j], w), append(cpu[k][j], u)
				lines[k][j] = strings.Count(out, "\n")
			}
		}
	}
	b.StopTimer()
	var tab strings.Builder
	fmt.Fprintf(&tab, "\nBenchmarkBoardSizeProcess, %d runs of each, medians: 1k vs %d messages\n", b.N, n)
	fmt.Fprintf(&tab, "| command | 1k wall / CPU ms | big wall / CPU ms | wall big/small | CPU big/small |\n|---|---|---|---|---|\n")
	for k, c := range cmds {
		if lines[k][0] != lines[k][1] {
			b.Errorf("%s printed %d lines on 1k messages but %d on %d", c.name, lines[k][0], lines[k][1], n)
		}
		ws, wb := median(wall[k][0]), median(wall[k][1])
		cs, cb := median(cpu[k][0]), median(cpu[k][1])
		xw, xc := float64(wb)/float64(ws), float64(cb)/float64(cs)
		b.ReportMetric(xw, "x-wall-"+c.name)
		b.ReportMetric(xc, "x-cpu-"+c.name)
		fmt.Fprintf(&tab, "| %s | %.1f / %.1f | %.1f / %.1f | %.2f | %.2f |\n", c.name, ms(ws), ms(cs), ms(wb), ms(cb), xw, xc)
	}
	fmt.Print(tab.String())
}
