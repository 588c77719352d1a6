package hub_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/boot"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/resume"
)

func openService(t *testing.T) app.API {
	t.Helper()
	dir := t.TempDir()
	b, err := boot.Open(context.Background(), boot.Config{SQLitePath: filepath.Join(dir, ".bb", "blackboard.db"), Create: true, ProjectRoot: dir,
		Clock: hub.FixedClock{T: time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b.API
}

func unread(t *testing.T, svc app.API, agent string) int64 {
	t.Helper()
	n, err := svc.CheckIn(context.Background(), agent)
	if err != nil {
		t.Fatal(err)
	}
	return n.Unread
}

// TestLogMarksReadOnlyWhatItShowed: a read limited to fewer messages than
// are unread marks none of them read (it would mark unseen ones); a read
// that reaches back to the reader's cursor marks what it showed; paging
// back with Before works.
func TestLogMarksReadOnlyWhatItShowed(t *testing.T) {
	ctx := context.Background()
	svc := openService(t)
	unread(t, svc, "reader")
	for i := 1; i <= 5; i++ {
		if _, err := svc.Post(ctx, hub.PostInput{From: "poster", Content: fmt.Sprint("m", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := unread(t, svc, "reader"); n != 5 {
		t.Fatalf("want 5 unread, got %d", n)
	}
	ms, err := svc.Log(ctx, hub.LogQuery{Limit: 1, Reader: "reader"})
	if err != nil || len(ms) != 1 {
		t.Fatalf("log: %v %v", ms, err)
	}
	if n := unread(t, svc, "reader"); n != 5 {
		t.Fatalf("a read of 1 of 5 unread marked %d read", 5-n)
	}
	// Page back from the shown message: the rest.
	older, err := svc.Log(ctx, hub.LogQuery{Limit: 10, Before: ms[0].Seq, Reader: "reader"})
	if err != nil || len(older) != 4 || older[0].Seq >= ms[0].Seq {
		t.Fatalf("page back: %v %v", older, err)
	}
	// That page reached the cursor: what it showed (1-4) is read, 5 is not.
	if n := unread(t, svc, "reader"); n != 1 {
		t.Fatalf("want 1 unread after reading the older page, got %d", n)
	}
	// Now one message is unread and a read of one shows it: marked.
	if _, err := svc.Log(ctx, hub.LogQuery{Limit: 1, Reader: "reader"}); err != nil {
		t.Fatal(err)
	}
	if n := unread(t, svc, "reader"); n != 0 {
		t.Fatalf("want 0 unread, got %d", n)
	}
}

// TestInboxMailOnly: board posts are not mail.
func TestInboxMailOnly(t *testing.T) {
	ctx := context.Background()
	svc := openService(t)
	for _, a := range []string{"alice-1", "bob-1"} {
		unread(t, svc, a)
	}
	for i := 0; i < 3; i++ {
		if _, err := svc.Post(ctx, hub.PostInput{From: "alice-1", Content: "board"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.SendMail(ctx, hub.SendInput{From: "alice-1", To: "bob-1", BeadID: "bd-1", Category: hub.CategoryHandoff, Subject: "take it", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	all, err := svc.Inbox(ctx, hub.InboxQuery{Agent: "bob-1"})
	if err != nil || len(all) != 4 {
		t.Fatalf("inbox: %d %v", len(all), err)
	}
	mail, err := svc.Inbox(ctx, hub.InboxQuery{Agent: "bob-1", MailOnly: true})
	if err != nil || len(mail) != 1 || mail[0].Category != hub.CategoryHandoff {
		t.Fatalf("mail only: %+v %v", mail, err)
	}
}

// TestResumeStrictFocus: a focus naming no task is NOT_FOUND when strict
// (as BeginTask), accepted otherwise (vybe's contract).
func TestResumeStrictFocus(t *testing.T) {
	ctx := context.Background()
	svc := openService(t)
	_, err := svc.Resume(ctx, resume.ResumeInput{Agent: "a-1", Focus: "nope", StrictFocus: true})
	if hub.CodeOf(err) != hub.CodeNotFound {
		t.Fatalf("strict: want NOT_FOUND, got %v", err)
	}
	_, berr := svc.BeginTask(ctx, "a-1", "nope")
	if hub.CodeOf(berr) != hub.CodeOf(err) {
		t.Fatalf("task begin says %v, resume says %v", berr, err)
	}
	if _, err := svc.Resume(ctx, resume.ResumeInput{Agent: "a-1", Focus: "nope"}); err != nil {
		t.Fatalf("lenient: %v", err)
	}
}

// TestBoardUnreadSkipsSingleReadBroadcasts: the board count of an agent
// that read one broadcast on its own leaves that one out, while another
// agent that read nothing still counts every broadcast. The count walks an
// index that holds the sender and looks at receipts only for agents that
// have any, so both paths are checked, plus the agent's own posts.
func TestBoardUnreadSkipsSingleReadBroadcasts(t *testing.T) {
	ctx := context.Background()
	svc := openService(t)
	unread(t, svc, "reader")
	unread(t, svc, "other")
	var ids []string
	for i := 1; i <= 4; i++ {
		m, err := svc.Post(ctx, hub.PostInput{From: "poster", Content: fmt.Sprint("m", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.UUID)
	}
	if _, err := svc.Post(ctx, hub.PostInput{From: "reader", Content: "mine"}); err != nil {
		t.Fatal(err)
	}
	if n := unread(t, svc, "reader"); n != 4 {
		t.Fatalf("reader: want 4 unread (its own post is not), got %d", n)
	}
	if _, err := svc.ReadMail(ctx, "reader", ids[1]); err != nil {
		t.Fatal(err)
	}
	if n := unread(t, svc, "reader"); n != 3 {
		t.Fatalf("reader after reading one broadcast: want 3 unread, got %d", n)
	}
	if n := unread(t, svc, "other"); n != 5 {
		t.Fatalf("other: want 5 unread, got %d", n)
	}
}
