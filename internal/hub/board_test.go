package hub_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
)

type movingClock struct{ t time.Time }

func (c *movingClock) Now() time.Time { return c.t }

// hookBoard opens a fresh SQLite board at t0 whose clock the test moves.
func hookBoard(t testing.TB, env map[string]string) (*hub.Service, *movingClock) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "bb.db"), sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := &movingClock{t: t0}
	svc := hub.NewService(st, clk, "/proj")
	svc.Env = func(k string) string { return env[k] }
	return svc, clk
}
