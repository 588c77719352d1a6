package sqlstore

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

func (t *tx) SetRefs(ctx context.Context, ownerKind, ownerID string, refs []hub.Ref) error {
	if err := t.execBlind(ctx, `DELETE FROM refs WHERE owner_kind = ? AND owner_id = ?`, ownerKind, ownerID); err != nil {
		return err
	}
	return t.insertRefs(ctx, ownerKind, ownerID, refs)
}

// insertRefs adds refs to an owner (one that has none yet: a new message).
func (t *tx) insertRefs(ctx context.Context, ownerKind, ownerID string, refs []hub.Ref) error {
	for _, r := range refs {
		if err := t.execBlind(ctx, `INSERT INTO refs (owner_kind, owner_id, ref_where, ref_what, ref_ref, numeric)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			ownerKind, ownerID, r.Where, r.What, r.Ref.Text, b2i(r.Ref.Numeric)); err != nil {
			return err
		}
	}
	return nil
}
