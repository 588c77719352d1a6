package agentmail_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// One black-box test per acceptance criterion of seed 004 (AC1–AC46).

var commandNames = []string{"describe", "send", "read", "ack", "status", "cleanup"}

func TestAC01_DescribeHasAllTopLevelKeys(t *testing.T) {
	b := newBox(t)
	r := b.ok("describe")
	eqList(t, "keys", keys(t, r.stdout), []string{"name", "description", "usage", "storage", "agent_identity", "content_routing", "invariants", "commands"})
	m := b.obj("describe")
	eq(t, "name", m["name"].(string), "agent-mail")
	if !strings.Contains(m["usage"].(string), "agent-mail <command>") {
		t.Fatalf("usage: %v", m["usage"])
	}
	eq(t, "storage", m["storage"].(string), filepath.Join(b.home, ".agent-mail", "mail.db")+" (override with AGENT_MAIL_DB env var)")
	var top map[string]json.RawMessage
	_ = json.Unmarshal([]byte(r.stdout), &top)
	eqList(t, "commands", keys(t, string(top["commands"])), commandNames)
}

func TestAC02_NoArgumentsPrintsDescribe(t *testing.T) {
	b := newBox(t)
	eq(t, "bare vs describe", b.ok().stdout, b.ok("describe").stdout)
}

func TestAC03_DescribeOneCommand(t *testing.T) {
	b := newBox(t)
	full := b.obj("describe")["commands"].(map[string]any)
	raw := b.ok("describe").stdout
	for _, name := range commandNames {
		r := b.ok("describe", name)
		eqList(t, "keys", keys(t, r.stdout), []string{name})
		var one map[string]any
		_ = json.Unmarshal([]byte(r.stdout), &one)
		if !reflect.DeepEqual(one[name], full[name]) {
			t.Fatalf("describe %s differs from the full schema", name)
		}
		// Byte-identical to the block inside the full document, re-indented.
		inner := strings.TrimSuffix(strings.TrimPrefix(r.stdout, "{\n"), "\n}\n")
		if !strings.Contains(raw, strings.ReplaceAll(inner, "\n  ", "\n    ")) {
			t.Fatalf("describe %s is not the same text as in the full schema", name)
		}
	}
	send := full["send"].(map[string]any)
	eq(t, "send mutating", send["mutating"].(bool), true)
	from := send["args"].(map[string]any)["--from"].(map[string]any)
	eq(t, "--from required", from["required"].(bool), true)
	limit := full["read"].(map[string]any)["args"].(map[string]any)["--limit"].(map[string]any)
	eq(t, "--limit type", limit["type"].(string), "int")
	eq(t, "--limit default", limit["default"].(float64), 20)
	agent := full["read"].(map[string]any)["args"].(map[string]any)["agent"].(map[string]any)
	eq(t, "agent positional", agent["positional"].(bool), true)
	msg := b.fail("describe", "nope")
	eq(t, "unknown", msg, "Unknown command: 'nope'. Available: describe, send, read, ack, status, cleanup")
}

func TestAC04_DescribeSameWithOrWithoutDatabase(t *testing.T) {
	b := newBox(t)
	before := b.ok("describe").stdout
	if _, err := os.Stat(b.db); err == nil {
		t.Fatal("describe created the database")
	}
	if _, err := os.Stat(filepath.Join(b.home, ".agent-mail")); err == nil {
		t.Fatal("describe created ~/.agent-mail")
	}
	b.send("p:a", "p:b", "x")
	eq(t, "describe after DB exists", b.ok("describe").stdout, before)
	for _, name := range commandNames {
		b.ok("describe", name)
	}
}

func TestAC05_SendDirect(t *testing.T) {
	b := newBox(t)
	r := b.ok("send", "--from", "proj:sender", "--to", "proj:receiver", "--subject", "Hello")
	eqList(t, "keys", keys(t, r.stdout), []string{"id", "sender", "recipient", "subject", "type", "created", "ttl_hours"})
	var m map[string]any
	_ = json.Unmarshal([]byte(r.stdout), &m)
	eq(t, "type", m["type"].(string), "direct")
	eq(t, "ttl", m["ttl_hours"].(float64), 24)
	eq(t, "sender", m["sender"].(string), "proj:sender")
	eq(t, "recipient", m["recipient"].(string), "proj:receiver")
	eq(t, "subject", m["subject"].(string), "Hello")
	want := "{\n  \"id\": \"" + m["id"].(string) + "\",\n  \"sender\": \"proj:sender\",\n  \"recipient\": \"proj:receiver\",\n" +
		"  \"subject\": \"Hello\",\n  \"type\": \"direct\",\n  \"created\": \"" + m["created"].(string) + "\",\n  \"ttl_hours\": 24\n}\n"
	eq(t, "bytes", r.stdout, want)
}

func TestAC06_SendBroadcast(t *testing.T) {
	b := newBox(t)
	m := b.send("p:a", "*", "all")
	eq(t, "type", m["type"].(string), "broadcast")
	eq(t, "recipient", m["recipient"].(string), "*")
	eq(t, "stored type", *b.nullable(`SELECT type FROM messages WHERE id = ?`, m["id"]), "broadcast")
}

