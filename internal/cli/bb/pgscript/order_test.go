package pgscript

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/blackboard-hub/bb/internal/server"
	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
)

// sseSeqs follows base's event stream and records every event's seq.
type sseSeqs struct {
	mu   sync.Mutex
	seqs []int64
	done chan struct{}
}

func followSeqs(t *testing.T, ctx context.Context, base string) *sseSeqs {
	t.Helper()
	f := &sseSeqs{done: make(chan struct{})}
	ch := stream(t, ctx, base)
	go func() {
		defer close(f.done)
		for d := range ch {
			var e struct {
				Seq int64 `json:"seq"`
			}
			if json.Unmarshal([]byte(d), &e) == nil && e.Seq > 0 {
				f.mu.Lock()
				f.seqs = append(f.seqs, e.Seq)
				f.mu.Unlock()
			}
		}
	}()
	return f
}

func (f *sseSeqs) get() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.seqs)
}

// Two servers on one PostgreSQL, writers and followers on both; one server
// is killed (SIGKILL) in the middle. Every follower sees the timeline in
// one order with nothing skipped or repeated: the survivor's followers see
// every event written after they connected, the victim's a gapless prefix
// of it; every post that was answered is stored and delivered (0 lost).
func TestTwoServersOneOrderUnderKill(t *testing.T) {
	pgtest.Require(t)
	dbURL := pgtest.URL(t)
	a, b := twoServers(t, dbURL)
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var fa, fb []*sseSeqs
	for range 2 {
		fa = append(fa, followSeqs(t, ctx, a.URL))
		fb = append(fb, followSeqs(t, ctx, b.URL))
	}
	var start int64
	if err := db.QueryRow(`SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&start); err != nil {
		t.Fatal(err)
	}

	// Writers: four per server, posting until told to stop; the answered
	// posts are kept.
	var mu sync.Mutex
	answered := map[string]bool{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 10 * time.Second}
	for w := range 8 {
		base := []string{a.URL, b.URL}[w%2]
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body, _ := json.Marshal(map[string]any{"content": fmt.Sprintf("w%d-%d", w, i)})
				req, _ := http.NewRequest("POST", base+"/api/v1/messages", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(server.AgentHeader, fmt.Sprintf("writer-%d", w))
				resp, err := client.Do(req)
				if err != nil {
					if base == a.URL {
						return // the killed server
					}
					t.Errorf("post through the surviving server: %v", err)
					return
				}
				var rep postReply
				_ = json.NewDecoder(resp.Body).Decode(&rep)
				resp.Body.Close()
				if resp.StatusCode == 200 && rep.OK {
					mu.Lock()
					answered[rep.Data.UUID] = true
					mu.Unlock()
				}
			}
		})
	}
	time.Sleep(700 * time.Millisecond)
	if err := a.cmd.Process.Kill(); err != nil { // SIGKILL: no clean-up of any kind
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	close(stop)
	wg.Wait()

	// What is stored after the followers connected.
	rows, err := db.Query(`SELECT seq FROM events WHERE seq > $1 ORDER BY seq`, start)
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for rows.Next() {
		var s int64
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		want = append(want, s)
	}
	rows.Close()
	if len(want) < 20 {
		t.Fatalf("only %d events written; the test needs traffic on both servers", len(want))
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if len(fb[0].get()) >= len(want) && len(fb[1].get()) >= len(want) {
			break
		}
	}
	time.Sleep(200 * time.Millisecond) // a duplicate would arrive meanwhile
	for i, f := range fb {
		if got := f.get(); !slices.Equal(got, want) {
			t.Errorf("survivor's follower %d saw %d events, the timeline holds %d after it connected:\n got %v\nwant %v", i, len(got), len(want), got, want)
		}
	}
	for i, f := range fa {
		got := f.get()
		if len(got) == 0 || len(got) > len(want) || !slices.Equal(got, want[:len(got)]) {
			t.Errorf("killed server's follower %d saw %v: not a gapless prefix of the timeline", i, got)
		}
	}
	// 0 lost: every answered post is stored.
	mu.Lock()
	defer mu.Unlock()
	var stored int
	for id := range answered {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM messages WHERE id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("answered post %s is stored %d times", id, n)
		}
		stored += n
	}
	var nums, maxNum int64
	if err := db.QueryRow(`SELECT COUNT(*), COALESCE(MAX(seq), 0) FROM messages`).Scan(&nums, &maxNum); err != nil {
		t.Fatal(err)
	}
	if nums != maxNum {
		t.Errorf("%d messages with numbers up to %d: not gapless", nums, maxNum)
	}
	t.Logf("%d events after the followers connected, %d answered posts stored, %d messages", len(want), stored, nums)
}
