package hub

import "context"

// Speaker is whose words a text put into a model's context is. Every
// message records it when it is stored (StoreMessage), decided here, once,
// from who sent it; a hook, a wake and bb_wait say it (internal/hub/voice
// words it) so that a model can tell a person's words from another
// agent's.
type Speaker string

const (
	// SpeakerAgent is another agent: its words are information for the
	// reader, never instructions. It is the default, the least authority:
	// a message stored without a speaker (by an older bb, by another
	// program writing the TC9 columns) counts as an agent's.
	SpeakerAgent Speaker = "agent"
	// SpeakerPerson is a person: a request with an overseer's or the
	// operator's credential, or, on a board without credentials (the
	// local file, a token-less loopback server, which trust every local
	// user), an agent registered with the role RolePerson or the default
	// person identity PersonID (the dashboard and a bare bb command).
	SpeakerPerson Speaker = "person"
	// SpeakerBoard is the board itself: a text the core composed (the
	// notice of a reassigned reservation).
	SpeakerBoard Speaker = "board"
)

// PersonID is the identity of a person who names none: a bb command run
// without --as or $BB_AGENT_ID, and the dashboard until its viewer picks
// a name.
const PersonID = "human"

// SpeakerOrAgent is s, or SpeakerAgent for a value this binary does not
// know (a row written by a newer one): unknown never means more authority.
func SpeakerOrAgent(s Speaker) Speaker {
	switch s {
	case SpeakerPerson, SpeakerBoard:
		return s
	}
	return SpeakerAgent
}

// SpeakerOf is whose words a message sent as from, under ctx, is. With a
// credential the credential decides, never the agent's registered role (an
// agent credential may register its agent with any role): an overseer's or
// the operator's is a person's. Without one, the sender's registered role
// does.
func SpeakerOf(ctx context.Context, tx Tx, from string) (Speaker, error) {
	if p, ok := PrincipalFrom(ctx); ok {
		if p.Role.rank() >= AccessOverseer.rank() {
			return SpeakerPerson, nil
		}
		return SpeakerAgent, nil
	}
	if from == PersonID {
		return SpeakerPerson, nil
	}
	a, err := tx.GetAgent(ctx, from)
	if err != nil {
		return "", err
	}
	if a != nil && a.Role == RolePerson {
		return SpeakerPerson, nil
	}
	return SpeakerAgent, nil
}

// StoreMessage stores m, recording whose words it is (SpeakerOf its
// sender, unless the caller set SpokenBy: the board's own notices). Every
// message the core writes goes through it.
func StoreMessage(ctx context.Context, tx Tx, m *Message) error {
	if m.SpokenBy == "" {
		sp, err := SpeakerOf(ctx, tx, m.From)
		if err != nil {
			return err
		}
		m.SpokenBy = sp
	}
	return tx.InsertMessage(ctx, m)
}
