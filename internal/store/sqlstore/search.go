package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"sort"
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
	// newest orders the rows newest first.
	newest string
	extra  string // always applied (unexpired memory), one '?' for now
	// title is the first indexed column of fts5, which weighs more.
	title string
	// textKey: fts5 holds the row's text key as its id column (the row is
	// joined by it, not by rowid).
	textKey bool
}

// selectRow is the select list searchRows reads: the kind, cols and
// score.
func (s searchSource) selectRow(score string) string {
	return "SELECT CAST('" + s.kind + "' AS TEXT) AS kind, " + s.cols + ", " + score
}

// key is what the SQLite query takes from fts5 to join the row.
func (s searchSource) key() string {
	if s.textKey {
		return "rowid, id"
	}
	return "rowid"
}

var searchSources = []searchSource{
	{kind: hub.SearchMessage, fts5: "messages_fts", table: "messages", join: "m.seq = f.rowid",
		doc:   "bb_search_doc(m.subject, m.body)",
		cols:  "m.id, m.seq, '', '', m.subject, m.body, m.sender, m.recipient, m.created",
		agent: "(m.sender = ? OR m.recipient = ?)", nArgs: 2, at: "m.created", newest: "m.seq", title: "subject"},
	{kind: hub.SearchTask, fts5: "tasks_fts", table: "tasks", join: "m.id = f.id", textKey: true,
		doc:   "bb_search_doc(m.title, m.description)",
		cols:  "m.id, 0, '', '', m.title, m.description, m.owner, '', m.updated_at",
		agent: "m.owner = ?", nArgs: 1, at: "m.updated_at", newest: "m.updated_at", title: "title"},
	{kind: hub.SearchMemory, fts5: "memory_fts", table: "memory", join: "m.id = f.rowid",
		doc:   "bb_search_doc(m.key, m.value)",
		cols:  "m.key, 0, m.scope, m.scope_id, m.key, m.value, CASE WHEN m.scope = 'agent' THEN m.scope_id ELSE '' END, '', m.updated_at",
		agent: "(m.scope = 'agent' AND m.scope_id = ?)", nArgs: 1, at: "m.updated_at", newest: "m.updated_at",
		extra: "(m.expires_at IS NULL OR m.expires_at > ?)", title: "key"},
	{kind: hub.SearchArtifact, fts5: "artifacts_fts", table: "artifacts", join: "m.id = f.rowid",
		doc:   "bb_search_doc(m.path, m.description)",
		cols:  "m.path, 0, '', '', m.path, m.description, m.produced_by, '', m.updated_at",
		agent: "m.produced_by = ?", nArgs: 1, at: "m.updated_at", newest: "m.updated_at", title: "path"},
	// A grant of a lease: found by the lease's name, its holder and the
	// port or name it was handed (096_lease_search.sql); its key is the
	// lease's name (bb lease show), its body says who held what.
	{kind: hub.SearchLease, fts5: "lease_holders_fts", table: "lease_holders", join: "m.id = f.id", textKey: true,
		doc:   "bb_search_doc(m.name, m.agent || ' ' || m.value)",
		cols:  "m.name, 0, '', '', m.name, m.agent || ' ' || m.value || ' (' || m.kind || ', fence ' || m.fence || ', ' || m.state || ')', m.agent, '', m.acquired_at",
		agent: "m.agent = ?", nArgs: 1, at: "m.acquired_at", newest: "m.acquired_at", title: "name"},
}