func TestAC07_RefsStoredAndReturnedAsPythonJSON(t *testing.T) {
	b := newBox(t)
	m := b.send("p:a", "p:b", "x", "--refs", `["a","b"]`)
	l := b.list("read", "p:b", "--no-mark-read")
	eq(t, "refs", l[0]["refs"].(string), `["a", "b"]`)
	eq(t, "stored", *b.nullable(`SELECT refs FROM messages WHERE id = ?`, m["id"]), `["a", "b"]`)
	// Non-ASCII is \u-escaped, astral characters as surrogate pairs.
	m2 := b.send("p:a", "p:c", "x", "--refs", `[ "é/ü.md" , "😀" ]`)
	eq(t, "non-ascii", *b.nullable(`SELECT refs FROM messages WHERE id = ?`, m2["id"]), `["\u00e9/\u00fc.md", "\ud83d\ude00"]`)
	m3 := b.send("p:a", "p:c", "x", "--refs", `[]`)
	eq(t, "empty", *b.nullable(`SELECT refs FROM messages WHERE id = ?`, m3["id"]), `[]`)
	m4 := b.send("p:a", "p:c", "x")
	if b.nullable(`SELECT refs FROM messages WHERE id = ?`, m4["id"]) != nil {
		t.Fatal("refs without --refs must be NULL")
	}
	r := b.ok("read", "p:c", "--fields", "refs")
	if !strings.Contains(r.stdout, `"refs": "[\"\\u00e9/\\u00fc.md\", \"\\ud83d\\ude00\"]"`) || !strings.Contains(r.stdout, `"refs": null`) {
		t.Fatalf("read refs: %s", r.stdout)
	}
}

func TestAC08_ReplyToStored(t *testing.T) {
	b := newBox(t)
	parent := b.send("p:a", "p:b", "q")
	child := b.send("p:b", "p:a", "re", "--reply-to", parent["id"].(string))
	eq(t, "reply_to", *b.nullable(`SELECT reply_to FROM messages WHERE id = ?`, child["id"]), parent["id"].(string))
	l := b.list("read", "p:a", "--no-mark-read")
	eq(t, "read reply_to", l[0]["reply_to"].(string), parent["id"].(string))
}

func TestAC09_SendBadReplyTo(t *testing.T) {
	b := newBox(t)
	msg := b.fail("send", "--from", "p:a", "--to", "p:b", "--subject", "x", "--reply-to", "not-a-uuid")
	eq(t, "msg", msg, "Invalid message id: 'not-a-uuid'. Must be a UUID (8-4-4-4-12 hex).")
	eq(t, "rows", b.count(`SELECT COUNT(*) FROM messages`), 0)
	b.fail("send", "--from", "p:a", "--to", "p:b", "--subject", "x", "--reply-to", "")
	eq(t, "rows", b.count(`SELECT COUNT(*) FROM messages`), 0)
}

func TestAC10_BodyFileRoundTripsBytes(t *testing.T) {
	b := newBox(t)
	body := "\ufeffLine 1\r\n```python\nprint('x')\n```\n\ttab \u2028 sep \u2029 😀 <>&\n"
	p := filepath.Join(b.dir, "body.md")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	m := b.send("p:a", "p:b", "x", "--body-file", p)
	eq(t, "stored", *b.nullable(`SELECT body FROM messages WHERE id = ?`, m["id"]), body)
	l := b.list("read", "p:b")
	eq(t, "read", l[0]["body"].(string), body)
}

func TestAC11_BodyAndBodyFileExclusive(t *testing.T) {
	b := newBox(t)
	p := filepath.Join(b.dir, "body.txt")
	_ = os.WriteFile(p, []byte("body"), 0o644)
	msg := b.fail("send", "--from", "p:a", "--to", "p:b", "--subject", "x", "--body", "a", "--body-file", p)
	eq(t, "msg", msg, "Cannot use both --body and --body-file. Choose one.")
	eq(t, "rows", b.count(`SELECT COUNT(*) FROM messages`), 0)
}

func TestAC12_BodyFileMissing(t *testing.T) {
	b := newBox(t)
	msg := b.fail("send", "--from", "p:a", "--to", "p:b", "--subject", "x", "--body-file", "/no/such/path")
	eq(t, "msg", msg, "--body-file not found: /no/such/path")
	msg = b.fail("send", "--from", "p:a", "--to", "p:b", "--subject", "x", "--body-file", b.dir)
	eq(t, "dir", msg, "--body-file is not a regular file: "+b.dir)
	eq(t, "rows", b.count(`SELECT COUNT(*) FROM messages`), 0)
}

func TestAC13_BodyFileNotUTF8(t *testing.T) {
	b := newBox(t)
	p := filepath.Join(b.dir, "bad.bin")
	_ = os.WriteFile(p, []byte{0xff, 0xfe, 'a'}, 0o644)
	msg := b.fail("send", "--from", "p:a", "--to", "p:b", "--subject", "x", "--body-file", p)
	eq(t, "msg", msg, "--body-file is not valid UTF-8: "+p)
	eq(t, "rows", b.count(`SELECT COUNT(*) FROM messages`), 0)
}

// inbox sets up the mailbox of proj:receiver used by the read tests.
func inbox(b *box) (first, second, bcast, self, other map[string]any) {
	first = b.send("proj:sender", "proj:receiver", "first", "--body", "body")
	second = b.send("proj:other", "proj:receiver", "second")
	bcast = b.send("proj:sender", "*", "broadcast")
	self = b.send("proj:receiver", "proj:receiver", "self")
	other = b.send("proj:sender", "proj:someone", "not yours")
	b.send("proj:receiver", "*", "own broadcast")
	return
}

