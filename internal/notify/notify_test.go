package notify

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func board(t *testing.T) (*app.Service, *clock) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := &clock{t: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)}
	k := hub.NewService(st, clk, "/proj")
	for _, r := range []hub.RegisterInput{{ID: "dana", Role: hub.RolePerson}, {ID: "carol", Role: "worker"}} {
		if _, _, err := k.RegisterAgent(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	return app.New(k), clk
}

// queued drains what Check queued.
func queued(n *Notifier) []Payload {
	var out []Payload
	for {
		select {
		case d := <-n.queue:
			out = append(out, d.Payload)
		default:
			return out
		}
	}
}

// An unaccepted BLOCKED is one item at once and one escalation after the
// board's attention.escalate_after minutes, each queued once however often
// the board is checked; accepting it ends both.
func TestEscalationOnce(t *testing.T) {
	ctx := context.Background()
	svc, clk := board(t)
	if _, err := svc.SetConfig(ctx, "dana", hub.ConfigEscalateAfter, "10"); err != nil {
		t.Fatal(err)
	}
	m, err := svc.SendMail(ctx, hub.SendInput{From: "carol", To: "dana", BeadID: "bb-2", Category: hub.CategoryBlocked, Subject: "need the schema", Body: "which one?"})
	if err != nil {
		t.Fatal(err)
	}
	n := New(svc, Options{Webhooks: []string{"http://127.0.0.1:1/never-called"}, Dashboard: "http://127.0.0.1:7777/"})
	next, err := n.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := queued(n)
	if len(got) != 1 || got[0].Type != "blocked" || got[0].Escalated || got[0].ID != "blocked:"+m.UUID || got[0].Link != "http://127.0.0.1:7777/" || got[0].Board != "/proj" {
		t.Fatalf("first check: %+v", got)
	}
	if want := m.CreatedAt.Add(10 * time.Minute); !next.Equal(want) {
		t.Errorf("next escalation %v, want %v", next, want)
	}
	clk.add(9 * time.Minute)
	n.Check(ctx)
	if got := queued(n); len(got) != 0 {
		t.Fatalf("after 9 minutes: %+v", got)
	}
	clk.add(time.Minute)
	for range 3 {
		n.Check(ctx)
	}
	got = queued(n)
	if len(got) != 1 || !got[0].Escalated || got[0].ID != "blocked:"+m.UUID+":escalated" || got[0].WaitingMinutes != 10 {
		t.Fatalf("after 10 minutes: %+v", got)
	}
	if want := "ESCALATED: carol is blocked on dana on bb-2: need the schema. Asks: Answer carol on thread bead:bb-2 and acknowledge (urgency medium) (waiting 10 minutes, nobody accepted it within 10)"; got[0].Text != want {
		t.Errorf("text %q, want %q", got[0].Text, want)
	}
	// The body says what is asked and what a person may do about it.
	if p := got[0]; p.Asked != "Answer carol on thread bead:bb-2 and acknowledge" || p.Urgency != "medium" || p.Files == nil ||
		strings.Join(p.Choices, ",") != "nudge,step_in" {
		t.Errorf("payload: %+v", p)
	}
	if _, err := svc.AckMail(ctx, "dana", m.UUID); err != nil {
		t.Fatal(err)
	}
	clk.add(time.Hour)
	n.Check(ctx)
	if got := queued(n); len(got) != 0 || len(n.sent) != 0 {
		t.Fatalf("after the ack: queued %+v, remembered %v", got, n.sent)
	}
}

// Run delivers each item once to every webhook, retrying after a failure,
// and picks up a new item when the timeline moves.
func TestRunDelivers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc, _ := board(t)
	var mu sync.Mutex
	var got []Payload
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			http.Error(w, "try again", http.StatusServiceUnavailable)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var p Payload
		if err := json.Unmarshal(body, &p); err != nil || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("bad delivery %q: %v", body, err)
		}
		got = append(got, p)
	}))
	defer srv.Close()
	if _, err := svc.Post(ctx, hub.PostInput{From: "carol", Content: "prod is down", Priority: "critical"}); err != nil {
		t.Fatal(err)
	}
	n := New(svc, Options{Webhooks: []string{srv.URL}, Backoff: 10 * time.Millisecond})
	done := make(chan error)
	go func() { done <- n.Run(ctx) }()
	wait := func(count int) []Payload {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			if len(got) >= count {
				out := append([]Payload(nil), got...)
				mu.Unlock()
				return out
			}
			mu.Unlock()
		}
		t.Fatalf("never got %d deliveries", count)
		return nil
	}
	first := wait(1)
	if first[0].Type != "critical" || first[0].Subject != "prod is down" {
		t.Errorf("first delivery %+v", first[0])
	}
	if _, err := svc.SendMail(ctx, hub.SendInput{From: "carol", To: "dana", BeadID: "bb-1", Category: hub.CategoryHandoff, Subject: "yours", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	all := wait(2)
	if all[1].Type != "handoff" || !strings.Contains(all[1].Text, "carol hands over to dana on bb-1: yours") {
		t.Errorf("second delivery %+v", all[1])
	}
	time.Sleep(200 * time.Millisecond) // nothing more arrives
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || calls != 3 {
		t.Errorf("%d deliveries in %d calls, want 2 in 3 (one retry)", len(got), calls)
	}
}

// lateCommit commits a HANDOFF right after the notifier's first read of
// what needs attention: the window between the first check and the
// start of the follow, where an item used to be lost.
type lateCommit struct {
	*app.Service
	once      sync.Once
	t         *testing.T
	following atomic.Bool
}

// Follow notes when the follow is in place.
func (l *lateCommit) Follow(ctx context.Context, in hub.FollowInput, emit func(hub.Event) error) error {
	started := in.Started
	in.Started = func(after int64) error {
		l.following.Store(true)
		if started != nil {
			return started(after)
		}
		return nil
	}
	return l.Service.Follow(ctx, in, emit)
}

func (l *lateCommit) Attention(ctx context.Context, f overview.AttentionFilter) (overview.Attention, error) {
	a, err := l.Service.Attention(ctx, f)
	l.once.Do(func() {
		if !l.following.Load() {
			l.t.Error("the first check read the board before the follow was in place")
		}
		if _, err := l.SendMail(ctx, hub.SendInput{From: "carol", To: "dana", BeadID: "bb-7", Category: hub.CategoryHandoff, Subject: "late", Body: "b"}); err != nil {
			l.t.Error(err)
		}
	})
	return a, err
}

// An item committed while the notifier starts is delivered: the follow is
// in place before the first check reads the board.
func TestRunMissesNothingAtStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc, _ := board(t)
	got := make(chan Payload, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p Payload
		_ = json.NewDecoder(r.Body).Decode(&p)
		got <- p
	}))
	defer srv.Close()
	n := New(&lateCommit{Service: svc, t: t}, Options{Webhooks: []string{srv.URL}})
	done := make(chan error)
	go func() { done <- n.Run(ctx) }()
	select {
	case p := <-got:
		if p.Subject != "late" {
			t.Errorf("delivery %+v", p)
		}
	case <-time.After(20 * time.Second): // a hang guard, not a measure
		t.Fatal("the HANDOFF committed during the first check was never delivered")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// What a notifier delivered is recorded per channel on the board: a
// restarted notifier queues only what that channel never had, a new
// webhook (or the desktop) gets everything still waiting, and an item is
// recorded only once its delivery succeeded.
func TestRestartSendsOnlyWhatWasNotDelivered(t *testing.T) {
	ctx := context.Background()
	svc, _ := board(t)
	m1, err := svc.SendMail(ctx, hub.SendInput{From: "carol", To: "dana", BeadID: "bb-2", Category: hub.CategoryBlocked, Subject: "first", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p Payload
		_ = json.NewDecoder(r.Body).Decode(&p)
		got <- p.ID
	}))
	defer srv.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer down.Close()

	// The first run delivers m1 to srv (recorded) and fails on down (not).
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error)
	n := New(svc, Options{Webhooks: []string{srv.URL, down.URL}, Attempts: 1})
	go func() { done <- n.Run(runCtx) }()
	id1 := "blocked:" + m1.UUID
	select {
	case id := <-got:
		if id != id1 {
			t.Fatalf("delivered %s, want %s", id, id1)
		}
	case <-time.After(20 * time.Second): // a hang guard, not a measure
		t.Fatal("nothing delivered")
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		rec, err := svc.Notified(ctx, WebhookChannel(srv.URL), []string{id1})
		if err != nil {
			t.Fatal(err)
		}
		if len(rec) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the delivery was never recorded")
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if rec, _ := svc.Notified(ctx, WebhookChannel(down.URL), []string{id1}); len(rec) != 0 {
		t.Fatalf("a failed delivery was recorded: %v", rec)
	}

	// Restarted with a new item: srv is owed only m2, down both, the
	// desktop (new) both.
	m2, err := svc.SendMail(ctx, hub.SendInput{From: "carol", To: "dana", BeadID: "bb-3", Category: hub.CategoryHandoff, Subject: "second", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	id2 := "handoff:" + m2.UUID
	desk := func(context.Context, string, string) error { return nil }
	n = New(svc, Options{Webhooks: []string{srv.URL, down.URL}, Desktop: desk})
	if _, err := n.Check(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		id1: WebhookChannel(down.URL) + " " + DesktopChannel,
		id2: WebhookChannel(srv.URL) + " " + WebhookChannel(down.URL) + " " + DesktopChannel,
	}
	var ds []delivery
	for len(n.queue) > 0 {
		ds = append(ds, <-n.queue)
	}
	if len(ds) != 2 {
		t.Fatalf("queued %d deliveries, want 2: %+v", len(ds), ds)
	}
	for _, d := range ds {
		if w := want[d.ID]; strings.Join(d.channels, " ") != w {
			t.Errorf("%s for %v, want %s", d.ID, d.channels, w)
		}
	}
	if WebhookChannel(srv.URL) == WebhookChannel(down.URL) || strings.Contains(WebhookChannel(srv.URL), "127.0.0.1") {
		t.Errorf("channels %s %s: one per URL, without the URL", WebhookChannel(srv.URL), WebhookChannel(down.URL))
	}
}

// A stop while a POST is in flight lets it finish and records it: the
// receiver has the item, and a restart must not send it again.
func TestStopFinishesTheDeliveryInFlight(t *testing.T) {
	ctx := context.Background()
	svc, _ := board(t)
	m, err := svc.SendMail(ctx, hub.SendInput{From: "carol", To: "dana", BeadID: "bb-2", Category: hub.CategoryBlocked, Subject: "s", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	arrived, answer := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-answer
	}))
	defer srv.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- New(svc, Options{Webhooks: []string{srv.URL}, Attempts: 1}).Run(runCtx) }()
	select {
	case <-arrived:
	case <-time.After(20 * time.Second): // a hang guard, not a measure
		t.Fatal("nothing delivered")
	}
	stop()
	time.Sleep(50 * time.Millisecond) // the stop reaches the sender before the answer
	close(answer)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	id := "blocked:" + m.UUID
	if rec, err := svc.Notified(ctx, WebhookChannel(srv.URL), []string{id}); err != nil || len(rec) != 1 {
		t.Fatalf("the delivery answered after the stop was not recorded: %v %v", rec, err)
	}
}