// Search runs one ranked query over every requested kind, best q.Limit
// matches first. The first field of each kind (subject, title, key, path)
// weighs more than the second. Both databases rank at most a window of
// each kind's newest matches (searchWindowSize): PostgreSQL with ts_rank
// over the newest window matches of the query; SQLite as searchFTS5 says.
func (t *tx) Search(ctx context.Context, q hub.SearchTerms) ([]hub.SearchRow, error) {
	if err := t.indexMessages(ctx); err != nil {
		return nil, err
	}
	if !t.d.Dollar {
		return t.searchFTS5(ctx, q)
	}
	match := tsQuery(q.Terms)
	var parts []string
	var args []any
	for _, src := range searchSources {
		if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, src.kind) {
			continue
		}
		// The newest window matches that pass the filters, ranked: the
		// GIN index finds the matches, and only the window's words are
		// read again to rank them.
		cond, wargs := searchFilters(src, q)
		parts = append(parts, "SELECT * FROM ("+src.selectRow("ts_rank("+src.doc+", q) AS score")+" FROM (SELECT m.* FROM "+
			src.table+" m WHERE "+src.doc+" @@ to_tsquery('simple', ?)"+cond+" ORDER BY "+src.newest+" DESC LIMIT ?) m, to_tsquery('simple', ?) q ORDER BY score DESC LIMIT ?) AS s"+src.kind)
		args = append(append(append(args, match), wargs...), searchWindowSize(q), match, q.Limit)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	args = append(args, q.Limit)
	return t.searchRows(ctx, strings.Join(parts, " UNION ALL ")+" ORDER BY score DESC LIMIT ?", args...)
}

// searchFilters are the agent, since and always-applied conditions of one
// kind, each starting with " AND ", and their arguments.
func searchFilters(src searchSource, q hub.SearchTerms) (string, []any) {
	var cond string
	var args []any
	if q.Agent != "" {
		cond += " AND " + src.agent
		for i := 0; i < src.nArgs; i++ {
			args = append(args, q.Agent)
		}
	}
	if !q.Since.IsZero() {
		cond += " AND " + src.at + " >= ?"
		args = append(args, ts(q.Since))
	}
	if src.extra != "" {
		cond += " AND " + src.extra
		args = append(args, ts(q.Now))
	}
	return cond, args
}

// How much of a kind SQLite ranks itself. FTS5's bm25 reads every match
// of each word of the query, whatever the LIMIT, and a prefix is answered by
// reading every match of every word that starts so: fine for the words of
// a query that are in few rows, the usual case, ranked by FTS5 over all
// their matches. A word in more rows than searchWindow (or the number of
// results asked for, if more) is read as the whole word (FTS5 walks it
// lazily, newest first), and then only that many of the newest matches of
// the query are ranked (hub.SearchScore, the same BM25).
//
// Filters: since bounds the walk by sequence number (messages are numbered
// in the order they are written). Messages filtered by agent are found by
// walking the agent's own messages and the query's matches side by side,
// newest first (searchAgentWalk), reading at most searchWalk entries of
// both indexes together; other kinds look at most at searchScan of the
// newest matches to find the window.
const (
	searchWindow = 50
	searchScan   = 5000
	searchWalk   = 20000
)

// searchWindowSize is how many of a kind's newest matches are ranked when
// there are more: searchWindow, or the number of results asked for if more.
func searchWindowSize(q hub.SearchTerms) int { return max(searchWindow, q.Limit) }

// searchProbe is what the newest matches of one term tell: how many there
// are, up to a limit, and the sequence number of the oldest of them.
type searchProbe struct {
	n      int
	oldest int64
}

// density is the share of the rows up to top that match, as the newest
// matches tell it.
func (p searchProbe) density(top int64) float64 {
	span := top
	if p.oldest > 0 {
		span = top - p.oldest + 1
	}
	return float64(p.n) / float64(max(span, 1))
}

// searchFTS5 ranks each kind's matches (see searchWindow) and returns the
// best q.Limit of all kinds, the newest first among equals.
func (t *tx) searchFTS5(ctx context.Context, q hub.SearchTerms) ([]hub.SearchRow, error) {
	var out []hub.SearchRow
	window := searchWindowSize(q)
	for _, src := range searchSources {
		if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, src.kind) {
			continue
		}
		rows, err := t.searchKind(ctx, src, q, window)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].At.After(out[j].At)
	})
	if len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// searchKind is one kind's scored matches: all of them ranked by FTS5
