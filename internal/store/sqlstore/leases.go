package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub/leases"
)

// The lease application's port (internal/hub/leases/store.go).
var _ leases.Tx = (*tx)(nil)

const leaseCols = `name, kind, capacity, fence, queue_seq, created_at, updated_at`

func scanLeaseRecord(sc interface{ Scan(...any) error }) (*leases.Record, error) {
	var r leases.Record
	var kind, created, updated string
	if err := sc.Scan(&r.Name, &kind, &r.Capacity, &r.Fence, &r.QueueSeq, &created, &updated); err != nil {
		return nil, err
	}
	r.Kind = leases.Kind(kind)
	d := decodeRow("leases", func() string { return r.Name })
	r.CreatedAt, r.UpdatedAt = d.time("created_at", created), d.time("updated_at", updated)
	return &r, d.Err()
}

func (t *tx) LeaseRecord(ctx context.Context, name string) (*leases.Record, error) {
	r, err := scanLeaseRecord(t.row(ctx, `SELECT `+leaseCols+` FROM leases WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return r, err
}

func (t *tx) PutLeaseRecord(ctx context.Context, r *leases.Record) error {
	_, err := t.exec(ctx, `INSERT INTO leases (`+leaseCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, capacity = excluded.capacity, fence = excluded.fence,
		queue_seq = excluded.queue_seq, updated_at = excluded.updated_at`,
		r.Name, string(r.Kind), r.Capacity, r.Fence, r.QueueSeq, ts(r.CreatedAt), ts(r.UpdatedAt))
	return err
}

func (t *tx) LeaseRecords(ctx context.Context, names []string) ([]leases.Record, error) {
	out := []leases.Record{}
	scan := func(q string, args ...any) error {
		rows, err := t.query(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanLeaseRecord(rows)
			if err != nil {
				return err
			}
			out = append(out, *r)
		}
		return rows.Err()
	}
	if len(names) == 0 {
		return out, scan(`SELECT ` + leaseCols + ` FROM leases ORDER BY name`)
	}
	for n, args := range inLists(names) {
		if err := scan(`SELECT `+leaseCols+` FROM leases WHERE name IN (`+placeholders(n)+`) ORDER BY name`, args...); err != nil {
			return nil, err
		}
	}
	return out, nil
}

const holderCols = `id, name, kind, agent, fence, value, worktree, host, session, state, acquired_at, expires_at, released_at, ended_by`

func scanHolder(sc interface{ Scan(...any) error }) (*leases.Lease, error) {
	var l leases.Lease
	var kind, acquired, expires string
	var released sql.NullString
	if err := sc.Scan(&l.ID, &l.Name, &kind, &l.Agent, &l.Fence, &l.Value, &l.Worktree, &l.Host, &l.Session, &l.State,
		&acquired, &expires, &released, &l.EndedBy); err != nil {
		return nil, err
	}
	l.Kind = leases.Kind(kind)
	d := decodeRow("lease_holders", func() string { return l.ID })
	l.AcquiredAt, l.ExpiresAt = d.time("acquired_at", acquired), d.time("expires_at", expires)
	l.ReleasedAt = d.nullTime("released_at", released)
	return &l, d.Err()
}

func (t *tx) InsertHolder(ctx context.Context, l *leases.Lease) error {
	_, err := t.exec(ctx, `INSERT INTO lease_holders (`+holderCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		l.ID, l.Name, string(l.Kind), l.Agent, l.Fence, l.Value, l.Worktree, l.Host, l.Session, l.State,
		ts(l.AcquiredAt), ts(l.ExpiresAt), nullTS(l.ReleasedAt), l.EndedBy)
	return err
}

func (t *tx) UpdateHolder(ctx context.Context, l *leases.Lease) error {
	_, err := t.exec(ctx, `UPDATE lease_holders SET agent = ?, state = ?, expires_at = ?, released_at = ?, ended_by = ?,
		worktree = ?, session = ? WHERE id = ?`,
		l.Agent, l.State, ts(l.ExpiresAt), nullTS(l.ReleasedAt), l.EndedBy, l.Worktree, l.Session, l.ID)
	return err
}

func (t *tx) ActiveHolders(ctx context.Context, f leases.HolderFilter) ([]leases.Lease, error) {
	where := []string{`state = 'active'`}
	var args []any
	add := func(cond string, v any) {
		where = append(where, cond)
		args = append(args, v)
	}
	if f.Name != "" {
		add(`name = ?`, f.Name)
	}
	if f.Agent != "" {
		add(`agent = ?`, f.Agent)
	}
	if f.Kind != "" {
		add(`kind = ?`, string(f.Kind))
	}
	if f.Host != "" {
		add(`host = ?`, f.Host)
	}
	q := `SELECT ` + holderCols + ` FROM lease_holders WHERE ` + strings.Join(where, ` AND `) + ` ORDER BY acquired_at, fence`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := t.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []leases.Lease{}
	for rows.Next() {
		l, err := scanHolder(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *l)
	}
	return out, rows.Err()
}

func (t *tx) LeaseWaiters(ctx context.Context, name string) ([]leases.Waiter, error) {
	rows, err := t.query(ctx, `SELECT name, agent, seq, host, pid, since, wait_until, heard_at FROM lease_waiters WHERE name = ? ORDER BY seq`, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []leases.Waiter{}
	for rows.Next() {
		var w leases.Waiter
		var since, until, heard string
		if err := rows.Scan(&w.Name, &w.Agent, &w.Seq, &w.Host, &w.PID, &since, &until, &heard); err != nil {
			return nil, err
		}
		d := decodeRow("lease_waiters", func() string { return w.Name + "/" + w.Agent })
		w.Since, w.Until = d.time("since", since), d.time("wait_until", until)
		if w.HeardAt = w.Since; heard != "" {
			w.HeardAt = d.time("heard_at", heard)
		}
		if err := d.Err(); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

func (t *tx) PutWaiter(ctx context.Context, w *leases.Waiter) error {
	_, err := t.exec(ctx, `INSERT INTO lease_waiters (name, agent, seq, host, pid, since, wait_until, heard_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (name, agent) DO UPDATE SET host = excluded.host, pid = excluded.pid, wait_until = excluded.wait_until, heard_at = excluded.heard_at`,
		w.Name, w.Agent, w.Seq, w.Host, w.PID, ts(w.Since), ts(w.Until), ts(w.HeardAt))
	return err
}

func (t *tx) DeleteWaiter(ctx context.Context, name, agent string) error {
	_, err := t.exec(ctx, `DELETE FROM lease_waiters WHERE name = ? AND agent = ?`, name, agent)
	return err
}

func (t *tx) WaitingNames(ctx context.Context) ([]string, error) {
	rows, err := t.query(ctx, `SELECT DISTINCT name FROM lease_waiters ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