// A HANDOFF between two agents whose sender's reservation for the bead is
// past the takeover threshold offers reassign, and the payload names the
// reservation, its holder, who would get it and why (never null before).
func TestPayloadNamesReassign(t *testing.T) {
	ctx := context.Background()
	svc, clk := board(t)
	if _, _, err := svc.RegisterAgent(ctx, hub.RegisterInput{ID: "erin", Role: "worker"}); err != nil {
		t.Fatal(err)
	}
	ttl := 30
	if _, err := svc.Reserve(ctx, hub.ReserveInput{Agent: "carol", Scope: "src/a.go", BeadID: "bb-3", TTLMinutes: &ttl}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SendMail(ctx, hub.SendInput{From: "carol", To: "erin", BeadID: "bb-3", Category: hub.CategoryHandoff, Subject: "take bb-3", Body: "over to you"}); err != nil {
		t.Fatal(err)
	}
	n := New(svc, Options{Webhooks: []string{"http://127.0.0.1:1/never-called"}})
	n.Check(ctx)
	got := queued(n)
	if len(got) != 1 || strings.Join(got[0].Choices, ",") != "nudge,step_in" || got[0].Reassign == nil || len(got[0].Reassign) != 0 {
		t.Fatalf("while carol holds src/a.go: %+v", got)
	}
	clk.add(time.Hour) // the reservation expired; the item escalated
	n.Check(ctx)
	got = queued(n)
	if len(got) != 1 || !got[0].Escalated || !slices.Contains(got[0].Choices, "reassign") {
		t.Fatalf("an hour later: %+v", got)
	}
	r := got[0].Reassign
	if len(r) != 1 || r[0].Holder != "carol" || r[0].Scope != "src/a.go" || r[0].To != "erin" || r[0].Why == "" {
		t.Errorf("reassign %+v", r)
	}
}
