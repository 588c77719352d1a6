package procid

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestAliveZombie: a child that has ended but is not reaped yet (a zombie,
// as a killed client becomes when nothing reaps it) is not alive.
func TestAliveZombie(t *testing.T) {
	c := exec.Command("sleep", "60")
	if err := c.Start(); err != nil {
		t.Skipf("no sleep: %v", err)
	}
	pid := int64(c.Process.Pid)
	if !Alive(pid) {
		t.Fatal("a running child is not alive")
	}
	if err := c.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Not waited on: the child stays a zombie until c.Wait below.
	deadline := time.Now().Add(10 * time.Second)
	for Alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if Alive(pid) {
		t.Error("a killed, unreaped child (a zombie) is still alive")
	}
	_ = c.Wait()
}

func TestParseStat(t *testing.T) {
	for _, c := range []struct {
		in     string
		parent int
		state  string
		ok     bool
	}{
		{"123 (claude) S 45 123 123 0", 45, "S", true},
		{"123 (a) b) (c) Z 1 0", 1, "Z", true},
		{"123 (x", 0, "", false},
		{"123 (x) R", 0, "", false},
		{"123 (x) R -4", 0, "", false},
	} {
		p, s, ok := parseStat(c.in)
		if p != c.parent || s != c.state || ok != c.ok {
			t.Errorf("parseStat(%q) = %d %q %v, want %d %q %v", c.in, p, s, ok, c.parent, c.state, c.ok)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add("123 (claude) S 45 123 123 0")
	f.Add("1 ()) Z 0")
	f.Fuzz(func(t *testing.T, s string) {
		p, state, ok := parseStat(s)
		if ok && (p < 0 || state == "") {
			t.Fatalf("parseStat(%q) = %d %q true", s, p, state)
		}
	})
}
