package boardtest

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bb notify --desktop shows each item through notify-send: here a
// notify-send of the test's own on PATH that records its arguments, so
// the test sees exactly what the desktop would show, once per item. A
// machine without notify-send gets a one-line error naming the package.
func TestNotifyDesktop(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("notify-send is the Linux mechanism")
	}
	dir := initBoard(t)
	for _, args := range [][]string{
		{"agent", "register", "--name", "dana", "--role", "human"},
		{"agent", "register", "--name", "carol", "--role", "worker"},
		{"agent", "send", "--from", "carol", "--to", "dana", "--bead", "bb-2", "--category", "BLOCKED", "--subject", "need the schema", "--body", "which one?"},
	} {
		if out, err := bbCmd(dir, nil, args...).CombinedOutput(); err != nil {
			t.Fatalf("bb %v: %v\n%s", args, err, out)
		}
	}
	bin := t.TempDir()
	record := filepath.Join(t.TempDir(), "shown")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s|' \"$a\"; done >> " + record + "\necho >> " + record + "\n"
	if err := os.WriteFile(filepath.Join(bin, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
	n := bbCmd(dir, []string{path}, "notify", "--desktop")
	var out bytes.Buffer
	n.Stdout, n.Stderr = &out, &out
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = n.Process.Signal(syscall.SIGINT); _ = n.Wait() }()
	want := "--app-name=bb|--|Blackboard: blocked|carol is blocked on dana on bb-2: need the schema. Asks: Answer carol on thread bead:bb-2 and acknowledge (urgency medium)|"
	deadline := time.Now().Add(45 * time.Second) // a hang guard, not a measure
	for {
		b, _ := os.ReadFile(record)
		if strings.Contains(string(b), want) {
			if c := strings.Count(string(b), want); c != 1 {
				t.Fatalf("shown %d times, want once:\n%s", c, b)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("notify-send was not called with %q; it got %q; bb notify said:\n%s", want, b, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Without notify-send: a clear error, exit 1.
	empty := t.TempDir()
	res, err := bbCmd(dir, []string{"PATH=" + empty}, "notify", "--desktop").CombinedOutput()
	if err == nil || !strings.Contains(string(res), "notify-send") || !strings.Contains(string(res), "libnotify-bin") {
		t.Fatalf("without notify-send: %v\n%s", err, res)
	}
}