// when every word is rare, else the newest window of them (the rarest
// word walked first) scored here.
func (t *tx) searchKind(ctx context.Context, src searchSource, q hub.SearchTerms, window int) ([]hub.SearchRow, error) {
	whole, probes, anyCommon, top, err := t.searchProbes(ctx, src, q, window)
	if err != nil {
		return nil, err
	}
	if top == 0 {
		return nil, nil // nothing of this kind is indexed
	}
	cond, wargs := searchFilters(src, q)
	if !anyCommon {
		return t.searchRare(ctx, src, q, cond, wargs)
	}
	// The rarest word first: FTS5 walks the first phrase of an AND and
	// seeks the others from it.
	order := make([]int, len(q.Terms))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return probes[order[a]].density(top) < probes[order[b]].density(top) })
	terms, wholes := make([]hub.SearchTerm, len(order)), make([]bool, len(order))
	for i, k := range order {
		terms[i], wholes[i] = q.Terms[k], whole[k]
	}
	match := fts5Query(terms, wholes)
	var rows []hub.SearchRow
	if src.kind == hub.SearchMessage && q.Agent != "" {
		rows, err = t.searchAgentWalk(ctx, src, q, match, window+1, top, probes[order[0]].density(top))
	} else {
		rows, err = t.searchWindowOf(ctx, src, q, match, window+1, cond, wargs)
	}
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	if len(rows) > window {
		rows = rows[:window]
	}
	return searchScored(q, rows, window, top), nil
}

// searchProbes counts each word as a whole word over its newest window+1
// matches of src (FTS5 reads them lazily), one row back: whole[i] when
// word i has more than window, anyCommon when one has, and top, the
// newest row indexed (0: none).
func (t *tx) searchProbes(ctx context.Context, src searchSource, q hub.SearchTerms, window int) (whole []bool, probes []searchProbe, anyCommon bool, top int64, err error) {
	whole = make([]bool, len(q.Terms))
	probes = make([]searchProbe, len(q.Terms))
	for i, term := range q.Terms {
		p := &probes[i]
		if err := t.row(ctx, "SELECT count(*), coalesce(min(rowid), 0), coalesce((SELECT rowid FROM "+src.fts5+" ORDER BY rowid DESC LIMIT 1), 0) FROM (SELECT rowid FROM "+
			src.fts5+" WHERE "+src.fts5+" MATCH ? ORDER BY rowid DESC LIMIT "+strconv.Itoa(window+1)+")",
			fts5Query([]hub.SearchTerm{term}, []bool{true})).Scan(&p.n, &p.oldest, &top); err != nil {
			return nil, nil, false, 0, err
		}
		whole[i] = p.n > window
		anyCommon = anyCommon || whole[i]
	}
	return whole, probes, anyCommon, top, nil
}

// searchRare is src's matches when every word has few: FTS5 ranks them
// all; the best are looked up (all of them when a filter is to be
// applied).
func (t *tx) searchRare(ctx context.Context, src searchSource, q hub.SearchTerms, cond string, wargs []any) ([]hub.SearchRow, error) {
	inner := "SELECT " + src.key() + ", bm25(" + src.fts5 + ", 4.0, 1.0) AS rank FROM " + src.fts5 + " WHERE " + src.fts5 + " MATCH ?"
	if cond == "" {
		inner += " ORDER BY rank LIMIT " + strconv.Itoa(q.Limit)
	}
	return t.searchRows(ctx, src.selectRow("-f.rank AS score")+" FROM ("+inner+") f CROSS JOIN "+
		src.table+" m ON "+src.join+" WHERE 1 = 1"+cond+" ORDER BY f.rank LIMIT ?",
		append(append([]any{fts5Query(q.Terms, nil)}, wargs...), q.Limit)...)
}

