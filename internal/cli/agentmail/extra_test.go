package agentmail_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestParallelSendsAllSucceed(t *testing.T) {
	b := newBox(t)
	b.send("p:x", "p:y", "create the db first") // the race of 20 first openers is covered below
	const n = 20
	var wg sync.WaitGroup
	res := make([]result, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res[i] = b.run("send", "--from", fmt.Sprintf("p:s%d", i), "--to", "p:inbox", "--subject", fmt.Sprintf("m%d", i))
		}(i)
	}
	wg.Wait()
	for i, r := range res {
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("send %d: exit %d, %s", i, r.code, r.stderr)
		}
	}
	eq(t, "readable", len(b.list("read", "p:inbox", "--limit", "100")), n)
}

func TestParallelFirstUseAllSucceed(t *testing.T) {
	b := newBox(t)
	const n = 20
	var wg sync.WaitGroup
	res := make([]result, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res[i] = b.run("send", "--from", "p:s", "--to", "*", "--subject", fmt.Sprint(i))
		}(i)
	}
	wg.Wait()
	for i, r := range res {
		if r.code != 0 {
			t.Fatalf("send %d: exit %d, %s", i, r.code, r.stderr)
		}
	}
	eq(t, "rows", b.count(`SELECT COUNT(*) FROM messages`), n)
}

func TestRejectedSendLeavesNoRowAndNoDatabase(t *testing.T) {
	b := newBox(t)
	p := filepath.Join(b.dir, "bad.bin")
	_ = os.WriteFile(p, []byte{0xff}, 0o644)
	for _, args := range [][]string{
		{"--from", "bad", "--to", "p:b", "--subject", "x"},
		{"--from", "p:a", "--to", "bad", "--subject", "x"},
		{"--from", "p:a", "--to", "p:b", "--subject", "bad\x01"},
		{"--from", "p:a", "--to", "p:b", "--subject", "x", "--refs", "nope"},
		{"--from", "p:a", "--to", "p:b", "--subject", "x", "--reply-to", "nope"},
		{"--from", "p:a", "--to", "p:b", "--subject", "x", "--body-file", p},
	} {
		b.fail(append([]string{"send"}, args...)...)
	}
	if _, err := os.Stat(b.db); err == nil {
		t.Fatal("rejected input created the database")
	}
	b.send("p:a", "p:b", "ok")
	b.fail("send", "--from", "p:a", "--to", "p:b", "--subject", "x", "--refs", "[1]")
	eq(t, "rows", b.count(`SELECT COUNT(*) FROM messages`), 1)
	eq(t, "events", b.count(`SELECT COUNT(*) FROM events WHERE type = 'mail.sent'`), 1)
}

func TestLargeAndNonASCIIBodiesRoundTrip(t *testing.T) {
	b := newBox(t)
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString("line with ünïcödé, emoji 😀, separators \u2028\u2029, <html> & \"quotes\" \\ \t\r\n")
	}
	big := sb.String()
	p := filepath.Join(b.dir, "big.md")
	_ = os.WriteFile(p, []byte(big), 0o644)
	m := b.send("p:a", "p:b", "big ✓ \u2028", "--body-file", p)
	inline := "inline ✓ 😀 \u2028 " + strings.Repeat("ж", 1000)
	b.send("p:a", "p:b", "inline", "--body", inline)
	l := b.list("read", "p:b")
	eq(t, "big", l[0]["body"].(string), big)
	eq(t, "subject", l[0]["subject"].(string), "big ✓ \u2028")
	eq(t, "inline", l[1]["body"].(string), inline)
	eq(t, "stored", *b.nullable(`SELECT body FROM messages WHERE id = ?`, m["id"]), big)
}

func TestDescribeNeedsNoDatabaseAndCreatesNothing(t *testing.T) {
	b := newBox(t)
	b.env["AGENT_MAIL_DB"] = filepath.Join(b.dir, "sub", "never.db")
	for _, args := range [][]string{{}, {"describe"}, {"describe", "read"}} {
		b.ok(args...)
	}
	b.fail("describe", "nope")
	entries, _ := os.ReadDir(b.dir)
	if len(entries) != 0 {
		t.Fatalf("describe created %v", entries)
	}
}

func TestArgumentErrorsAreArgparseStyle(t *testing.T) {
	b := newBox(t)
	eq(t, "missing", b.usage("send", "--from", "p:a"),
		"usage: agent-mail send [-h] --from FROM --to TO --subject SUBJECT [--body BODY] [--body-file BODY_FILE] [--refs REFS] [--reply-to REPLY_TO]\n"+
			"agent-mail send: error: the following arguments are required: --to, --subject\n")
	eq(t, "positional", b.usage("ack", "p:a"),
		"usage: agent-mail ack [-h] agent message_id\nagent-mail ack: error: the following arguments are required: message_id\n")
	eq(t, "unknown flag", b.usage("status", "--db", "x"),
		"usage: agent-mail [-h] {describe,send,read,ack,status,cleanup} ...\nagent-mail: error: unrecognized arguments: --db\n")
	eq(t, "extra positional", b.usage("read", "p:a", "p:b"),
		"usage: agent-mail [-h] {describe,send,read,ack,status,cleanup} ...\nagent-mail: error: unrecognized arguments: p:b\n")
	eq(t, "bad command", b.usage("bogus"),
		"usage: agent-mail [-h] {describe,send,read,ack,status,cleanup} ...\n"+
			"agent-mail: error: argument command: invalid choice: 'bogus' (choose from 'describe', 'send', 'read', 'ack', 'status', 'cleanup')\n")
	eq(t, "bad int", b.usage("read", "p:a", "--limit", "1.5"),
		"usage: agent-mail read [-h] [--all] [--from FROM] [--limit LIMIT] [--thread THREAD] [--no-mark-read] [--fields FIELDS] agent\n"+
			"agent-mail read: error: argument --limit: invalid int value: '1.5'\n")
	eq(t, "no value", b.usage("read", "p:a", "--from"),
		"usage: agent-mail read [-h] [--all] [--from FROM] [--limit LIMIT] [--thread THREAD] [--no-mark-read] [--fields FIELDS] agent\n"+
			"agent-mail read: error: argument --from: expected one argument\n")
	b.usage("send", "--from", "p:a", "--to", "p:b", "--subject", "x", "--b", "y")
	if _, err := os.Stat(b.db); err == nil {
		t.Fatal("argument errors must not create the database")
	}
	// argparse accepts unique prefixes of long options, and Python int().
	b.send("p:a", "p:b", "one")
	body := filepath.Join(b.dir, "body.txt")
	_ = os.WriteFile(body, []byte("text"), 0o644)
	b.ok("send", "--fr", "p:a", "--t", "p:b", "--sub", "two", "--body-f", body)
	eq(t, "abbrev", len(b.list("read", "p:b", "--no-mark", "--lim", " +1_0 ")), 2)
	eq(t, "abbrev=", len(b.list("read", "p:b", "--lim=1", "--al")), 1)
	if r := b.run("send", "--help"); r.code != 0 || !strings.Contains(r.stdout, "--body-file") {
		t.Fatalf("help: %d %q", r.code, r.stdout)
	}
}

