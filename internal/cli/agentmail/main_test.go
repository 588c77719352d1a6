package agentmail_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/blackboard-hub/bb/internal/testkit"
)

// The binaries under test, built once by TestMain.
var (
	amBin string
	bbBin string
)

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Options{Commands: []string{"agent-mail", "bb"}, Built: func(dir string) {
		amBin, bbBin = filepath.Join(dir, "agent-mail"), filepath.Join(dir, "bb")
	}})
}

// box is one isolated mailbox: its own HOME, database and time zone.
type box struct {
	t    *testing.T
	dir  string
	db   string
	home string
	env  map[string]string
}

func newBox(t *testing.T) *box {
	t.Helper()
	dir := t.TempDir()
	b := &box{t: t, dir: dir, db: filepath.Join(dir, "mail.db"), home: filepath.Join(dir, "home")}
	b.env = map[string]string{"AGENT_MAIL_DB": b.db, "HOME": b.home, "TZ": "UTC"}
	return b
}

type result struct {
	stdout, stderr string
	code           int
}

func (b *box) environ() []string {
	env := []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range b.env {
		env = append(env, k+"="+v)
	}
	return env
}

func (b *box) run(args ...string) result {
	b.t.Helper()
	cmd := exec.Command(amBin, args...)
	cmd.Env = b.environ()
	cmd.Dir = b.dir
	out, errb, code := testkit.Run(b.t, cmd)
	return result{out, errb, code}
}

// ok runs a command that must succeed: exit 0, empty stderr, JSON stdout
// ending in one newline.
func (b *box) ok(args ...string) result {
	b.t.Helper()
	r := b.run(args...)
	if r.code != 0 || r.stderr != "" {
		b.t.Fatalf("%v: exit %d, stderr %q, stdout %q", args, r.code, r.stderr, r.stdout)
	}
	if !json.Valid([]byte(r.stdout)) || !strings.HasSuffix(r.stdout, "\n") || strings.HasSuffix(r.stdout, "\n\n") {
		b.t.Fatalf("%v: stdout is not one JSON document and a newline: %q", args, r.stdout)
	}
	return r
}

// fail runs a command that must fail with an application error: exit 1,
// nothing on stdout, {"error": "..."} and a newline on stderr. It returns
// the error message.
func (b *box) fail(args ...string) string {
	b.t.Helper()
	r := b.run(args...)
	if r.code != 1 || r.stdout != "" {
		b.t.Fatalf("%v: want exit 1 and empty stdout, got exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
	}
	var e map[string]any
	if err := json.Unmarshal([]byte(r.stderr), &e); err != nil || len(e) != 1 || !strings.HasSuffix(r.stderr, "\n") {
		b.t.Fatalf("%v: stderr is not {\"error\": ...}: %q", args, r.stderr)
	}
	msg, ok := e["error"].(string)
	if !ok || msg == "" {
		b.t.Fatalf("%v: no error message in %q", args, r.stderr)
	}
	if !strings.HasPrefix(r.stderr, `{"error": "`) {
		b.t.Fatalf("%v: error not in Python's json.dumps form: %q", args, r.stderr)
	}
	return msg
}

// usage runs a command that must be an argument error: exit 2, a usage line
// on stderr, nothing on stdout.
func (b *box) usage(args ...string) string {
	b.t.Helper()
	r := b.run(args...)
	if r.code != 2 || r.stdout != "" || !strings.HasPrefix(r.stderr, "usage: agent-mail") || !strings.Contains(r.stderr, ": error: ") {
		b.t.Fatalf("%v: want argparse usage error (exit 2), got exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
	}
	return r.stderr
}

func (b *box) obj(args ...string) map[string]any {
	b.t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(b.ok(args...).stdout), &m); err != nil {
		b.t.Fatal(err)
	}
	return m
}

func (b *box) list(args ...string) []map[string]any {
	b.t.Helper()
	var l []map[string]any
	if err := json.Unmarshal([]byte(b.ok(args...).stdout), &l); err != nil {
		b.t.Fatal(err)
	}
	return l
}

func (b *box) send(from, to, subject string, extra ...string) map[string]any {
	b.t.Helper()
	return b.obj(append([]string{"send", "--from", from, "--to", to, "--subject", subject}, extra...)...)
}

func (b *box) sql() *sql.DB {
	b.t.Helper()
	db, err := sql.Open("sqlite", b.db)
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(func() { db.Close() })
	return db
}

func (b *box) exec(q string, args ...any) {
	b.t.Helper()
	if _, err := b.sql().Exec(q, args...); err != nil {
		b.t.Fatalf("%s: %v", q, err)
	}
}

func (b *box) count(q string, args ...any) int {
	b.t.Helper()
	if _, err := os.Stat(b.db); err != nil {
		return 0
	}
	var n int
	if err := b.sql().QueryRow(q, args...).Scan(&n); err != nil {
		b.t.Fatalf("%s: %v", q, err)
	}
	return n
}

func (b *box) nullable(q string, args ...any) *string {
	b.t.Helper()
	var s sql.NullString
	if err := b.sql().QueryRow(q, args...).Scan(&s); err != nil {
		b.t.Fatalf("%s: %v", q, err)
	}
	if !s.Valid {
		return nil
	}
	return &s.String
}

func ids(l []map[string]any) []string {
	out := []string{}
	for _, m := range l {
		out = append(out, m["id"].(string))
	}
	return out
}

func keys(t *testing.T, raw string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %q", raw)
	}
	var out []string
	for dec.More() {
		k, _ := dec.Token()
		out = append(out, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func eqList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("%s: got %q, want %q", what, got, want)
	}
}

var (
	uuid4Re = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	// Python's datetime.isoformat(): fraction only when non-zero, numeric offset.
	isoRe = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?[+-]\d\d:\d\d$`)
)

// backdate sets a message's created time in Python's local isoformat at
// now - age, as the original tool's tests do through a direct DB write.
func (b *box) backdate(id string, created string) {
	b.t.Helper()
	b.exec(`UPDATE messages SET created = ? WHERE id = ?`, created, id)
}

func pyISO(t time.Time) string {
	s := t.Format("2006-01-02T15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s + t.Format("-07:00")
}
