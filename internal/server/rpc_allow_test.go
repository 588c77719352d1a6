package server_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub/agentmail"
	"github.com/blackboard-hub/bb/internal/hub/credentials"
)

// A credential allowed to send mail as its own agent cannot make the
// server read one of its files into the mail: the core opens no file for
// a caller, so the body is what the caller sent (the agent-mail CLI reads
// --body-file on its own machine). The old form, a path, is refused.
func TestRPCMailNeverReadsTheServersFiles(t *testing.T) {
	e := newEnv(t, withToken("operator-0123456789abcdef"))
	secret := filepath.Join(t.TempDir(), "server-secret.txt")
	if err := os.WriteFile(secret, []byte("the server's private key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	nc, err := e.svc.CreateCredential(ctx, credentials.Input{Agent: "proj:alice"})
	if err != nil {
		t.Fatal(err)
	}
	e.token = nc.Token
	// The reproduction of issue 38: BodyFile as a path on the server.
	status, env := e.do(req{method: "POST", path: "/api/v1/rpc/SendAgentMail",
		body: `[{"From":"proj:alice","To":"proj:bob","Subject":"hi","BodyFile":"` + secret + `"}]`})
	if status != http.StatusBadRequest || env.Error == nil || env.Error.Code != "INVALID_INPUT" {
		t.Fatalf("a path as BodyFile: %d %+v", status, env.Error)
	}
	if strings.Contains(env.Error.Message, "private key") {
		t.Fatalf("the refusal shows the file: %s", env.Error.Message)
	}
	// The new form names a path but carries the content: the server uses
	// the content it was given and never the file.
	status, env = e.do(req{method: "POST", path: "/api/v1/rpc/SendAgentMail",
		body: `[{"From":"proj:alice","To":"proj:bob","Subject":"hi","BodyFile":{"Path":"` + secret + `","Content":"mine"}}]`})
	if status != http.StatusOK {
		t.Fatalf("send: %d %+v", status, env.Error)
	}
	e.token = "operator-0123456789abcdef"
	rows, err := e.svc.ReadAgentMail(ctx, agentmail.MailReadInput{Agent: "proj:bob", Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Body != "mine" {
		t.Fatalf("bob's mail: %+v", rows)
	}
}

// The RPC door refuses a method outside the credential's role before it
// runs (nothing written), and does not serve the methods listed as not
// served.
func TestRPCRefusesByRoleAndServesOnlyTheList(t *testing.T) {
	e := newEnv(t, withToken("operator-0123456789abcdef"))
	ctx := context.Background()
	nc, err := e.svc.CreateCredential(ctx, credentials.Input{Agent: "mallory"})
	if err != nil {
		t.Fatal(err)
	}
	before, err := e.svc.LatestEventSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.token = nc.Token
	for _, c := range []struct{ method, body string }{
		{"CreateCredential", `[{"Agent":"mallory-2","Role":"operator"}]`},
		{"SetConfig", `["mallory","hooks.edit_check","off"]`},
		{"Export", `[]`},
		{"StepIn", `[{}]`},
		{"ReassignItem", `[{}]`},
	} {
		status, env := e.do(req{method: "POST", path: "/api/v1/rpc/" + c.method, body: c.body})
		if status != http.StatusForbidden || env.Error == nil || env.Error.Code != "FORBIDDEN" {
			t.Errorf("%s as an agent: %d %+v", c.method, status, env.Error)
		}
	}
	for _, m := range []string{"Authenticate", "SessionByClientPID", "ClaimRepository", "Root", "NoSuchMethod"} {
		status, env := e.do(req{method: "POST", path: "/api/v1/rpc/" + m, body: `[]`})
		if status != http.StatusNotFound || env.Error == nil || env.Error.Code != "NOT_FOUND" {
			t.Errorf("%s: %d %+v", m, status, env.Error)
		}
	}
	e.token = "operator-0123456789abcdef"
	after, err := e.svc.LatestEventSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("refused calls wrote events: seq %d -> %d", before, after)
	}
}
