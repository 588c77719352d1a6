package hub

import "context"

// SetWhereTx records where agent works when its session says something new
// (nothing is written when w is empty or unchanged, or the agent does not
// exist).
func SetWhereTx(ctx context.Context, tx Tx, agent string, w Where) error {
	w = CleanWhere(w)
	if w.IsZero() {
		return nil
	}
	a, err := tx.GetAgent(ctx, agent)
	if err != nil || a == nil || a.Where == w {
		return err
	}
	a.Where = w
	return tx.PutAgent(ctx, a)
}

// ReportWhere records the work tree, branch and host an agent's session
// works in (bb agent register/init, bb mcp); the hooks record it with the
// session itself. Shown by bb status, bb agent list/show, the session
// brief, the edit check's denials and the dashboard.
func (s *Service) ReportWhere(ctx context.Context, agent string, w Where) error {
	if err := ValidateStoredAgentID(agent); err != nil {
		return err
	}
	// Where an agent works is its own to say (every view and edit denial
	// sends others there): the operator alone may say it for another.
	if err := Allow(ctx, Act(agent)); err != nil {
		return err
	}
	o, err := Authorize(ctx, Target{Thing: ThingLocation, Verb: VerbWrite, Owner: agent, Name: "the location"})
	if err != nil {
		return err
	}
	if CleanWhere(w).IsZero() {
		return nil
	}
	cur, err := Read(ctx, s, func(tx Tx) (*Agent, error) { return tx.GetAgent(ctx, agent) })
	if err != nil || cur == nil || cur.Where == CleanWhere(w) {
		return err
	}
	return s.store.Write(ctx, func(tx Tx) error {
		if err := SetWhereTx(ctx, tx, agent, w); err != nil {
			return err
		}
		return s.OverrideEventTx(ctx, tx, o, agent)
	})
}
