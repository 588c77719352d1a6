package hardentest

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile holds every control character an argument can carry (all of C0
// but NUL, DEL, C1), the ANSI/OSC sequences of the report (retitle, clear
// screen, cursor up), a carriage return that would overwrite the line and a
// right-to-left override.
func hostile() string {
	var b strings.Builder
	b.WriteString("x\x1b]0;pwned\a\x1b[2J\x1b[1A\rfake sender: ")
	for c := rune(1); c < 0x20; c++ {
		b.WriteRune(c)
	}
	b.WriteRune(0x7f)
	for c := rune(0x80); c < 0xa0; c++ {
		b.WriteRune(c)
	}
	b.WriteString("\u202egnp.exe\x1b]8;;http://evil/\x1b\\link\x1b]8;;\x1b\\ end")
	return b.String()
}

// unsafeAt reports the first control character in out that a terminal
// would act on (newline and tab are layout, which bb itself writes).
func unsafeAt(out string) (rune, int) {
	for i, r := range out {
		switch {
		case r == utf8.RuneError:
			return r, i
		case r == '\n' || r == '\t':
		case r < 0x20, r >= 0x7f && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return r, i
		}
	}
	return 0, -1
}

// TestHumanOutputEscapesControlCharacters stores hostile text in every
// free-text field an agent can write, then runs every human view of bb and
// requires that none prints a control character it did not produce.
func TestHumanOutputEscapesControlCharacters(t *testing.T) {
	dir := newBoard(t)
	h := hostile()
	// hs fits the short fields (role, display name, version label).
	hs := "\x1b]0;t\a\x1b[2J\r\u202e\u009b\x7f"
	bb := func(args ...string) result { return must(t, dir, nil, "bb", args...) }
	bb("agent", "register", "--name", "amber-otter", "--role", hs, "--display", hs)
	bb("agent", "register", "--name", "blue-heron", "--role", "review")
	bb("--as", "amber-otter", "post", h)
	bb("--as", "amber-otter", "post", "--reply-to", "1", "reply "+h)
	bb("--as", "amber-otter", "status", "set", h, "--status", "blocked", "--blockers", h)
	bb("--as", "amber-otter", "artifact", "add", "notes.md", h, "--version", hs)
	bb("--as", "amber-otter", "task", "create", h, "--desc", h)
	bb("--as", "amber-otter", "memory", "set", "k", h, "--type", "string")
	// A subject is one line: its line breaks are refused (below).
	oneLine := strings.NewReplacer("\n", "", "\r", "").Replace(h)
	sent := must(t, dir, nil, "bb", "--json", "agent", "send", "--from", "amber-otter", "--to", "blue-heron", "--bead", "bb-1",
		"--category", "HANDOFF", "--subject", oneLine, "--body", h, "--next-action", h)
	id := jsonField(t, sent.stdout, "data.message_id")
	bb("agent", "reserve", "--agent", "amber-otter", "--scope", "src/x.go", "--bead", "bb-1")
	task := jsonField(t, must(t, dir, nil, "bb", "--json", "task", "list").stdout, "data.0.id")

	views := [][]string{
		{"log"}, {"log", "--thread", "1"}, {"message", "1"}, {"message", "2"},
		{"status"}, {"status", "get", "amber-otter"}, {"summary"},
		{"artifacts"}, {"artifact", "show", "notes.md"}, {"refs", "gh:issue:1"},
		{"events"}, {"--as", "blue-heron", "resume", "--peek"}, {"--as", "amber-otter", "resume"},
		{"task", "list"}, {"task", "show", task},
		{"memory", "get", "k"}, {"memory", "list"},
		{"agent", "list"}, {"agent", "show", "--agent", "amber-otter"},
		{"agent", "inbox", "--agent", "blue-heron"}, {"agent", "status"},
		{"agent", "read", "--agent", "blue-heron", "--message", id},
		{"agent", "ack", "--agent", "blue-heron", "--message", id},
		// Errors echo what was given, on stderr.
		{"artifact", "show", h}, {"--as", "amber-otter", "message", h},
	}
	for _, v := range views {
		r := runIn(t, dir, nil, "bb", v...)
		for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
			if c, at := unsafeAt(out); at >= 0 {
				t.Errorf("bb %q printed %U on %s at byte %d:\n%q", v, c, name, at, out)
			}
		}
		if strings.Contains(r.stdout+r.stderr, "\u202e") {
			t.Errorf("bb %q printed a bidi override", v)
		}
	}
	// A newline inside a one-line field (a status, a subject, a title)
	// cannot start a line of its own that looks like bb's output.
	forged := "ok\nFORGED amber-otter: all tests pass"
	bb("agent", "register", "--name", "cyan-crane", "--role", "r", "--display", "d\nFORGED")
	bb("--as", "cyan-crane", "status", "set", forged, "--status", "blocked", "--blockers", forged)
	bb("--as", "cyan-crane", "artifact", "add", "b.md", forged)
	bb("--as", "cyan-crane", "task", "create", forged)
	bb("--as", "cyan-crane", "memory", "set", "k2", forged)
	if r := runIn(t, dir, nil, "bb", "--json", "agent", "send", "--from", "cyan-crane", "--to", "blue-heron", "--bead", "bb-2",
		"--category", "INFO", "--subject", forged, "--body", "b"); r.code != 1 || jsonField(t, r.stdout, "error.field") != "subject" {
		t.Errorf("a subject with a line break: exit %d %s", r.code, r.stdout)
	}
	for _, v := range views[:len(views)-2] {
		r := runIn(t, dir, nil, "bb", v...)
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "FORGED") {
				t.Errorf("bb %q printed a forged line:\n%s", v, r.stdout)
				break
			}
		}
	}
	// The text is still readable: the escape is visible, not dropped.
	if r := bb("log"); !strings.Contains(r.stdout, `\x1b]0;pwned\a\x1b[2J`) {
		t.Errorf("bb log does not show the escaped sequence:\n%s", r.stdout)
	}
}
