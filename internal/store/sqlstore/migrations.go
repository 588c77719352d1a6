package sqlstore

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Migration is one embedded schema step ("NNN_name.sql").
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// LoadMigrations reads the NNN_name.sql files of dir in fsys, in version
// order. Each backend embeds its own dialect's files and calls this.
func LoadMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		v, err := migrationVersion(name)
		if err != nil {
			return nil, err
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// LatestMigration returns the highest version among the NNN_name.sql files
// of dir in fsys, reading their names only: opening a board that is up to
// date needs nothing more.
func LatestMigration(fsys fs.FS, dir string) (int, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return 0, err
	}
	latest := 0
	for _, e := range entries {
		v, err := migrationVersion(e.Name())
		if err != nil {
			return 0, err
		}
		latest = max(latest, v)
	}
	if latest == 0 {
		return 0, fmt.Errorf("no migrations in %s", dir)
	}
	return latest, nil
}

func migrationVersion(name string) (int, error) {
	num, _, ok := strings.Cut(name, "_")
	v, err := strconv.Atoi(num)
	if !ok || err != nil {
		return 0, fmt.Errorf("bad migration name %q", name)
	}
	return v, nil
}
