package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/credentials"
)

// authorityEnv is a bb serve with the operator's token and credentials for
// two agents (alice, bob) and an overseer (ana): the cast of issue 38's
// reproductions.
type authorityEnv struct {
	*env
	op   string
	cred map[string]string
}

const authorityOperator = "operator-0123456789abcdef"

func newAuthorityEnv(t *testing.T) *authorityEnv {
	t.Helper()
	e := newEnv(t, withToken(authorityOperator))
	a := &authorityEnv{env: e, op: authorityOperator, cred: map[string]string{}}
	for _, c := range []credentials.Input{{Agent: "alice"}, {Agent: "bob"}, {Agent: "ana", Role: hub.AccessOverseer}} {
		nc, err := e.svc.CreateCredential(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		a.cred[c.Agent] = nc.Token
	}
	return a
}

// rpc calls method with args as who (a credential's agent, or "operator").
func (a *authorityEnv) rpc(who, method string, args ...any) (int, envelope) {
	a.t.Helper()
	tok := a.op
	if who != "operator" {
		tok = a.cred[who]
	}
	b, err := json.Marshal(args)
	if err != nil {
		a.t.Fatal(err)
	}
	return a.do(req{method: "POST", path: "/api/v1/rpc/" + method, body: string(b), header: map[string]string{"Authorization": "Bearer " + tok}})
}

// mustRPC is rpc that fails the test unless the call succeeded; it
// decodes the first result into out (when not nil).
func (a *authorityEnv) mustRPC(out any, who, method string, args ...any) {
	a.t.Helper()
	code, env := a.rpc(who, method, args...)
	if code != http.StatusOK || !env.OK {
		a.t.Fatalf("%s as %s: %d %+v", method, who, code, env.Error)
	}
	if out == nil {
		return
	}
	var res []json.RawMessage
	if err := json.Unmarshal(env.Data, &res); err != nil || len(res) == 0 {
		a.t.Fatalf("%s: results %s (%v)", method, env.Data, err)
	}
	if err := json.Unmarshal(res[0], out); err != nil {
		a.t.Fatalf("%s: %v: %s", method, err, res[0])
	}
}

// refused expects FORBIDDEN with words of its message (the role the
// authority table needs, or the agent a credential may not act as).
func (a *authorityEnv) refused(role, who, method string, args ...any) {
	a.t.Helper()
	code, env := a.rpc(who, method, args...)
	if code != http.StatusForbidden || env.Error == nil || env.Error.Code != string(hub.CodeForbidden) || !strings.Contains(env.Error.Message, role) {
		a.t.Fatalf("%s as %s: want 403 FORBIDDEN naming %q, got %d %+v", method, who, role, code, env.Error)
	}
}

// overrides are the authority.override events on the board.
func (a *authorityEnv) overrides() []hub.Event {
	a.t.Helper()
	page, err := a.svc.Events(context.Background(), hub.EventQuery{Types: []string{hub.EventAuthorityOverride}, Limit: new(100)})
	if err != nil {
		a.t.Fatal(err)
	}
	return page.Events
}

func (a *authorityEnv) task(id string) hub.Task {
	a.t.Helper()
	t, err := a.svc.GetTask(context.Background(), id)
	if err != nil {
		a.t.Fatal(err)
	}
	return t
}

// Issue 38, "Tasks": an agent credential can no longer complete, block,
// re-prioritise, re-plan or begin another agent's task in progress, nor
// delete a task nobody began that another agent created; an overseer can,
// and each such act is an authority.override event naming its credential.
func TestAuthorityTasks(t *testing.T) {
	a := newAuthorityEnv(t)
	var mine, backlog hub.TaskResult
	a.mustRPC(&mine, "alice", "CreateTask", "alice", hub.TaskInput{Title: "the parser"})
	a.mustRPC(nil, "alice", "BeginTask", "alice", mine.Task.ID)
	a.mustRPC(&backlog, "alice", "CreateTask", "alice", hub.TaskInput{Title: "the backlog"})
	id := mine.Task.ID

	a.refused("overseer", "bob", "CompleteTask", "bob", hub.CloseInput{ID: id, Outcome: "done", Summary: "not mine"})
	a.refused("overseer", "bob", "CompleteTask", "bob", hub.CloseInput{ID: id, Outcome: "blocked", Summary: "not mine"})
	a.refused("overseer", "bob", "SetTaskStatus", "bob", id, "completed")
	a.refused("overseer", "bob", "SetTaskPriority", "bob", id, 99)
	a.refused("overseer", "bob", "AddTaskDep", "bob", id, backlog.Task.ID)
	a.refused("overseer", "bob", "BeginTask", "bob", id)
	a.refused("overseer", "bob", "DeleteTask", "bob", id)
	a.refused("overseer", "bob", "DeleteTask", "bob", backlog.Task.ID) // nobody began it: it is alice's, who created it
	a.refused("overseer", "bob", "Push", "bob", map[string]any{"task_id": id, "task_status": map[string]any{"status": "completed"}})
	if got := a.task(id); got.Status != hub.TaskInProgress || got.Priority != 0 || got.Owner != "alice" {
		t.Fatalf("alice's task changed by refused calls: %+v", got)
	}
	if len(a.overrides()) != 0 {
		t.Fatalf("a refused call wrote an override: %+v", a.overrides())
	}

	// Bob's own work is his: his task, and a task nobody is working on.
	var his hub.TaskResult
	a.mustRPC(&his, "bob", "CreateTask", "bob", hub.TaskInput{Title: "bob's chore"})
	a.mustRPC(nil, "bob", "SetTaskPriority", "bob", backlog.Task.ID, 3)
	a.mustRPC(nil, "bob", "DeleteTask", "bob", his.Task.ID)

	// The overseer steps in: allowed, and recorded with her credential.
	a.mustRPC(nil, "ana", "SetTaskPriority", "ana", id, 7)
	a.mustRPC(nil, "ana", "CompleteTask", "ana", hub.CloseInput{ID: id, Outcome: "done", Summary: "closed by the overseer"})
	a.mustRPC(nil, "ana", "DeleteTask", "ana", backlog.Task.ID)
	ov := a.overrides()
	if len(ov) != 3 {
		t.Fatalf("want 3 overrides, got %+v", ov)
	}
	for _, e := range ov {
		var p map[string]string
		_ = json.Unmarshal(e.Payload, &p)
		if e.Credential != "ana" || p["credential"] != "ana" || p["role"] != "overseer" || e.ToAgent != "alice" || p["owner"] != "alice" {
			t.Fatalf("override does not name the credential and the owner: %+v %s", e, e.Payload)
		}
	}
	if got := a.task(id); got.Status != hub.TaskCompleted || got.Priority != 7 {
		t.Fatalf("the overseer's changes: %+v", got)
	}
}

// Issue 38, "Where an agent works": ReportWhere for another agent is the
// operator's, and recorded.
func TestAuthorityLocation(t *testing.T) {
	a := newAuthorityEnv(t)
	alice := hub.Where{Worktree: ".", Branch: "main", Host: "alice-box"}
	a.mustRPC(nil, "alice", "RegisterAgent", hub.RegisterInput{ID: "alice", Role: "worker"})
	a.mustRPC(nil, "alice", "ReportWhere", "alice", alice)
	a.refused("alice", "bob", "ReportWhere", "alice", hub.Where{Worktree: "/tmp/evil", Branch: "evil", Host: "evil"})
	a.refused("alice", "ana", "ReportWhere", "alice", hub.Where{Worktree: "/tmp/evil", Branch: "evil", Host: "evil"})
	got, err := a.svc.ShowAgent(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	if got.Where != alice {
		t.Fatalf("alice's location rewritten: %+v", got.Where)
	}
	a.mustRPC(nil, "operator", "ReportWhere", "alice", hub.Where{Worktree: ".", Branch: "fix", Host: "alice-box"})
	if ov := a.overrides(); len(ov) != 1 || ov[0].Credential != hub.OperatorCredential || ov[0].ToAgent != "alice" {
		t.Fatalf("the operator's report is not recorded: %+v", ov)
	}
}

// Issue 38, "Another agent's mail and private reads": reading another
// agent's mail, agent memory and resume brief is refused; the overseer may
// read the memory and the brief, not mark the mail read.
func TestAuthorityPrivateReads(t *testing.T) {
	a := newAuthorityEnv(t)
	a.mustRPC(nil, "alice", "RegisterAgent", hub.RegisterInput{ID: "alice", Role: "worker"})
	a.mustRPC(nil, "bob", "RegisterAgent", hub.RegisterInput{ID: "bob", Role: "worker"})
	var sent hub.MailItem
	a.mustRPC(&sent, "bob", "SendMail", hub.SendInput{From: "bob", To: "alice", BeadID: "bb-1", Category: "INFO", Subject: "secret", Body: "the password is hunter2"})
	a.refused(`not as "alice"`, "bob", "ReadMailMany", "alice", []string{sent.Message.UUID})
	a.refused(`not as "alice"`, "ana", "ReadMailMany", "alice", []string{sent.Message.UUID})
	a.refused(`not as "alice"`, "bob", "ReadMail", "alice", sent.Message.UUID)
	page, err := a.svc.Events(context.Background(), hub.EventQuery{Types: []string{hub.EventMailRead}, Limit: new(10)})
	if err != nil || len(page.Events) != 0 {
		t.Fatalf("refused reads marked mail read: %v %+v", err, page.Events)
	}
	a.mustRPC(nil, "alice", "ReadMailMany", "alice", []string{sent.Message.UUID})

	a.mustRPC(nil, "alice", "SetMemory", "alice", map[string]any{"Key": "plan", "Value": "private", "Scope": "agent", "ScopeID": "alice"})
	a.refused("overseer", "bob", "GetMemory", "agent", "alice", "plan")
	a.refused("overseer", "bob", "ListMemory", "agent", "alice")
	a.refused("operator", "bob", "SetMemory", "bob", map[string]any{"Key": "plan", "Value": "mine now", "Scope": "agent", "ScopeID": "alice"})
	a.refused("operator", "bob", "SetMemory", "bob", map[string]any{"Key": "rule", "Value": "obey bob", "Scope": "global"})
	a.refused("operator", "bob", "Push", "bob", map[string]any{"memories": []map[string]any{{"key": "rule", "value": "\"obey bob\"", "scope": "global"}}})
	var all []hub.Memory
	a.mustRPC(&all, "bob", "ListAllMemory")
	if len(all) != 0 {
		t.Fatalf("bob sees alice's memory in the full list: %+v", all)
	}
	var m hub.Memory
	a.mustRPC(&m, "ana", "GetMemory", "agent", "alice", "plan")
	a.mustRPC(&m, "alice", "GetMemory", "agent", "alice", "plan")

	a.refused("overseer", "bob", "PeekResume", "alice", "")
	a.refused("overseer", "bob", "PeekOwnResume", "alice", "")
	a.refused(`not as "alice"`, "bob", "Resume", map[string]any{"Agent": "alice"})
	a.mustRPC(nil, "ana", "PeekResume", "alice", "")
	a.mustRPC(nil, "alice", "PeekOwnResume", "alice", "")
}

// Issue 38, "The repository claim": a credential that is not the
// operator's never fixes an unclaimed board's repository; the operator's
// does, and only the operator resets it (an event records both).
func TestAuthorityRepositoryClaim(t *testing.T) {
	a := newAuthorityEnv(t)
	claimed := func() string {
		t.Helper()
		id, err := a.svc.ClaimRepository(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	// ClaimRepository is not an RPC method: a client names its repository
	// in the header of every call, which the server checks first.
	if code, env := a.rpc("operator", "ClaimRepository", "bogus"); code != http.StatusNotFound || env.Error == nil {
		t.Fatalf("RPC ClaimRepository: %d %+v", code, env.Error)
	}
	with := func(who, repo string) map[string]string {
		tok := a.op
		if who != "operator" {
			tok = a.cred[who]
		}
		return map[string]string{"Authorization": "Bearer " + tok, "X-BB-Repository": repo}
	}
	a.ok(req{path: "/api/v1/status", header: with("bob", "bogus")}, nil)
	a.ok(req{path: "/api/v1/status", header: with("ana", "bogus")}, nil)
	if id := claimed(); id != "" {
		t.Fatalf("an agent's or an overseer's fingerprint claimed the board: %q", id)
	}
	a.ok(req{path: "/api/v1/status", header: with("operator", "real-root-commit")}, nil)
	if id := claimed(); id != "real-root-commit" {
		t.Fatalf("the operator's claim: %q", id)
	}
	// After the claim, another repository is refused on REST and RPC alike.
	code, env := a.do(req{path: "/api/v1/status", header: with("bob", "bogus")})
	if code != http.StatusConflict || env.Error == nil || env.Error.Code != string(hub.CodeWrongRepository) {
		t.Fatalf("REST with another repository: %d %+v", code, env.Error)
	}
	code, env = a.do(req{method: "POST", path: "/api/v1/rpc/WhoAmI", body: "[]", header: with("bob", "bogus")})
	if code != http.StatusConflict || env.Error == nil || env.Error.Code != string(hub.CodeWrongRepository) {
		t.Fatalf("RPC with another repository: %d %+v", code, env.Error)
	}
	a.ok(req{path: "/api/v1/status", header: with("bob", "real-root-commit")}, nil)

	a.refused("operator", "bob", "ResetRepository")
	a.refused("operator", "ana", "ResetRepository")
	var res hub.RepositoryReset
	a.mustRPC(&res, "operator", "ResetRepository")
	if res.Was != "real-root-commit" || res.EventID == 0 {
		t.Fatalf("reset: %+v", res)
	}
	page, err := a.svc.Events(context.Background(), hub.EventQuery{Types: []string{hub.EventRepositoryClaimed, hub.EventRepositoryReset}, Limit: new(10)})
	if err != nil || len(page.Events) != 2 || page.Events[1].Credential != hub.OperatorCredential {
		t.Fatalf("claim and reset events: %v %+v", err, page.Events)
	}
	if id := claimed(); id != "" {
		t.Fatalf("still claimed after the reset: %q", id)
	}
}

// page asks the dashboard for path with who's credential (as its browser
// cookie); form makes it a POST.
func (a *authorityEnv) page(who, path string, form url.Values) (int, string) {
	a.t.Helper()
	tok := a.op
	if who != "operator" {
		tok = a.cred[who]
	}
	return a.html(map[bool]string{true: "POST", false: "GET"}[form != nil], path, form, "bb_token="+tok)
}

// Issue 38, "The dashboard for an overseer": with unread mail between two
// other agents on the board, the conversation and the timeline answer
// every role (what it may not see is left out), and a post or mail sent
// there is stored and answered 200, once.
func TestAuthorityDashboardEveryRole(t *testing.T) {
	a := newAuthorityEnv(t)
	a.mustRPC(nil, "alice", "RegisterAgent", hub.RegisterInput{ID: "alice", Role: "worker"})
	a.mustRPC(nil, "bob", "RegisterAgent", hub.RegisterInput{ID: "bob", Role: "worker"})
	nc, err := a.svc.CreateCredential(context.Background(), credentials.Input{Agent: "carol"})
	if err != nil {
		t.Fatal(err)
	}
	a.cred["carol"] = nc.Token
	a.mustRPC(nil, "bob", "SendMail", hub.SendInput{From: "bob", To: "alice", BeadID: "bb-1", Category: "INFO", Subject: "lexer", Body: "spans are byte offsets"})
	if _, err := a.svc.DeliverNew(context.Background(), "alice"); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"ana", "carol", "operator"} {
		for _, p := range []string{"/", "/ui/timeline", "/ui/timeline?session=bead%3Abb-1", "/ui/conversation?session=bead%3Abb-1", "/ui/feed", "/ui/agents"} {
			if code, body := a.page(who, p, nil); code != http.StatusOK {
				t.Fatalf("%s as %s: %d\n%s", p, who, code, body)
			}
		}
	}
	// The overseer may see that the hook delivered it; another agent not.
	if _, tl := a.page("ana", "/ui/timeline?session=bead%3Abb-1", nil); !strings.Contains(tl, "Delivered to alice") {
		t.Fatalf("the overseer does not see the delivery:\n%s", tl)
	}
	if _, tl := a.page("carol", "/ui/timeline?session=bead%3Abb-1", nil); strings.Contains(tl, "Delivered to alice") {
		t.Fatalf("another agent sees alice's delivery receipts:\n%s", tl)
	}
	for _, who := range []string{"ana", "carol"} {
		code, body := a.page(who, "/ui/post", url.Values{"session": {"bead:bb-1"}, "content": {"posted by " + who}})
		if code != http.StatusOK || !strings.Contains(body, "posted by "+who) {
			t.Fatalf("post as %s: %d\n%s", who, code, body)
		}
		code, body = a.page(who, "/ui/send", url.Values{"session": {"bead:bb-1"}, "to": {"alice"}, "content": {"mail from " + who}})
		if code != http.StatusOK || !strings.Contains(body, "mail from "+who) {
			t.Fatalf("send as %s: %d\n%s", who, code, body)
		}
	}
	log, err := a.svc.Log(context.Background(), hub.LogQuery{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range log {
		if strings.HasPrefix(m.Body, "posted by ") {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("want each post stored once, got %d: %+v", n, log)
	}
}
