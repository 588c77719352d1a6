// Package agentmailpg runs agent-mail against PostgreSQL
// (AGENT_MAIL_DB=postgres://…): the same queries must behave the same on
// both backends. It skips when PostgreSQL is unavailable.
package agentmailpg

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
	"github.com/blackboard-hub/bb/internal/testkit"
)

var amBin string

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Options{Commands: []string{"agent-mail"}, Postgres: true, Built: func(dir string) {
		amBin = filepath.Join(dir, "agent-mail")
	}})
}

type pg struct {
	t   *testing.T
	url string
	now string
}

func (p *pg) run(args ...string) (string, string, int) {
	p.t.Helper()
	cmd := exec.Command(amBin, args...)
	cmd.Env = []string{"AGENT_MAIL_DB=" + p.url, "HOME=" + p.t.TempDir(), "TZ=UTC", "PATH=" + os.Getenv("PATH")}
	if p.now != "" {
		cmd.Env = append(cmd.Env, "BB_NOW="+p.now)
	}
	out, errb, code := testkit.Run(p.t, cmd)
	return out, errb, code
}

func (p *pg) ok(v any, args ...string) {
	p.t.Helper()
	out, errs, code := p.run(args...)
	if code != 0 || errs != "" {
		p.t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(out), v); err != nil {
			p.t.Fatalf("%v: %v: %q", args, err, out)
		}
	}
}

type msg map[string]any

func subjects(l []msg) string {
	var s []string
	for _, m := range l {
		s = append(s, m["subject"].(string))
	}
	return strings.Join(s, ",")
}

func TestAgentMailOnPostgres(t *testing.T) {
	p := &pg{t: t, url: pgtest.URL(t), now: "2030-01-02T03:04:05Z"}
	var root, bc msg
	p.ok(&root, "send", "--from", "p:a", "--to", "p:b", "--subject", "root", "--refs", `["x","é"]`)
	p.now = "2030-01-02T03:04:06Z"
	p.ok(&bc, "send", "--from", "p:c", "--to", "*", "--subject", "bc", "--reply-to", root["id"].(string))
	p.now = "2030-01-02T03:04:07Z"
	p.ok(nil, "send", "--from", "p:b", "--to", "p:b", "--subject", "self")
	p.ok(nil, "send", "--from", "p:c", "--to", "p:b", "--subject", "third")

	var l []msg
	p.ok(&l, "read", "p:b", "--no-mark-read")
	if got := subjects(l); got != "root,bc,third" {
		t.Fatalf("inbox: %s", got)
	}
	if l[0]["refs"] != `["x", "\u00e9"]` {
		t.Fatalf("refs: %v", l[0]["refs"])
	}
	p.ok(&l, "read", "p:b", "--limit", "2")
	if got := subjects(l); got != "root,bc" {
		t.Fatalf("limit: %s", got)
	}
	p.ok(&l, "read", "p:b")
	if got := subjects(l); got != "third" {
		t.Fatalf("rest: %s", got)
	}
	p.ok(&l, "read", "p:b", "--all", "--from", "p:c")
	if got := subjects(l); got != "bc,third" {
		t.Fatalf("from: %s", got)
	}
	p.ok(&l, "read", "p:z", "--thread", bc["id"].(string))
	if got := subjects(l); got != "root,bc" {
		t.Fatalf("thread: %s", got)
	}
	var ack msg
	p.ok(&ack, "ack", "p:b", bc["id"].(string))
	p.ok(&ack, "ack", "p:b", bc["id"].(string)) // restamp (upsert) works on PostgreSQL too
	var st []msg
	p.ok(&st, "status")
	got := map[string]string{}
	for _, s := range st {
		got[s["agent"].(string)] = fmt.Sprintf("%v/%v", s["unread"], s["unacked"])
	}
	if fmt.Sprint(got) != "map[p:a:1/1 p:b:0/2 p:c:0/0]" {
		t.Fatalf("status: %v", got)
	}
	p.now = "2030-01-03T03:04:06.5Z" // root and bc have expired
	var dry msg
	p.ok(&dry, "cleanup", "--dry-run")
	if dry["would_delete"] != float64(2) {
		t.Fatalf("dry run: %v", dry)
	}
	p.ok(&l, "read", "p:b", "--all") // opportunistic cleanup
	if got := subjects(l); got != "third" {
		t.Fatalf("after expiry: %s", got)
	}
	if _, errs, code := p.run("ack", "p:b", bc["id"].(string)); code != 1 || !strings.Contains(errs, "Message not found") {
		t.Fatalf("expired message still there: %d %s", code, errs)
	}
}
