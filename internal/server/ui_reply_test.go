package server_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// The dashboard replies like bb agent reply (issue 24): a message addressed
// to the person shows a Reply form; the reply goes to its sender on the
// same work item and thread, linked to it (in_reply_to).
func TestDashboardReply(t *testing.T) {
	e := newEnv(t)
	run(t, e.dir, "agent", "register", "--name", "cobalt-harbor", "--role", "reviewer")
	run(t, e.dir, "agent", "register", "--name", "ada-human", "--role", "human")
	var sent struct {
		Data struct {
			MessageID string `json:"message_id"`
		} `json:"data"`
	}
	out := run(t, e.dir, "--json", "agent", "send", "--from", "cobalt-harbor", "--to", "ada-human", "--bead", "bb-7",
		"--category", "INFO", "--subject", "Lexer merged", "--body", "Anything else?")
	if err := json.Unmarshal([]byte(out), &sent); err != nil {
		t.Fatal(err)
	}
	cookie := "bb_human=ada-human"
	_, tl := e.html("GET", "/ui/timeline?session=bead%3Abb-7", nil, cookie)
	if !strings.Contains(tl, `hx-post="/ui/answer/`+sent.Data.MessageID+`"`) || !strings.Contains(tl, "Reply to cobalt-harbor") {
		t.Fatalf("no reply form on mail to the person:\n%s", tl)
	}
	code, body := e.html("POST", "/ui/answer/"+sent.Data.MessageID, url.Values{"session": {"bead:bb-7"}, "content": {"Nothing, thanks."}}, cookie)
	if code != 200 || !strings.Contains(body, "Nothing, thanks.") {
		t.Fatalf("reply: %d %s", code, body)
	}
	var inbox struct {
		Data []struct {
			FromAgent string `json:"from_agent"`
			BeadID    string `json:"bead_id"`
			ThreadID  string `json:"thread_id"`
			Category  string `json:"category"`
			Subject   string `json:"subject"`
			InReplyTo string `json:"in_reply_to"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(run(t, e.dir, "--json", "agent", "inbox", "--agent", "cobalt-harbor")), &inbox); err != nil {
		t.Fatal(err)
	}
	if len(inbox.Data) != 1 {
		t.Fatalf("cobalt-harbor's inbox: %+v", inbox.Data)
	}
	if m := inbox.Data[0]; m.FromAgent != "ada-human" || m.BeadID != "bb-7" || m.ThreadID != "bead:bb-7" || m.Category != "INFO" ||
		m.Subject != "Re: Lexer merged" || m.InReplyTo != sent.Data.MessageID {
		t.Fatalf("reply: %+v", m)
	}
	// A refused reply (nothing written) shows its reason.
	if code, body := e.html("POST", "/ui/answer/"+sent.Data.MessageID, url.Values{"content": {" "}}, cookie); code == 200 || !strings.Contains(body, "Write the answer first") {
		t.Fatalf("empty reply: %d %s", code, body)
	}
}
