package pgscript

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/blackboard-hub/bb/internal/store/postgres"
	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
)

// bb runs the bb binary in dir against the database url.
func bb(t *testing.T, dir, url string, args ...string) (stdout string, code int) {
	t.Helper()
	c := exec.Command(bin("bb"), args...)
	c.Dir = dir
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "BB_DATABASE_URL=" + url}
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("bb %v: %v", args, err)
	}
	return out.String(), 0
}

type envelope struct {
	OK    bool `json:"ok"`
	Error *struct {
		Code string `json:"code"`
	} `json:"error"`
}

// 32 agents, each in its own process (its own connection pool, as if on
// its own server), race to reserve scopes that all overlap one another
// (src/*, src/lib/*, src/lib/parser.go): exactly one wins, the other 31
// get RESERVATION_CONFLICT, and one reservation is active.
func TestConcurrentReservationsAcrossProcesses(t *testing.T) {
	url := pgtest.URL(t)
	dir := t.TempDir()
	if out, code := bb(t, dir, url, "init"); code != 0 {
		t.Fatalf("init: %s", out)
	}
	if err := os.MkdirAll(filepath.Join(dir, "src", "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 32
	for i := 0; i < n; i++ {
		if out, code := bb(t, dir, url, "agent", "register", "--name", fmt.Sprintf("agent-%02d", i), "--role", "worker"); code != 0 {
			t.Fatalf("register: %s", out)
		}
	}
	scopes := []string{"src/*", "src/lib/*", "src/lib/parser.go"}
	var wg sync.WaitGroup
	results := make([]envelope, n)
	codes := make([]int, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out, code := bb(t, dir, url, "--json", "agent", "reserve", "--agent", fmt.Sprintf("agent-%02d", i),
				"--scope", scopes[i%len(scopes)], "--bead", "bb-1")
			codes[i] = code
			if err := json.Unmarshal([]byte(out), &results[i]); err != nil {
				t.Errorf("agent-%02d: not JSON (exit %d): %q", i, code, out)
			}
		}()
	}
	close(start)
	wg.Wait()
	wins, conflicts := 0, 0
	for i, r := range results {
		switch {
		case r.OK && codes[i] == 0:
			wins++
		case r.Error != nil && r.Error.Code == "RESERVATION_CONFLICT" && codes[i] == 1:
			conflicts++
		default:
			t.Errorf("agent-%02d: exit %d, reply %+v", i, codes[i], r)
		}
	}
	if wins != 1 || conflicts != n-1 {
		t.Errorf("%d winners and %d conflicts; want exactly 1 and %d", wins, conflicts, n-1)
	}
	st, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var active int
	if err := st.SQL().QueryRow(`SELECT COUNT(*) FROM reservations WHERE state = 'active'`).Scan(&active); err != nil {
		t.Fatal(err)
	}
	if active != 1 {
		t.Errorf("%d active reservations, want 1", active)
	}
}
