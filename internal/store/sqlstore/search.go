package sqlstore

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

// searchSource is one searchable table: how to match it, what to return,
// and how the agent and since filters read on it.
type searchSource struct {
	kind string
	// fts5 is the SQLite FTS5 table and the join from it to the row (m);
	// rowid names the row's key the index holds.
	fts5, join string
	// doc is the indexed expression of PostgreSQL (see 008_search.sql).
	doc   string
	table string
	// cols are key, seq, scope, scope_id, title, body, agent, to_agent, at.
	cols  string
	agent string // a condition with one '?' per agentArgs
	nArgs int
	at    string
	extra string // always applied (unexpired memory), one '?' for now
}

var searchSources = []searchSource{
	{kind: hub.SearchMessage, fts5: "messages_fts", table: "messages", join: "m.seq = f.rowid",
		doc:   "bb_search_doc(m.subject, m.body)",
		cols:  "m.id, m.seq, '', '', m.subject, m.body, m.sender, m.recipient, m.created",
		agent: "(m.sender = ? OR m.recipient = ?)", nArgs: 2, at: "m.created"},
	{kind: hub.SearchTask, fts5: "tasks_fts", table: "tasks", join: "m.id = f.id",
		doc:   "bb_search_doc(m.title, m.description)",
		cols:  "m.id, 0, '', '', m.title, m.description, m.owner, '', m.updated_at",
		agent: "m.owner = ?", nArgs: 1, at: "m.updated_at"},
	{kind: hub.SearchMemory, fts5: "memory_fts", table: "memory", join: "m.id = f.rowid",
		doc:   "bb_search_doc(m.key, m.value)",
		cols:  "m.key, 0, m.scope, m.scope_id, m.key, m.value, CASE WHEN m.scope = 'agent' THEN m.scope_id ELSE '' END, '', m.updated_at",
		agent: "(m.scope = 'agent' AND m.scope_id = ?)", nArgs: 1, at: "m.updated_at",
		extra: "(m.expires_at IS NULL OR m.expires_at > ?)"},
	{kind: hub.SearchArtifact, fts5: "artifacts_fts", table: "artifacts", join: "m.id = f.rowid",
		doc:   "bb_search_doc(m.path, m.description)",
		cols:  "m.path, 0, '', '', m.path, m.description, m.produced_by, '', m.updated_at",
		agent: "m.produced_by = ?", nArgs: 1, at: "m.updated_at"},
}

// Search runs one ranked query over every requested kind: each kind's best
// q.Limit matches, merged by score. The first field of each kind (subject,
// title, key, path) weighs more than the second.
func (t *tx) Search(ctx context.Context, q hub.SearchTerms) ([]hub.SearchRow, error) {
	pg := t.d.Dollar
	match := fts5Query(q.Terms)
	if pg {
		match = tsQuery(q.Terms)
	}
	var parts []string
	var args []any
	for _, src := range searchSources {
		if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, src.kind) {
			continue
		}
		var where []string
		var wargs []any
		if q.Agent != "" {
			where = append(where, src.agent)
			for i := 0; i < src.nArgs; i++ {
				wargs = append(wargs, q.Agent)
			}
		}
		if !q.Since.IsZero() {
			where = append(where, src.at+" >= ?")
			wargs = append(wargs, ts(q.Since))
		}
		if src.extra != "" {
			where = append(where, src.extra)
			wargs = append(wargs, ts(q.Now))
		}
		cond := ""
		if len(where) > 0 {
			cond = " AND " + strings.Join(where, " AND ")
		}
		sel := "SELECT CAST('" + src.kind + "' AS TEXT) AS kind, " + src.cols + ", "
		var part string
		if pg {
			part = sel + "ts_rank(" + src.doc + ", q) AS score FROM " + src.table + " m, to_tsquery('simple', ?) q WHERE " +
				src.doc + " @@ q" + cond + " ORDER BY score DESC LIMIT ?"
			args = append(args, match)
			args = append(args, wargs...)
		} else if cond == "" {
			// No filter: the newest searchWindow matches (FTS5 walks its
			// doclists newest first and stops), ranked, then joined: a
			// word a hundred thousand messages contain costs about what a
			// rarer one does.
			inner := "SELECT rowid, " + ftsKeyCol(src) + "bm25(" + src.fts5 + ", 4.0, 1.0) AS rank FROM " + src.fts5 +
				" WHERE " + src.fts5 + " MATCH ? ORDER BY rowid DESC LIMIT " + strconv.Itoa(searchWindow)
			part = sel + "-f.rank AS score FROM (SELECT * FROM (" + inner + ") ORDER BY rank LIMIT ?) f JOIN " + src.table + " m ON " + src.join
			args = append(args, match, q.Limit)
			parts = append(parts, "SELECT * FROM ("+part+") AS s"+src.kind)
			continue
		} else {
			part = sel + "-f.rank AS score FROM " + src.fts5 + " f JOIN " + src.table + " m ON " + src.join + " WHERE f." + src.fts5 +
				" MATCH ? AND f.rank MATCH 'bm25(4.0, 1.0)'" + cond + " ORDER BY f.rank LIMIT ?"
			args = append(args, match)
			args = append(args, wargs...)
		}
		args = append(args, q.Limit)
		parts = append(parts, "SELECT * FROM ("+part+") AS s"+src.kind)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	query := strings.Join(parts, " UNION ALL ") + " ORDER BY score DESC LIMIT ?"
	args = append(args, q.Limit)
	rows, err := t.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []hub.SearchRow
	for rows.Next() {
		var r hub.SearchRow
		var at string
		if err := rows.Scan(&r.Kind, &r.Key, &r.Seq, &r.Scope, &r.ScopeID, &r.Title, &r.Body, &r.Agent, &r.To, &at, &r.Score); err != nil {
			return nil, err
		}
		d := decodeRow(r.Kind, func() string { return r.Key })
		r.At = d.time("time", at)
		if err := d.Err(); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// searchWindow is how many of the newest matches of each kind SQLite
// ranks: every match when there are fewer (the usual case), the newest
// ones for a word most of a large board contains.
const searchWindow = 2000

// ftsKeyCol adds the unindexed id column of tasks_fts to the inner select.
func ftsKeyCol(src searchSource) string {
	if src.kind == hub.SearchTask {
		return "id, "
	}
	return ""
}

// fts5Query renders terms as an FTS5 query: each term a quoted phrase whose
// last word is a prefix, all terms required. Tokens hold only letters,
// digits and marks, so quoting cannot be escaped.
func fts5Query(terms []hub.SearchTerm) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(`"` + strings.Join(t.Tokens, " ") + `"*`)
	}
	return b.String()
}

// tsQuery renders terms as a PostgreSQL tsquery: each term its quoted words
// joined by <-> (followed by), the last a prefix (:*), all terms joined by &.
func tsQuery(terms []hub.SearchTerm) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" & ")
		}
		for j, tok := range t.Tokens {
			if j > 0 {
				b.WriteString(" <-> ")
			}
			b.WriteString("'" + tok + "'")
		}
		b.WriteString(":*")
	}
	return b.String()
}