func TestAC14_ReadReturnsUnreadDirectAndBroadcastNotOwn(t *testing.T) {
	b := newBox(t)
	first, second, bcast, _, _ := inbox(b)
	got := ids(b.list("read", "proj:receiver"))
	eqList(t, "ids", got, []string{first["id"].(string), second["id"].(string), bcast["id"].(string)})
	// Senders and readers are known to the shared agents table.
	eq(t, "agents", b.count(`SELECT COUNT(*) FROM agents WHERE id IN ('proj:receiver', 'proj:sender', 'proj:other')`), 3)
	eq(t, "read event", b.count(`SELECT COUNT(*) FROM events WHERE type = 'mail.read' AND agent = 'proj:receiver'`), 1)
}

func TestAC15_SecondReadIsEmpty(t *testing.T) {
	b := newBox(t)
	inbox(b)
	if len(b.list("read", "proj:receiver")) != 3 {
		t.Fatal("first read")
	}
	eq(t, "second read", b.ok("read", "proj:receiver").stdout, "[]\n")
	// Another agent still sees the broadcast unread.
	eq(t, "other agent", len(b.list("read", "proj:x")), 2)
}

func TestAC16_NoMarkRead(t *testing.T) {
	b := newBox(t)
	inbox(b)
	eq(t, "preview", len(b.list("read", "proj:receiver", "--no-mark-read")), 3)
	eq(t, "read_at untouched", b.count(`SELECT COUNT(*) FROM messages WHERE read_at IS NOT NULL`), 0)
	eq(t, "no receipts", b.count(`SELECT COUNT(*) FROM broadcast_acks`), 0)
	eq(t, "still unread", len(b.list("read", "proj:receiver")), 3)
}

func TestAC17_ReadAll(t *testing.T) {
	b := newBox(t)
	first, second, bcast, _, _ := inbox(b)
	b.ok("read", "proj:receiver")
	l := b.list("read", "proj:receiver", "--all")
	eqList(t, "all", ids(l), []string{first["id"].(string), second["id"].(string), bcast["id"].(string)})
	if l[0]["read_at"] == nil {
		t.Fatal("--all shows read_at of read direct messages")
	}
}

func TestAC18_ReadFrom(t *testing.T) {
	b := newBox(t)
	_, second, _, _, _ := inbox(b)
	eqList(t, "from", ids(b.list("read", "proj:receiver", "--all", "--from", "proj:other", "--no-mark-read")), []string{second["id"].(string)})
	eq(t, "rest unread", len(b.list("read", "proj:receiver", "--no-mark-read")), 3)
	eqList(t, "from", ids(b.list("read", "proj:receiver", "--from", "proj:other")), []string{second["id"].(string)})
	// Only the filtered message was marked read.
	eq(t, "after", len(b.list("read", "proj:receiver", "--no-mark-read")), 2)
	msg := b.fail("read", "proj:receiver", "--from", "*")
	if !strings.HasPrefix(msg, "Invalid agent identity: '*'") {
		t.Fatal(msg)
	}
}

func TestAC19_ReadLimit(t *testing.T) {
	b := newBox(t)
	first, second, bcast, _, _ := inbox(b)
	eqList(t, "limit 1", ids(b.list("read", "proj:receiver", "--all", "--limit", "1", "--no-mark-read")), []string{first["id"].(string)})
	eqList(t, "limit 2", ids(b.list("read", "proj:receiver", "--limit", "2", "--no-mark-read")), []string{first["id"].(string), second["id"].(string)})
	eq(t, "limit 0", b.ok("read", "proj:receiver", "--limit", "0").stdout, "[]\n")
	// A negative limit is no cap: the original passed it to SQLite's
	// LIMIT, where -1 means "no limit".
	eqList(t, "limit -1", ids(b.list("read", "proj:receiver", "--limit", "-1", "--no-mark-read")),
		[]string{first["id"].(string), second["id"].(string), bcast["id"].(string)})
	eqList(t, "limit -7", ids(b.list("read", "proj:receiver", "--limit", "-7", "--no-mark-read")),
		[]string{first["id"].(string), second["id"].(string), bcast["id"].(string)})
	// The limit applies to what is marked read.
	b.ok("read", "proj:receiver", "--limit", "1")
	eqList(t, "rest", ids(b.list("read", "proj:receiver")), []string{second["id"].(string), bcast["id"].(string)})
	b.usage("read", "proj:receiver", "--limit", "x")
}

