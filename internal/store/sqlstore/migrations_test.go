package sqlstore

import (
	"testing"
	"testing/fstest"
)

// LatestMigration (names only, the fast path of every open) agrees with
// LoadMigrations, whatever order the files are listed in, and rejects what
// LoadMigrations rejects.
func TestLatestMigrationMatchesLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"m/002_b.sql":  {Data: []byte("SELECT 2")},
		"m/010_c.sql":  {Data: []byte("SELECT 10")},
		"m/001_a.sql":  {Data: []byte("SELECT 1")},
		"m/009_x.sql":  {Data: []byte("SELECT 9")},
		"bad/1a_x.sql": {Data: []byte("")},
	}
	ms, err := LoadMigrations(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	latest, err := LatestMigration(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	if latest != 10 || ms[len(ms)-1].Version != latest {
		t.Fatalf("LatestMigration = %d, LoadMigrations ends at %d, want 10", latest, ms[len(ms)-1].Version)
	}
	if _, err := LatestMigration(fsys, "bad"); err == nil {
		t.Fatal("LatestMigration accepted a file name without a version")
	}
	if _, err := LoadMigrations(fsys, "bad"); err == nil {
		t.Fatal("LoadMigrations accepted a file name without a version")
	}
}