// searchScored scores a window of a kind's newest matches (the core's
// SearchScore), the words weighted by how many rows of the kind match: the
// window's rows, or, when it is full, their density over the message
// numbers they span up to top.
func searchScored(q hub.SearchTerms, rows []hub.SearchRow, window int, top int64) []hub.SearchRow {
	n := int64(min(len(rows), window))
	if len(rows) >= window {
		if last := rows[window-1].Seq; last > 0 {
			n = int64(float64(window) * float64(top) / float64(max(top-last+1, 1)))
		}
	}
	idf := hub.SearchIDF(n, top)
	docs := make([]hub.SearchDoc, len(rows))
	total := 0
	for i, r := range rows {
		docs[i] = hub.NewSearchDoc(r.Title, r.Body)
		total += docs[i].Len()
	}
	avg := float64(total) / float64(len(rows))
	out := make([]hub.SearchRow, 0, len(rows))
	for i, r := range rows {
		r.Score = hub.SearchScore(q.Terms, docs[i], idf, avg)
		out = append(out, r)
	}
	return out
}

// searchSince is the sequence number of the first message written since
// q.Since (0 without the filter); ok is false when there is none.
func (t *tx) searchSince(ctx context.Context, src searchSource, q hub.SearchTerms) (first int64, ok bool, err error) {
	if src.kind != hub.SearchMessage || q.Since.IsZero() {
		return 0, true, nil
	}
	err = t.row(ctx, "SELECT seq FROM messages"+t.indexed("idx_messages_created_seq")+" WHERE created >= ? ORDER BY created, seq LIMIT 1", ts(q.Since)).Scan(&first)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return first, err == nil, err
}

// searchWindowOf returns up to limit of the newest matches of
// match in one kind that pass the filters, newest first.
func (t *tx) searchWindowOf(ctx context.Context, src searchSource, q hub.SearchTerms, match string, limit int, cond string, wargs []any) ([]hub.SearchRow, error) {
	scan := limit
	if cond != "" {
		scan = searchScan
	}
	first, ok, err := t.searchSince(ctx, src, q)
	if !ok || err != nil {
		return nil, err
	}
	bound := ""
	if first > 0 {
		// The walk stops at the first message written since then.
		bound = " AND rowid >= " + strconv.FormatInt(first, 10)
	}
	// CROSS JOIN keeps the index walk outside: newest match first, each
	// row looked up by its key, stopping at the window.
	query := src.selectRow("0.0") + " FROM (SELECT " + src.key() + " FROM " + src.fts5 +
		" WHERE " + src.fts5 + " MATCH ?" + bound + " ORDER BY rowid DESC LIMIT " + strconv.Itoa(scan) + ") f CROSS JOIN " + src.table +
		" m ON " + src.join + " WHERE 1 = 1" + cond + " ORDER BY f.rowid DESC LIMIT " + strconv.Itoa(limit)
	return t.searchRows(ctx, query, append([]any{match}, wargs...)...)
}