func TestAC20_ThreadRootAndDescendantsNoMarking(t *testing.T) {
	b := newBox(t)
	root := b.send("p:a", "p:b", "root")
	c1 := b.send("p:b", "p:a", "c1", "--reply-to", root["id"].(string))
	bc := b.send("p:c", "*", "bc", "--reply-to", c1["id"].(string))
	c2 := b.send("p:a", "p:b", "c2", "--reply-to", root["id"].(string))
	b.send("p:a", "p:b", "unrelated")
	want := []string{root["id"].(string), c1["id"].(string), bc["id"].(string), c2["id"].(string)}
	for _, from := range want {
		eqList(t, "thread from "+from, ids(b.list("read", "p:z", "--thread", from)), want)
	}
	eq(t, "read_at", b.count(`SELECT COUNT(*) FROM messages WHERE read_at IS NOT NULL`), 0)
	eq(t, "acks", b.count(`SELECT COUNT(*) FROM broadcast_acks`), 0)
	// A reply_to cycle written by another tool does not hang the walk.
	b.exec(`UPDATE messages SET reply_to = ? WHERE id = ?`, c2["id"], root["id"])
	if n := len(b.list("read", "p:z", "--thread", c1["id"].(string))); n != 4 {
		t.Fatalf("cycle: %d messages", n)
	}
	eq(t, "unknown id", b.ok("read", "p:z", "--thread", "00000000-0000-4000-8000-000000000000").stdout, "[]\n")
}

func TestAC21_ThreadBadUUID(t *testing.T) {
	b := newBox(t)
	msg := b.fail("read", "p:a", "--thread", "not-a-uuid")
	eq(t, "msg", msg, "Invalid message id: 'not-a-uuid'. Must be a UUID (8-4-4-4-12 hex).")
}

func TestAC22_ReadMarksDirectOnRowAndBroadcastInReceipts(t *testing.T) {
	b := newBox(t)
	d := b.send("proj:sender", "proj:receiver", "direct")
	bc := b.send("proj:sender", "*", "broadcast")
	b.ok("read", "proj:receiver")
	if b.nullable(`SELECT read_at FROM messages WHERE id = ?`, d["id"]) == nil {
		t.Fatal("direct read_at not set")
	}
	if b.nullable(`SELECT read_at FROM broadcast_acks WHERE message_id = ? AND agent = ?`, bc["id"], "proj:receiver") == nil {
		t.Fatal("broadcast receipt not set")
	}
	if b.nullable(`SELECT read_at FROM messages WHERE id = ?`, bc["id"]) != nil {
		t.Fatal("broadcast row read_at must stay NULL")
	}
	eq(t, "no direct receipt rows", b.count(`SELECT COUNT(*) FROM broadcast_acks WHERE message_id = ?`, d["id"]), 0)
	eq(t, "acked untouched", b.count(`SELECT COUNT(*) FROM broadcast_acks WHERE acked_at IS NOT NULL`), 0)
}

func TestAC23_ReadFieldsInRequestedOrder(t *testing.T) {
	b := newBox(t)
	inbox(b)
	r := b.ok("read", "proj:receiver", "--all", "--fields", "subject,id,sender")
	var l []json.RawMessage
	_ = json.Unmarshal([]byte(r.stdout), &l)
	for _, o := range l {
		eqList(t, "keys", keys(t, string(o)), []string{"subject", "id", "sender"})
	}
	r = b.ok("read", "proj:receiver", "--all", "--fields", " id , id,sender,")
	_ = json.Unmarshal([]byte(r.stdout), &l)
	eqList(t, "dedup", keys(t, string(l[0])), []string{"id", "sender"})
}

func TestAC24_ReadUnknownFields(t *testing.T) {
	b := newBox(t)
	msg := b.fail("read", "proj:receiver", "--fields", "id,nope,bad")
	eq(t, "msg", msg, "Unknown --fields: ['nope', 'bad']. Valid for this command: ['acked_at', 'body', 'created', 'id', 'read_at', 'recipient', 'refs', 'reply_to', 'sender', 'subject', 'ttl_hours', 'type']")
}

func TestAC25_AckDirect(t *testing.T) {
	b := newBox(t)
	d := b.send("p:a", "p:b", "x")
	r := b.ok("ack", "p:b", d["id"].(string))
	eqList(t, "keys", keys(t, r.stdout), []string{"message_id", "agent", "acked_at"})
	var m map[string]any
	_ = json.Unmarshal([]byte(r.stdout), &m)
	eq(t, "message_id", m["message_id"].(string), d["id"].(string))
	eq(t, "agent", m["agent"].(string), "p:b")
	eq(t, "stored", *b.nullable(`SELECT acked_at FROM messages WHERE id = ?`, d["id"]), m["acked_at"].(string))
	if b.nullable(`SELECT read_at FROM messages WHERE id = ?`, d["id"]) != nil {
		t.Fatal("ack must not set read_at")
	}
	// Any agent may ack (no recipient check), and a later ack restamps.
	time.Sleep(2 * time.Millisecond)
	m2 := b.obj("ack", "p:zz", d["id"].(string))
	eq(t, "restamped", *b.nullable(`SELECT acked_at FROM messages WHERE id = ?`, d["id"]), m2["acked_at"].(string))
	if m2["acked_at"] == m["acked_at"] {
		t.Fatal("second ack did not restamp")
	}
}

func TestAC26_AckBroadcastPerAgent(t *testing.T) {
	b := newBox(t)
	bc := b.send("p:a", "*", "x")
	m := b.obj("ack", "p:b", bc["id"].(string))
	eq(t, "receipt", *b.nullable(`SELECT acked_at FROM broadcast_acks WHERE message_id = ? AND agent = 'p:b'`, bc["id"]), m["acked_at"].(string))
	eq(t, "only p:b", b.count(`SELECT COUNT(*) FROM broadcast_acks`), 1)
	if b.nullable(`SELECT read_at FROM broadcast_acks WHERE agent = 'p:b'`) != nil {
		t.Fatal("ack must not set read_at")
	}
	if b.nullable(`SELECT acked_at FROM messages WHERE id = ?`, bc["id"]) != nil {
		t.Fatal("broadcast row acked_at must stay NULL")
	}
	// p:b acked but has not read it: still unread for p:b.
	eq(t, "still unread", len(b.list("read", "p:b")), 1)
	eq(t, "p:c unaffected", len(b.list("read", "p:c")), 1)
}

