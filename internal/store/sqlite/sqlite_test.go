package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/store/storetest"
)

func TestStoreSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) hub.Store {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "bb.db"), sqlite.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}
