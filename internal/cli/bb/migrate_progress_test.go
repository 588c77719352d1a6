package bb

import (
	"bytes"
	"strings"
	"testing"
)

func TestMigrateProgress(t *testing.T) {
	var b bytes.Buffer
	p := &migrateProgress{w: &b, tty: true}
	p.update("messages", 0, 1000)
	p.update("messages", 500, 1000)
	p.update("messages", 1000, 1000)
	p.update("refs", 0, 0)
	out := b.String()
	for _, want := range []string{
		"\r\033[Kmessages         [..............................] 0/1000 rows",
		"\r\033[Kmessages         [###############...............] 500/1000 rows",
		"\r\033[Kmessages         [##############################] 1000/1000 rows\n",
		"\r\033[Krefs             [##############################] 0/0 rows\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal progress lacks %q:\n%q", want, out)
		}
	}

	b.Reset()
	p = &migrateProgress{w: &b}
	p.update("messages", 0, 1000)
	p.update("messages", 500, 1000)
	p.update("messages", 1000, 1000)
	p.update("refs", 0, 0)
	if got, want := b.String(), "copied messages: 1000 rows\ncopied refs: 0 rows\n"; got != want {
		t.Errorf("plain progress = %q, want %q", got, want)
	}

	b.Reset()
	p = &migrateProgress{w: &b, tty: true, quiet: true}
	p.update("messages", 1000, 1000)
	if b.Len() != 0 {
		t.Errorf("--json/-q progress printed %q", b.String())
	}
}