func TestAC27_AckBadUUIDTouchesNothing(t *testing.T) {
	b := newBox(t)
	d := b.send("p:a", "p:b", "x")
	msg := b.fail("ack", "p:b", "not-a-uuid")
	eq(t, "msg", msg, "Invalid message id: 'not-a-uuid'. Must be a UUID (8-4-4-4-12 hex).")
	if b.nullable(`SELECT acked_at FROM messages WHERE id = ?`, d["id"]) != nil {
		t.Fatal("acked")
	}
	eq(t, "receipts", b.count(`SELECT COUNT(*) FROM broadcast_acks`), 0)
	b.fail("ack", "*", d["id"].(string))
}

func TestAC28_AckUnknownMessage(t *testing.T) {
	b := newBox(t)
	b.send("p:a", "p:b", "x")
	id := "9f1c2e34-5678-4abc-9def-0123456789ab"
	eq(t, "msg", b.fail("ack", "p:b", id), "Message not found: "+id)
}

func TestAC29_StatusCounts(t *testing.T) {
	b := newBox(t)
	b.send("proj:a", "proj:b", "direct")
	b.send("proj:a", "*", "broadcast")
	b.send("other:a", "proj:a", "incoming")
	b.send("proj:b", "proj:b", "self")
	r := b.ok("status")
	want := "[\n" +
		"  {\n    \"agent\": \"other:a\",\n    \"unread\": 1,\n    \"unacked\": 1\n  },\n" +
		"  {\n    \"agent\": \"proj:a\",\n    \"unread\": 1,\n    \"unacked\": 1\n  },\n" +
		"  {\n    \"agent\": \"proj:b\",\n    \"unread\": 2,\n    \"unacked\": 2\n  }\n]\n"
	eq(t, "status", r.stdout, want)
	b.ok("read", "proj:b")
	id := b.list("read", "proj:b", "--all")[0]["id"].(string)
	b.ok("ack", "proj:b", id)
	l := b.list("status", "--agent", "proj:b")
	eq(t, "unread", l[0]["unread"].(float64), 0)
	eq(t, "unacked", l[0]["unacked"].(float64), 1)
}

func TestAC30_StatusOneAgent(t *testing.T) {
	b := newBox(t)
	b.send("proj:a", "proj:b", "x")
	l := b.list("status", "--agent", "proj:b")
	eq(t, "n", len(l), 1)
	eq(t, "agent", l[0]["agent"].(string), "proj:b")
	eq(t, "unknown agent", b.ok("status", "--agent", "proj:zz").stdout, "[]\n")
	b.fail("status", "--agent", "bad")
	b.fail("status", "--agent", "*")
}

func TestAC31_StatusProject(t *testing.T) {
	b := newBox(t)
	b.send("proj:a", "proj:b", "x")
	b.send("projx:a", "other:c", "x")
	var got []string
	for _, m := range b.list("status", "--project", "proj") {
		got = append(got, m["agent"].(string))
	}
	eqList(t, "agents", got, []string{"proj:a", "proj:b"})
}

func TestAC32_StatusFields(t *testing.T) {
	b := newBox(t)
	b.send("proj:a", "proj:b", "x")
	r := b.ok("status", "--fields", "agent,unread")
	var l []json.RawMessage
	_ = json.Unmarshal([]byte(r.stdout), &l)
	for _, o := range l {
		eqList(t, "keys", keys(t, string(o)), []string{"agent", "unread"})
	}
}

func TestAC33_StatusUnknownFields(t *testing.T) {
	b := newBox(t)
	eq(t, "msg", b.fail("status", "--fields", "nope"), "Unknown --fields: ['nope']. Valid for this command: ['agent', 'unacked', 'unread']")
}

func TestAC34_CleanupDryRun(t *testing.T) {
	b := newBox(t)
	old := b.send("p:a", "p:b", "old")
	old2 := b.send("p:c", "*", "old2")
	b.send("p:a", "p:b", "fresh")
	now := time.Now()
	c1 := pyISO(now.Add(-26 * time.Hour).UTC())
	c2 := pyISO(now.Add(-25 * time.Hour).In(time.FixedZone("", 2*3600)))
	b.backdate(old["id"].(string), c1)
	b.backdate(old2["id"].(string), c2)
	r := b.ok("cleanup", "--dry-run")
	eqList(t, "keys", keys(t, r.stdout), []string{"dry_run", "would_delete", "oldest", "newest", "messages"})
	var m map[string]any
	_ = json.Unmarshal([]byte(r.stdout), &m)
	eq(t, "dry_run", m["dry_run"].(bool), true)
	eq(t, "would_delete", m["would_delete"].(float64), 2)
	eq(t, "oldest", m["oldest"].(string), c1)
	eq(t, "newest", m["newest"].(string), c2)
	msgs := m["messages"].([]any)
	first := msgs[0].(map[string]any)
	eq(t, "first id", first["id"].(string), old["id"].(string))
	eq(t, "first sender", first["sender"].(string), "p:a")
	eq(t, "first subject", first["subject"].(string), "old")
	eq(t, "rows kept", b.count(`SELECT COUNT(*) FROM messages`), 3)
}

