package bb

import (
	"strings"
	"testing"
)

func TestParsePorcelainZ(t *testing.T) {
	out := " M src/a.go\x00?? new dir/file.txt\x00R  src/new.go\x00src/old.go\x00A  ../x\x00"
	got := strings.Join(parsePorcelainZ("/repo", []byte(out)), ",")
	if got != "/repo/src/a.go,/repo/new dir/file.txt,/repo/src/new.go,/x" {
		t.Fatalf("got %s", got)
	}
}

// FuzzParsePorcelainZ: any git output parses without panicking into
// canonical absolute paths, at most one per record.
func FuzzParsePorcelainZ(f *testing.F) {
	f.Add([]byte(" M a\x00R  b\x00c\x00?? d/e\x00"))
	f.Add([]byte("R  only\x00"))
	f.Add([]byte("\x00\x00XY"))
	f.Fuzz(func(t *testing.T, out []byte) {
		files := parsePorcelainZ("/repo", out)
		if len(files) > strings.Count(string(out), "\x00")+1 {
			t.Fatalf("%d files from %d records", len(files), strings.Count(string(out), "\x00")+1)
		}
		for _, f := range files {
			if !strings.HasPrefix(f, "/") || strings.Contains(f, "//") {
				t.Fatalf("not canonical: %q", f)
			}
		}
	})
}
