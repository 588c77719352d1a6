package mcp

import (
	"encoding/json"
	"strconv"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Paging. Every list a tool returns is one page: at most the limit asked
// for, and cut earlier when its JSON would pass pageBudget bytes, so that a
// reply stays well under 10k tokens (estimated as bytes/4) whatever the
// data. A reply that was cut carries next_cursor; passing it back as
// cursor returns the next page. A cursor is opaque text.
const (
	pageBudget = 24 << 10 // bytes of listed items per reply (≈ 6k tokens)
	// maxListLimit bounds the page size of lists the core returns whole.
	maxListLimit = 200
	// defaultListLimit is their page size when no limit is given.
	defaultListLimit = 50
)

// fit returns how many of items fit in the byte budget (at least one, so
// that paging always progresses).
func fit[T any](items []T, budget int) int {
	used := 0
	for i, it := range items {
		b, _ := json.Marshal(it)
		used += len(b) + 1
		if used > budget && i > 0 {
			return i
		}
	}
	return len(items)
}

// offsetOf parses an offset cursor ("" = 0).
func offsetOf(cursor string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(cursor)
	if err != nil || n < 0 {
		return 0, hub.FieldErr(hub.CodeInvalidInput, "cursor", "invalid cursor %q: pass back the next_cursor of the previous reply", cursor)
	}
	return n, nil
}

// seqOf parses a sequence cursor ("" = 0).
func seqOf(cursor string) (int64, error) {
	if cursor == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(cursor, 10, 64)
	if err != nil || n < 0 {
		return 0, hub.FieldErr(hub.CodeInvalidInput, "cursor", "invalid cursor %q: pass back the next_cursor of the previous reply", cursor)
	}
	return n, nil
}

// pageOf cuts the page starting at offset out of all (the whole list, or
// at least offset+limit+1 items of it), returning it and the next cursor
// ("" when it is the last page).
func pageOf[T any](all []T, offset, limit int) ([]T, string) {
	if offset >= len(all) {
		return []T{}, ""
	}
	rest := all[offset:]
	n := min(limit, len(rest))
	n = fit(rest[:n], pageBudget)
	if n < len(rest) {
		return rest[:n], strconv.Itoa(offset + n)
	}
	return rest[:n], ""
}