func TestAC35_CleanupDeletesOnlyExpiredWithReceipts(t *testing.T) {
	b := newBox(t)
	old := b.send("p:a", "*", "old")
	edge := b.send("p:a", "p:b", "edge")
	fresh := b.send("p:a", "*", "fresh")
	b.ok("read", "p:b")
	b.ok("ack", "p:b", old["id"].(string))
	b.ok("ack", "p:b", fresh["id"].(string))
	// BB_NOW pins "now"; one message is exactly 24 h old (not expired: the
	// rule is now > created + 24h), one is 24 h and 1 µs old.
	now := time.Date(2030, 1, 2, 3, 4, 5, 600000000, time.UTC)
	b.backdate(old["id"].(string), pyISO(now.Add(-24*time.Hour-time.Microsecond)))
	b.backdate(edge["id"].(string), pyISO(now.Add(-24*time.Hour)))
	b.backdate(fresh["id"].(string), pyISO(now.Add(-time.Hour)))
	b.env["BB_NOW"] = now.Format(time.RFC3339Nano)
	r := b.ok("cleanup")
	eqList(t, "keys", keys(t, r.stdout), []string{"deleted_count", "oldest_deleted", "newest_deleted"})
	m := b.obj("cleanup", "--dry-run")
	eq(t, "nothing left", m["deleted_count"].(float64), 0)
	eq(t, "old gone", b.count(`SELECT COUNT(*) FROM messages WHERE id = ?`, old["id"]), 0)
	eq(t, "receipts gone", b.count(`SELECT COUNT(*) FROM broadcast_acks WHERE message_id = ?`, old["id"]), 0)
	eq(t, "edge kept", b.count(`SELECT COUNT(*) FROM messages WHERE id = ?`, edge["id"]), 1)
	eq(t, "fresh receipts kept", b.count(`SELECT COUNT(*) FROM broadcast_acks WHERE message_id = ?`, fresh["id"]), 1)
	var out map[string]any
	_ = json.Unmarshal([]byte(r.stdout), &out)
	eq(t, "deleted", out["deleted_count"].(float64), 1)
	eq(t, "oldest", out["oldest_deleted"].(string), pyISO(now.Add(-24*time.Hour-time.Microsecond)))
	eq(t, "timeline", b.count(`SELECT COUNT(*) FROM events WHERE type = 'mail.expired'`), 1)
}

func TestAC36_CleanupNothingExpired(t *testing.T) {
	b := newBox(t)
	eq(t, "empty box", b.ok("cleanup").stdout, "{\n  \"deleted_count\": 0\n}\n")
	b.send("p:a", "p:b", "x")
	eq(t, "fresh only", b.ok("cleanup").stdout, "{\n  \"deleted_count\": 0\n}\n")
	eq(t, "dry run", b.ok("cleanup", "--dry-run").stdout, "{\n  \"deleted_count\": 0\n}\n")
}

func TestAC37_AgentMailDBOverride(t *testing.T) {
	b := newBox(t)
	override := filepath.Join(b.dir, "nested", "deeper", "override.db")
	b.env["AGENT_MAIL_DB"] = override
	b.send("p:a", "p:b", "x")
	if _, err := os.Stat(override); err != nil {
		t.Fatal("override not created")
	}
	if _, err := os.Stat(filepath.Join(b.home, ".agent-mail")); err == nil {
		t.Fatal("default path touched")
	}
	// Without the variable (or with it empty), ~/.agent-mail/mail.db is used.
	for _, v := range []string{"", "unset"} {
		if v == "unset" {
			delete(b.env, "AGENT_MAIL_DB")
		} else {
			b.env["AGENT_MAIL_DB"] = v
		}
		b.send("p:a", "p:b", "y")
		if _, err := os.Stat(filepath.Join(b.home, ".agent-mail", "mail.db")); err != nil {
			t.Fatalf("default path not created (AGENT_MAIL_DB %s)", v)
		}
	}
	b.db = filepath.Join(b.home, ".agent-mail", "mail.db")
	eq(t, "default db rows", b.count(`SELECT COUNT(*) FROM messages`), 2)
	b.db = override
	eq(t, "override rows", b.count(`SELECT COUNT(*) FROM messages`), 1)
}

