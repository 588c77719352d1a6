package overview_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

// Unaccepted HANDOFF and BLOCKED messages, blocked agents and critical
// posts need a person, newest first, each once; accepting a message clears
// it, and a critical post leaves after the attention window.
func TestAttention(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := &clock{t: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)}
	k := hub.NewService(st, clk, "/proj")
	svc := overview.New(k)
	for _, id := range []string{"dana", "bob-1", "carol"} {
		if _, _, err := k.RegisterAgent(ctx, hub.RegisterInput{ID: id, Role: "worker"}); err != nil {
			t.Fatal(err)
		}
	}
	handoff, err := k.SendMail(ctx, hub.SendInput{From: "bob-1", To: "dana", BeadID: "bb-1", Category: hub.CategoryHandoff, Subject: "parser is yours", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	clk.t = clk.t.Add(time.Minute)
	if _, err := k.SendMail(ctx, hub.SendInput{From: "carol", To: "dana", BeadID: "bb-2", Category: hub.CategoryBlocked, Subject: "need the schema", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := k.SendMail(ctx, hub.SendInput{From: "carol", To: "bob-1", BeadID: "bb-2", Category: hub.CategoryInfo, Subject: "fyi", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	clk.t = clk.t.Add(time.Minute)
	blocked, blockers := "blocked", "waiting for CI"
	if _, err := k.SetStatus(ctx, "bob-1", hub.StatusUpdate{Status: &blocked, Blockers: &blockers}); err != nil {
		t.Fatal(err)
	}
	clk.t = clk.t.Add(time.Minute)
	if _, err := k.Post(ctx, hub.PostInput{From: "carol", Content: "prod is down", Priority: "critical"}); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Post(ctx, hub.PostInput{From: "carol", Content: "lunch?", Priority: "high"}); err != nil {
		t.Fatal(err)
	}
	clk.t = clk.t.Add(10 * time.Minute)

	kinds := func() []string {
		t.Helper()
		a, err := svc.Attention(ctx, overview.AttentionFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range a.Items {
			out = append(out, it.Kind+":"+it.Agent+">"+it.To+":"+it.Subject)
		}
		return out
	}
	want := []string{"critical:carol>:prod is down", "stuck:bob-1>:waiting for CI", "blocked:carol>dana:need the schema", "handoff:bob-1>dana:parser is yours"}
	if got := kinds(); !equal(got, want) {
		t.Fatalf("attention = %q, want %q", got, want)
	}
	a, _ := svc.Attention(ctx, overview.AttentionFilter{})
	if last := a.Items[len(a.Items)-1]; last.WaitingMinutes != 13 || last.MessageID != handoff.UUID || last.BeadID != "bb-1" {
		t.Errorf("handoff item %+v: want 13 minutes waiting, its message id and bead", last)
	}

	// Both messages waited 13 and 12 minutes: not yet escalated (15 by
	// default); the next escalation is the handoff's, at 15 minutes.
	if a.Items[2].Escalated || a.Items[3].Escalated || !a.NextEscalation.Equal(a.Items[3].At.Add(15*time.Minute)) {
		t.Errorf("before 15 minutes: escalated %t %t, next %v", a.Items[2].Escalated, a.Items[3].Escalated, a.NextEscalation)
	}
	// With attention.escalate_after 12 both are escalated.
	if _, err := k.SetConfig(ctx, "dana", hub.ConfigEscalateAfter, "12"); err != nil {
		t.Fatal(err)
	}
	a, _ = svc.Attention(ctx, overview.AttentionFilter{})
	if !a.Items[2].Escalated || !a.Items[3].Escalated || !a.NextEscalation.IsZero() || a.EscalateAfter != 12 {
		t.Errorf("after 12 minutes: escalated %t %t, next %v, after %d", a.Items[2].Escalated, a.Items[3].Escalated, a.NextEscalation, a.EscalateAfter)
	}
	if a.Items[0].Escalated || a.Items[1].Escalated {
		t.Error("only a HANDOFF or BLOCKED is escalated")
	}
	if id := a.Items[3].ID(); id != "handoff:"+handoff.UUID {
		t.Errorf("ID = %q", id)
	}

	// dana accepts the handoff: it no longer needs anyone.
	if _, err := k.AckMail(ctx, "dana", handoff.UUID); err != nil {
		t.Fatal(err)
	}
	if got := kinds(); !equal(got, want[:3]) {
		t.Errorf("after the ack: %q, want %q", got, want[:3])
	}
	// A day later the critical post has left the window.
	clk.t = clk.t.Add(overview.AttentionWindow)
	if got := kinds(); !equal(got, want[1:3]) {
		t.Errorf("a day later: %q, want %q", got, want[1:3])
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
