package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

// A stored value the store cannot read (a timestamp that does not parse,
// a JSON list that does not decode) is an internal error that names the
// table, the row and the column — never a zero time or a silently empty
// list.
func TestDamagedRowsAreInternalErrors(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "b.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := hub.NewService(st, nil, t.TempDir())
	m, err := svc.Post(ctx, hub.PostInput{From: "pat", Content: "hello", Tags: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, update, table, row, col string }{
		{"message time", `UPDATE messages SET created = 'yesterday'`, "messages", m.UUID, "created"},
		{"message tags", `UPDATE messages SET created = '2026-11-21T22:00:00Z', tags = '["x"'`, "messages", m.UUID, "tags"},
		{"event time", `UPDATE messages SET tags = '["x"]'; UPDATE events SET created_at = '21/11/2026'`, "events", "1", "created_at"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := st.SQL().ExecContext(ctx, c.update); err != nil {
				t.Fatal(err)
			}
			var readErr error
			if c.table == "events" {
				_, readErr = svc.Events(ctx, hub.EventQuery{})
			} else {
				_, readErr = svc.Log(ctx, hub.LogQuery{})
			}
			var he *hub.Error
			if !errors.As(readErr, &he) || he.Code != hub.CodeInternal {
				t.Fatalf("read: %v, want an internal error", readErr)
			}
			for _, want := range []string{c.table, c.row, c.col} {
				if !strings.Contains(he.Message, want) {
					t.Errorf("message %q does not name %q", he.Message, want)
				}
			}
		})
	}
}
