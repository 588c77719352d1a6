package leases

import (
	"context"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// mayEnd is the one rule of who may end or hand over another agent's
// grant: a person (an agent of role hub.RolePerson, or a credential with
// the overseer's rights: hub.Allow decides the credential's part), and
// only once the grant is past the takeover threshold (its holder stale or
// offline, or it expired: hub.TakeoverAllowed). The holder itself always
// may (the caller checks that first). It is the lease row of the
// authority table.
func mayEnd(ctx context.Context, tx hub.Tx, person string, h Holder, stale int, now time.Time) error {
	if err := hub.Allow(ctx, hub.Act(person), hub.Needs(hub.AccessOverseer, "releasing or handing over another agent's lease")); err != nil {
		return err
	}
	p, err := hub.RequireAgent(ctx, tx, person, hub.CodeAgentNotFound, "agent")
	if err != nil {
		return err
	}
	if p.Role != hub.RolePerson && !hub.CredentialIsPerson(ctx) {
		return hub.FieldErr(hub.CodeReleaseForbidden, "holder", "%s is held by %s, not %s: only its holder, or a person (an agent of role %s), may release it", h.Name, h.Agent, person, hub.RolePerson)
	}
	if !h.Takeover {
		return hub.FieldErr(hub.CodeReleaseForbidden, "holder", "%s is %s and holds %s (it expires %s): a person may release or hand it over only once its holder is stale or offline (%d minutes without a sign of life) or it expired; ask %s to release it, or wait for it to expire", h.Agent, h.Presence, h.Name, hub.WhenText(now, h.ExpiresAt), stale, h.Agent)
	}
	return nil
}
