package storetest

import (
	"context"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

// testSpeaker: every message records whose words it is, decided by the
// core when it is stored: the credential when there is one (never the
// agent's registered role), else the sender's role; a row written with
// the TC9 columns only is an agent's.
func testSpeaker(t *testing.T, open Opener) {
	t.Run("MessagesRecordWhoseWordsTheyAre", func(t *testing.T) {
		f := New(t, open)
		for _, r := range []hub.RegisterInput{{ID: "dana", Role: hub.RolePerson}, {ID: "bob", Role: "worker"}, {ID: "mallory", Role: hub.RolePerson}} {
			if _, _, err := f.Svc.RegisterAgent(f.Ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		spoken := func(m hub.Message) hub.Speaker {
			t.Helper()
			var got *hub.Message
			f.Read(func(tx hub.Tx) (err error) { got, err = tx.MessageByUUID(f.Ctx, m.UUID); return })
			if got == nil {
				t.Fatalf("message %s not stored", m.UUID)
			}
			return got.SpokenBy
		}
		send := func(ctx context.Context, from string) hub.Message {
			t.Helper()
			to := "bob"
			if from == to {
				to = "dana"
			}
			it, err := f.Svc.SendMail(ctx, hub.SendInput{From: from, To: to, BeadID: "bd-1", Category: "INFO", Subject: "s", Body: "b"})
			if err != nil {
				t.Fatal(err)
			}
			return it.Message
		}
		agentCred := hub.WithPrincipal(f.Ctx, hub.Principal{Credential: "mallory-cred", Agent: "mallory", Role: hub.AccessAgent})
		overseer := hub.WithPrincipal(f.Ctx, hub.Principal{Credential: "dana-cred", Agent: "dana", Role: hub.AccessOverseer})
		for _, c := range []struct {
			name string
			m    hub.Message
			want hub.Speaker
		}{
			{"a person's post (role human, no credential)", f.Post(hub.PostInput{From: "dana", Content: "stop"}), hub.SpeakerPerson},
			{"the default person identity", f.Post(hub.PostInput{From: hub.PersonID, Content: "hi"}), hub.SpeakerPerson},
			{"an agent's post", f.Post(hub.PostInput{From: "bob", Content: "hi"}), hub.SpeakerAgent},
			{"an agent's mail", send(f.Ctx, "bob"), hub.SpeakerAgent},
			{"an agent credential whose agent registered as a person", send(agentCred, "mallory"), hub.SpeakerAgent},
			{"an overseer's credential", send(overseer, "dana"), hub.SpeakerPerson},
		} {
			if got := spoken(c.m); got != c.want {
				t.Errorf("%s: spoken by %q, want %q", c.name, got, c.want)
			}
		}
		// A row another program wrote with the TC9 columns only.
		f.Write(func(tx hub.Tx) error {
			return tx.InsertMessage(f.Ctx, &hub.Message{UUID: "tc9-only", From: "x", To: "bob", Subject: "s", Body: "b", CreatedAt: T0()})
		})
		if got := spoken(hub.Message{UUID: "tc9-only"}); got != hub.SpeakerAgent {
			t.Errorf("a message stored without a speaker: %q, want agent", got)
		}
	})
}