// searchAgentWalk returns up to limit of the newest messages matching match
// that q.Agent sent or received, newest first. It walks stretches of
// message numbers going back from top, two statements each. The first
// finds where the stretch starts: the k-th newest message of the agent
// below the stretch's end in each list (sent; received, which
// idx_messages_recipient_ack_seq keeps in order in two ranges: requires_ack
// is 0 or 1), the newest of those. The second keeps the query's matches in
// the stretch that the agent's lists hold, the smaller side looked up in
// the other. density (the share of messages the query's rarest word
// matches) sizes the stretch: about limit matches of the agent's, and at
// most about searchScan matches in all. It stops when limit are found, the
// since bound is passed or about searchWalk index entries have been read.
func (t *tx) searchAgentWalk(ctx context.Context, src searchSource, q hub.SearchTerms, match string, limit int, top int64, density float64) ([]hub.SearchRow, error) {
	first, ok, err := t.searchSince(ctx, src, q)
	if !ok || err != nil {
		return nil, err
	}
	floor := max(first, 1)
	density = max(density, 1e-9)
	// How many of the agent's messages a stretch holds (per list), and
	// how many message numbers at most.
	k := max(int(min(float64(searchScan), float64(limit)/density)), limit)
	span := int64(float64(searchScan) / density)
	kth := func(index, where string) string {
		return "coalesce((SELECT seq FROM messages" + t.indexed(index) + " WHERE " + where + " AND seq < ?2 AND seq >= ?3 ORDER BY seq DESC LIMIT 1 OFFSET ?4), 0)"
	}
	start := "SELECT max(?3, ?5, " + kth("idx_messages_sender_seq", "sender = ?1") + ", " +
		kth("idx_messages_recipient_ack_seq", "recipient = ?1 AND requires_ack = 0") + ", " +
		kth("idx_messages_recipient_ack_seq", "recipient = ?1 AND requires_ack = 1") + ")"
	mine := "SELECT seq AS v FROM messages" + t.indexed("idx_messages_sender_seq") + " WHERE sender = ?1 AND seq >= ?3 AND seq < ?2 UNION ALL " +
		"SELECT seq AS v FROM messages" + t.indexed("idx_messages_recipient_ack_seq") + " WHERE recipient = ?1 AND requires_ack IN (0, 1) AND seq >= ?3 AND seq < ?2"
	hits := "SELECT rowid AS v FROM " + src.fts5 + " WHERE " + src.fts5 + " MATCH ?4 AND rowid >= ?3 AND rowid < ?2"
	// (v+0): the other side is read once into a lookup table, and FTS5
	// is not asked for each number of it.
	agentSide := groupConcat("SELECT v FROM (" + hits + ") WHERE (v+0) IN (" + mine + ")")
	wordSide := groupConcat("SELECT v FROM (" + mine + ") WHERE (v+0) IN (" + hits + ")")
	var found []int64
	hi, read := top+1, 0
	for len(found) < limit && hi > floor && read < searchWalk {
		var lo int64
		if err := t.row(ctx, start, q.Agent, hi, floor, k-1, hi-span).Scan(&lo); err != nil {
			return nil, err
		}
		both := agentSide
		if words := int(float64(hi-lo) * density); words < k {
			both = wordSide
		}
		var list sql.NullString
		if err := t.row(ctx, both, q.Agent, hi, lo, match).Scan(&list); err != nil {
			return nil, err
		}
		hits, err := int64List(list)
		if err != nil {
			return nil, err
		}
		found = append(found, hits[:min(len(hits), limit-len(found))]...)
		read += k + int(float64(hi-lo)*density)
		hi = lo
		k = min(2*k, searchWalk)
	}
	if len(found) == 0 {
		return nil, nil
	}
	cond, wargs := searchFilters(src, hub.SearchTerms{Since: q.Since})
	args := make([]any, 0, len(found)+len(wargs))
	for _, s := range found {
		args = append(args, s)
	}
	// Sorted here: ORDER BY seq would have SQLite walk the whole index of
	// seq in order, testing each against the list.
	rows, err := t.searchRows(ctx, src.selectRow("0.0")+" FROM messages m WHERE m.seq IN ("+placeholders(len(found))+")"+cond,
		append(args, wargs...)...)
	slices.SortFunc(rows, func(a, b hub.SearchRow) int { return cmp.Compare(b.Seq, a.Seq) })
	return rows, err
}

// groupConcat is an expression for the values v of query as one list: the
// database hands over one value instead of one row each, which costs more
// than the rest of such a query.
func groupConcat(query string) string {
	return "SELECT group_concat(v) FROM (" + query + ") AS l"
}

// int64List reads a list of groupConcat, largest first.
func int64List(list sql.NullString) ([]int64, error) {
	if !list.Valid || list.String == "" {
		return nil, nil
	}
	parts := strings.Split(list.String, ",")
	out := make([]int64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	slices.SortFunc(out, func(a, b int64) int { return cmp.Compare(b, a) })
	return out, nil
}

// searchRows runs a query answering the columns of searchSource.cols and a
// score.
func (t *tx) searchRows(ctx context.Context, query string, args ...any) ([]hub.SearchRow, error) {
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

// fts5Query renders terms as an FTS5 query: each term a quoted phrase
// whose last word is a prefix, unless whole[i] reads term i as whole words;
// all terms required. Tokens hold only letters, digits and marks, so
// quoting cannot be escaped.
func fts5Query(terms []hub.SearchTerm, whole []bool) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(`"` + strings.Join(t.Tokens, " ") + `"`)
		if i >= len(whole) || !whole[i] {
			b.WriteByte('*')
		}
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
