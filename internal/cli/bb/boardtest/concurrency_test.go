package boardtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentPosts starts 32 real `bb post` processes at once against one
// board: every one must succeed, every message must be stored once, and no
// "database is locked"/"busy" may ever reach the user.
func TestConcurrentPosts(t *testing.T) {
	const n = 32
	dir := initBoard(t)
	type result struct {
		i              int
		err            error
		stdout, stderr string
	}
	results := make(chan result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Each process is its own agent, so the check-in writes contend too.
			c := bbCmd(dir, []string{fmt.Sprintf("BB_AGENT_ID=agent-%02d", i)}, "post", fmt.Sprintf("message %02d", i), "--tag", "load")
			var out, errb bytes.Buffer
			c.Stdout, c.Stderr = &out, &errb
			<-start
			err := c.Run()
			results <- result{i, err, out.String(), errb.String()}
		}(i)
	}
	close(start)
	wg.Wait()
	close(results)
	for r := range results {
		if r.err != nil {
			t.Errorf("post %d: %v\nstdout: %s\nstderr: %s", r.i, r.err, r.stdout, r.stderr)
		}
		low := strings.ToLower(r.stderr + r.stdout)
		if strings.Contains(low, "locked") || strings.Contains(low, "busy") {
			t.Errorf("post %d leaked a lock error: %s", r.i, r.stderr)
		}
		if !strings.HasPrefix(r.stdout, "Posted message #") {
			t.Errorf("post %d: stdout %q", r.i, r.stdout)
		}
	}
	out, err := bbCmd(dir, nil, "--json", "log", "--limit", "100").Output()
	if err != nil {
		t.Fatalf("bb log: %v", err)
	}
	var env struct {
		OK   bool `json:"ok"`
		Data []struct {
			ID        int64  `json:"id"`
			FromAgent string `json:"from_agent"`
			Content   string `json:"content"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &env); err != nil || !env.OK {
		t.Fatalf("bb log --json: %v\n%s", err, out)
	}
	if len(env.Data) != n {
		t.Fatalf("bb log shows %d messages, want %d", len(env.Data), n)
	}
	ids, contents := map[int64]bool{}, map[string]bool{}
	for _, m := range env.Data {
		ids[m.ID] = true
		contents[m.Content] = true
		if want := "message " + strings.TrimPrefix(m.FromAgent, "agent-"); m.Content != want {
			t.Errorf("message #%d from %s has content %q, want %q", m.ID, m.FromAgent, m.Content, want)
		}
	}
	if len(ids) != n || len(contents) != n {
		t.Errorf("%d distinct ids and %d distinct contents, want %d", len(ids), len(contents), n)
	}
	for i := int64(1); i <= n; i++ {
		if !ids[i] {
			t.Errorf("message #%d missing: seqs must be 1..%d without gaps", i, n)
		}
	}
	// Every agent checked in.
	out, err = bbCmd(dir, nil, "--json", "status").Output()
	if err != nil {
		t.Fatalf("bb status: %v", err)
	}
	var st struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(out, &st); err != nil || len(st.Data) != n {
		t.Errorf("bb status lists %d agents, want %d (%v)", len(st.Data), n, err)
	}
}

// TestConcurrentInit: several `bb init` at once on a fresh directory all
// succeed, and the board they leave is migrated once and usable.
func TestConcurrentInit(t *testing.T) {
	const n = 8
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if out, err := bbCmd(dir, nil, "init").CombinedOutput(); err != nil {
				errs[i] = fmt.Sprintf("init %d: %v\n%s", i, err, out)
			}
		}(i)
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
	if out, err := bbCmd(dir, []string{"BB_AGENT_ID=a"}, "post", "after init").CombinedOutput(); err != nil {
		t.Fatalf("post after concurrent init: %v\n%s", err, out)
	}
}