// The same database seen through bb and agent-mail: a message sent with
// agent-mail appears in bb log, and a bb post is a broadcast agent-mail reads.
func TestCrossSurfaceWithBB(t *testing.T) {
	b := newBox(t)
	proj := filepath.Join(b.dir, "proj")
	_ = os.MkdirAll(proj, 0o755)
	bb := func(args ...string) string {
		cmd := exec.Command(bbBin, append([]string{"--dir", proj}, args...)...)
		cmd.Env = b.environ()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("bb %v: %v\n%s%s", args, err, out.String(), errb.String())
		}
		return out.String()
	}
	bb("init")
	b.db = filepath.Join(proj, ".bb", "blackboard.db")
	b.env["AGENT_MAIL_DB"] = b.db
	m := b.send("proj:alice", "proj:bob", "hello from agent-mail", "--body", "body text ✓")
	b.send("proj:alice", "*", "broadcast from agent-mail")
	var log struct {
		OK   bool `json:"ok"`
		Data any  `json:"data"`
	}
	raw := bb("log", "--json")
	if err := json.Unmarshal([]byte(raw), &log); err != nil || !log.OK {
		t.Fatalf("bb log: %v %s", err, raw)
	}
	if !strings.Contains(raw, m["id"].(string)) || !strings.Contains(raw, "body text ✓") {
		t.Fatalf("agent-mail message not in bb log: %s", raw)
	}
	bb("--as", "carol", "post", "posted on the board")
	l := b.list("read", "proj:bob")
	var subjects, bodies []string
	for _, x := range l {
		subjects = append(subjects, x["subject"].(string))
		bodies = append(bodies, x["body"].(string))
	}
	if len(l) != 3 || !strings.Contains(strings.Join(bodies, "|"), "posted on the board") {
		t.Fatalf("bob's inbox: %v / %v", subjects, bodies)
	}
	for _, x := range l {
		if x["sender"] == "carol" {
			eq(t, "bb post is a broadcast", x["recipient"].(string), "*")
			if x["ttl_hours"] != nil {
				t.Fatalf("a bb post never expires: ttl_hours %v", x["ttl_hours"])
			}
		}
	}
	// The board's timeline has the agent-mail events, and the sender exists.
	eq(t, "events", b.count(`SELECT COUNT(*) FROM events WHERE type = 'mail.sent'`), 2)
	eq(t, "agent", b.count(`SELECT COUNT(*) FROM agents WHERE id = 'proj:alice'`), 1)
	// Status sees the board's agents too (derived from traffic).
	found := false
	for _, s := range b.list("status") {
		found = found || s["agent"] == "carol"
	}
	if !found {
		t.Fatal("status does not list the bb poster")
	}
	// Cleanup never removes board posts (no TTL).
	b.env["BB_NOW"] = "2099-01-01T00:00:00Z"
	m2 := b.obj("cleanup")
	eq(t, "expired agent-mail only", m2["deleted_count"].(float64), 2)
	eq(t, "post kept", b.count(`SELECT COUNT(*) FROM messages WHERE sender = 'carol'`), 1)
}

// A row exactly 24 h old written without a fraction ("…:05+00:00") sorts
// before the cutoff text ("…:05.000000+00:00") but has not expired
// (now > created + 24h is strict): the range delete must keep it.
func TestCleanupKeepsRowExactlyAtCutoff(t *testing.T) {
	b := newBox(t)
	edge := b.send("p:a", "p:b", "edge")
	old := b.send("p:a", "p:b", "old")
	b.backdate(edge["id"].(string), "2030-01-01T03:04:05+00:00")
	b.backdate(old["id"].(string), "2030-01-01T03:04:04.999999+00:00")
	b.env["BB_NOW"] = "2030-01-02T03:04:05Z"
	m := b.obj("cleanup")
	eq(t, "deleted", m["deleted_count"].(float64), 1)
	eq(t, "edge kept", b.count(`SELECT COUNT(*) FROM messages WHERE id = ?`, edge["id"]), 1)
	eq(t, "old gone", b.count(`SELECT COUNT(*) FROM messages WHERE id = ?`, old["id"]), 0)
	b.env["BB_NOW"] = "2030-01-02T03:04:05.000001Z"
	eq(t, "a microsecond later", b.obj("cleanup")["deleted_count"].(float64), 1)
}