func TestAC38_FirstUseCreatesSchemaInWAL(t *testing.T) {
	for _, cmd := range [][]string{{"status"}, {"read", "p:a"}, {"cleanup"}, {"ack", "p:a", "9f1c2e34-5678-4abc-9def-0123456789ab"}, {"send", "--from", "p:a", "--to", "p:b", "--subject", "x"}} {
		b := newBox(t)
		b.env["AGENT_MAIL_DB"] = filepath.Join(b.dir, "new", "dir", "m.db")
		b.db = b.env["AGENT_MAIL_DB"]
		b.run(cmd...)
		db := b.sql()
		have := map[string]bool{}
		rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type IN ('table', 'index')`)
		if err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
		for rows.Next() {
			var n string
			_ = rows.Scan(&n)
			have[n] = true
		}
		rows.Close()
		for _, n := range []string{"messages", "broadcast_acks", "idx_messages_recipient", "idx_messages_sender", "idx_messages_created"} {
			if !have[n] {
				t.Fatalf("%v: missing %s", cmd, n)
			}
		}
		var mode string
		_ = db.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
		eq(t, "journal_mode", mode, "wal")
	}
}

func TestAC39_IdentityGrammar(t *testing.T) {
	b := newBox(t)
	bad := []string{"bad", "Proj:a", "p:A", ":a", "p:", "-p:a", "p:-a", "p:a:b", "p_x:a", "p a:b", "*", "p:a\n", "é:a", ""}
	for _, id := range bad {
		msg := b.fail("send", "--from", id, "--to", "p:b", "--subject", "x")
		if !strings.HasPrefix(msg, "Invalid agent identity: ") || !strings.HasSuffix(msg, ". Must be project:name format (e.g. claudefana:deploy).") {
			t.Fatalf("%q: %s", id, msg)
		}
		if id != "*" {
			b.fail("send", "--from", "p:a", "--to", id, "--subject", "x")
		}
		if id != "" && id[0] != '-' { // argparse takes "-…" for an option
			b.fail("read", id)
			b.fail("ack", id, "9f1c2e34-5678-4abc-9def-0123456789ab")
		}
	}
	eq(t, "repr", b.fail("read", "it's"), `Invalid agent identity: "it's". Must be project:name format (e.g. claudefana:deploy).`)
	eq(t, "rows", b.count(`SELECT COUNT(*) FROM messages`), 0)
	for _, id := range []string{"a:b", "0:0", "second-brain:main", "a-1:b--2", "9lives:x-"} {
		b.send(id, "*", "ok")
		b.ok("read", id)
	}
}

func TestAC40_ControlCharacters(t *testing.T) {
	b := newBox(t)
	p := filepath.Join(b.dir, "ctl.txt")
	_ = os.WriteFile(p, []byte("a\x1bb"), 0o644)
	for _, args := range [][]string{
		{"--subject", "bad\x01"},
		{"--subject", "x", "--body", "bell\x07"},
		{"--subject", "x", "--body-file", p},
		{"--subject", "x", "--body", "nul\x0b"},
	} {
		msg := b.fail(append([]string{"send", "--from", "p:a", "--to", "p:b"}, args...)...)
		eq(t, "msg", msg, "Text contains invalid control characters.")
	}
	eq(t, "rows", b.count(`SELECT COUNT(*) FROM messages`), 0)
	m := b.send("p:a", "p:b", "tab\there", "--body", "ok\r\n\tfine\x7f")
	eq(t, "allowed", *b.nullable(`SELECT body FROM messages WHERE id = ?`, m["id"]), "ok\r\n\tfine\x7f")
}

func TestAC41_RefsMustBeArrayOfStrings(t *testing.T) {
	b := newBox(t)
	for raw, want := range map[string]string{
		"nope":       `Invalid --refs JSON: 'nope'. Expected JSON array of strings.`,
		`["a",]`:     `Invalid --refs JSON: '["a",]'. Expected JSON array of strings.`,
		`["a"] x`:    `Invalid --refs JSON: '["a"] x'. Expected JSON array of strings.`,
		`{"a": "b"}`: `--refs must be a JSON array of strings, got: '{"a": "b"}'`,
		`[1]`:        `--refs must be a JSON array of strings, got: '[1]'`,
		`null`:       `--refs must be a JSON array of strings, got: 'null'`,
		`"a"`:        `--refs must be a JSON array of strings, got: '"a"'`,
		`[["a"]]`:    `--refs must be a JSON array of strings, got: '[["a"]]'`,
	} {
		eq(t, raw, b.fail("send", "--from", "p:a", "--to", "p:b", "--subject", "x", "--refs", raw), want)
	}
	eq(t, "rows", b.count(`SELECT COUNT(*) FROM messages`), 0)
}

func TestAC42_SuccessIsJSONOnStdout(t *testing.T) {
	b := newBox(t)
	m := b.send("p:a", "p:b", "x") // ok() checks exit 0, empty stderr, JSON
	b.ok("send", "--from", "p:a", "--to", "*", "--subject", "<b>&amp;</b> \u2028\u2029 😀")
	b.ok("read", "p:b", "--no-mark-read")
	b.ok("read", "p:b", "--thread", m["id"].(string))
	b.ok("read", "p:b")
	b.ok("ack", "p:b", m["id"].(string))
	b.ok("status")
	b.ok("cleanup")
	b.ok("cleanup", "--dry-run")
	b.ok("describe")
	r := b.ok("read", "p:b", "--all", "--fields", "subject")
	// ensure_ascii=False and no HTML escaping: the text is printed as is.
	if !strings.Contains(r.stdout, "\"subject\": \"<b>&amp;</b> \u2028\u2029 😀\"") {
		t.Fatalf("not raw UTF-8: %q", r.stdout)
	}
}

func TestAC43_ApplicationErrorsAreJSONOnStderr(t *testing.T) {
	b := newBox(t)
	b.fail("describe", "missing")
	b.fail("send", "--from", "x", "--to", "p:b", "--subject", "x")
	b.fail("read", "p:a", "--fields", "nope")
	b.fail("ack", "p:a", "nope")
	// Non-ASCII in the message is escaped as Python's json.dumps does.
	r := b.run("read", "é:a")
	eq(t, "stderr", r.stderr, `{"error": "Invalid agent identity: '\u00e9:a'. Must be project:name format (e.g. claudefana:deploy)."}`+"\n")
	eq(t, "code", r.code, 1)
}

func TestAC44_OpportunisticCleanup(t *testing.T) {
	for _, cmd := range [][]string{
		{"send", "--from", "p:a", "--to", "p:b", "--subject", "y"},
		{"read", "p:z", "--no-mark-read"},
		{"status"},
	} {
		b := newBox(t)
		b.send("p:a", "p:b", "seed") // creates the DB
		// Rows as the original's tests write them: TC9 columns only, back-dated,
		// in UTC and with another offset.
		old := time.Now().Add(-25 * time.Hour)
		b.exec(`INSERT INTO messages (id, sender, recipient, subject, body, refs, reply_to, type, ttl_hours, created)
			VALUES ('11111111-1111-4111-8111-111111111111', 'p:a', 'p:b', 'old', '', NULL, NULL, 'direct', 24, ?)`, pyISO(old.UTC()))
		b.exec(`INSERT INTO messages (id, sender, recipient, subject, created)
			VALUES ('22222222-2222-4222-8222-222222222222', 'p:a', '*', 'old', ?)`, pyISO(old.In(time.FixedZone("", 5*3600+1800))))
		b.exec(`INSERT INTO broadcast_acks (message_id, agent, read_at) VALUES ('22222222-2222-4222-8222-222222222222', 'p:q', 'x')`)
		// Not expired: 23 h old with a negative offset (its text sorts before the cutoff).
		b.exec(`INSERT INTO messages (id, sender, recipient, subject, created)
			VALUES ('33333333-3333-4333-8333-333333333333', 'p:a', 'p:b', 'young', ?)`, pyISO(time.Now().Add(-23*time.Hour).In(time.FixedZone("", -11*3600))))
		b.ok(cmd...)
		eq(t, "expired purged by "+cmd[0], b.count(`SELECT COUNT(*) FROM messages WHERE subject = 'old'`), 0)
		eq(t, "receipts purged", b.count(`SELECT COUNT(*) FROM broadcast_acks`), 0)
		eq(t, "young kept", b.count(`SELECT COUNT(*) FROM messages WHERE subject = 'young'`), 1)
	}
}

func TestAC45_UUID4AndISOTimestamps(t *testing.T) {
	b := newBox(t)
	m := b.send("p:a", "p:b", "x")
	if !uuid4Re.MatchString(m["id"].(string)) {
		t.Fatalf("id %q", m["id"])
	}
	if !isoRe.MatchString(m["created"].(string)) || !strings.HasSuffix(m["created"].(string), "+00:00") {
		t.Fatalf("created %q", m["created"])
	}
	l := b.list("read", "p:b")
	eq(t, "created round trip", l[0]["created"].(string), m["created"].(string))
	a := b.obj("ack", "p:b", m["id"].(string))
	if !isoRe.MatchString(a["acked_at"].(string)) {
		t.Fatalf("acked_at %q", a["acked_at"])
	}
	// The local offset of the caller's time zone, as astimezone() gives.
	b.env["TZ"] = "Asia/Kolkata"
	m2 := b.send("p:a", "p:b", "y")
	if !strings.HasSuffix(m2["created"].(string), "+05:30") || !isoRe.MatchString(m2["created"].(string)) {
		t.Fatalf("created %q", m2["created"])
	}
	l = b.list("read", "p:b", "--all")
	eq(t, "read shows local time", l[1]["created"].(string), m2["created"].(string))
	if !strings.HasSuffix(l[0]["read_at"].(string), "+05:30") {
		t.Fatalf("read_at %q", l[0]["read_at"])
	}
	// TC11: read_at is stored as the original wrote it, with the reader's
	// local offset (datetime.now().astimezone()), for direct messages and
	// broadcast receipts alike.
	bc := b.send("p:a", "*", "all")
	b.ok("read", "p:b")
	for _, q := range []string{
		`SELECT read_at FROM messages WHERE id = '` + m2["id"].(string) + `'`,
		`SELECT read_at FROM broadcast_acks WHERE message_id = '` + bc["id"].(string) + `' AND agent = 'p:b'`,
	} {
		if v := b.nullable(q); v == nil || !strings.HasSuffix(*v, "+05:30") || !isoRe.MatchString(*v) {
			t.Fatalf("%s: stored %v, want the local offset +05:30", q, v)
		}
	}
	// Python omits the fraction when microseconds are 0.
	b.env["BB_NOW"] = "2030-01-02T03:04:05Z"
	b.env["TZ"] = "UTC"
	eq(t, "no fraction", b.send("p:a", "p:b", "z")["created"].(string), "2030-01-02T03:04:05+00:00")
}

func TestAC46_TTLHoursIs24(t *testing.T) {
	b := newBox(t)
	b.send("p:a", "p:b", "x")
	b.send("p:a", "*", "y")
	eq(t, "ttl", b.count(`SELECT COUNT(*) FROM messages WHERE ttl_hours = 24`), 2)
	eq(t, "others", b.count(`SELECT COUNT(*) FROM messages WHERE ttl_hours IS NOT 24`), 0)
}
