package hub

import (
	"context"
	"fmt"
	"strings"
)

// Short handles: a message or task may be named by any unique prefix of
// its id (git style), on every surface that takes one. An exact id always
// wins; a prefix shorter than MinPrefixLen is never expanded; an ambiguous
// prefix is refused with the candidates listed.

// ShortIDLen is how many leading characters of a message id human views
// show.
const ShortIDLen = 8

// MinPrefixLen is the shortest prefix that is expanded.
const MinPrefixLen = 4

// maxCandidates bounds the candidates an ambiguity error lists.
const maxCandidates = 5

// ShortID is the short handle of a message id shown to humans.
func ShortID(id string) string {
	if len(id) <= ShortIDLen {
		return id
	}
	return id[:ShortIDLen]
}

// ResolveID expands a unique prefix of an id of table ("messages" or
// "tasks") into the full id. An id that exists is returned as is; so is a
// prefix that matches nothing (the caller then reports it not found).
// field names the argument in errors.
func ResolveID(ctx context.Context, tx Tx, table, field, id string) (string, error) {
	if len(id) < MinPrefixLen || strings.ContainsAny(id, " \t") || (table == "tasks" && strings.HasPrefix("task_", id)) {
		return id, nil
	}
	ids, err := tx.IDsWithPrefix(ctx, table, id, maxCandidates+1)
	if err != nil {
		return "", err
	}
	switch {
	case len(ids) == 0:
		return id, nil
	case len(ids) == 1 || ids[0] == id:
		return ids[0], nil
	}
	list := ids
	more := ""
	if len(ids) > maxCandidates {
		list, more = ids[:maxCandidates], ", …"
	}
	return "", FieldErr(CodeInvalidArgs, field, "%s %q is ambiguous: it starts %s%s; give more characters", field, id, strings.Join(list, ", "), more)
}

// TaskHandle is the short handle of a task id shown to humans: the first
// ShortIDLen characters of its random part (task_<time>_<random>), or the
// id itself when it has no such part.
func TaskHandle(id string) string {
	i := strings.LastIndexByte(id, '_')
	if i < 0 || len(id)-i-1 < ShortIDLen {
		return id
	}
	return id[i+1 : i+1+ShortIDLen]
}

// WorkItem is the one work-item rule: a bead (work item) id that names a
// task — its full id or a unique handle — means that task and is stored as
// its full id; any other id is an external work item (a Beads bd id, a
// ticket) kept as given. An ambiguous handle is refused with the candidates.
func WorkItem(ctx context.Context, tx Tx, bead string) (string, error) {
	if bead == "" {
		return "", nil
	}
	return ResolveID(ctx, tx, "tasks", "bead", bead)
}

// HandleText is a human text with every task id in it (task_<digits>_<hex>)
// written as its handle, as bb task list shows it. Stored texts (event
// messages, error messages) keep full ids; human views pass them through
// this, JSON never does.
func HandleText(s string) string {
	const pre = "task_"
	if !strings.Contains(s, pre) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, pre)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		n := taskIDLen(s[i:])
		if n == 0 || (i > 0 && isIDByte(s[i-1])) {
			b.WriteString(s[:i+len(pre)])
			s = s[i+len(pre):]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(TaskHandle(s[i : i+n]))
		s = s[i+n:]
	}
}

// taskIDLen is the length of the task id s starts with, or 0.
func taskIDLen(s string) int {
	i := len("task_")
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i || j >= len(s) || s[j] != '_' {
		return 0
	}
	j++
	k := j
	for k < len(s) && (s[k] >= '0' && s[k] <= '9' || s[k] >= 'a' && s[k] <= 'f') {
		k++
	}
	if k-j < ShortIDLen || (k < len(s) && isIDByte(s[k])) {
		return 0
	}
	return k
}

func isIDByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// ShortHandleWords explains why a task handle shorter than MinPrefixLen
// found nothing ("" for a longer one): human views add it to NOT_FOUND.
func ShortHandleWords(id string) string {
	if id == "" || len(id) >= MinPrefixLen {
		return ""
	}
	return fmt.Sprintf("a task handle needs at least %d characters (bb task list shows them)", MinPrefixLen)
}
