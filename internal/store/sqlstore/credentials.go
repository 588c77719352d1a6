package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

const credentialCols = `id, name, agent, role, hash, created_by, created_at, expires_at, revoked_at`

func (t *tx) InsertCredential(ctx context.Context, c *hub.Credential) error {
	_, err := t.exec(ctx, `INSERT INTO credentials (`+credentialCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.Name, c.Agent, string(c.Role), c.Hash, c.CreatedBy, ts(c.CreatedAt), nullTS(c.ExpiresAt), nullTS(c.RevokedAt))
	return err
}

func scanCredential(sc interface{ Scan(...any) error }) (*hub.Credential, error) {
	var c hub.Credential
	var role, created string
	var expires, revoked sql.NullString
	if err := sc.Scan(&c.ID, &c.Name, &c.Agent, &role, &c.Hash, &c.CreatedBy, &created, &expires, &revoked); err != nil {
		return nil, err
	}
	c.Role = hub.Access(role)
	d := decodeRow("credentials", func() string { return c.ID })
	c.CreatedAt = d.time("created_at", created)
	c.ExpiresAt = d.nullTime("expires_at", expires)
	c.RevokedAt = d.nullTime("revoked_at", revoked)
	return &c, d.Err()
}

func (t *tx) oneCredential(ctx context.Context, where string, args ...any) (*hub.Credential, error) {
	c, err := scanCredential(t.row(ctx, `SELECT `+credentialCols+` FROM credentials WHERE `+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return c, err
}

func (t *tx) CredentialByHash(ctx context.Context, hash string) (*hub.Credential, error) {
	return t.oneCredential(ctx, `hash = ?`, hash)
}

func (t *tx) FindCredential(ctx context.Context, ref string) (*hub.Credential, error) {
	c, err := t.oneCredential(ctx, `id = ?`, ref)
	if c != nil || err != nil {
		return c, err
	}
	return t.oneCredential(ctx, `name = ?`, ref)
}

func (t *tx) ListCredentials(ctx context.Context) ([]hub.Credential, error) {
	rows, err := t.query(ctx, `SELECT `+credentialCols+` FROM credentials ORDER BY created_at, name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []hub.Credential{}
	for rows.Next() {
		c, err := scanCredential(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *c)
	}
	return out, rows.Err()
}

func (t *tx) RevokeCredential(ctx context.Context, id string, at time.Time) error {
	_, err := t.exec(ctx, `UPDATE credentials SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, ts(at), id)
	return err
}
