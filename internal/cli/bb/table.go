package bb

import (
	"io"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/blackboard-hub/bb/internal/termtext"
)

// column describes one column of a human table. Min is the width it always
// takes (the header's too); a longer cell widens the column for every row,
// so long ids never push the next columns out of line. Max (0: none)
// truncates a longer cell to Max display cells, ending it with Ellipsis.
// Widths count terminal cells: a CJK character or most emoji take two.
type column struct {
	Header   string
	Min, Max int
	Ellipsis string
}

// writeTable prints header and rows aligned by display width. Every cell is
// escaped (termtext.Line) before it is measured, so stored control
// characters neither reach the terminal nor break the layout. The last
// column is not padded. sep is printed under the header when not empty.
func writeTable(w io.Writer, cols []column, rows [][]string, sep string) {
	// Ambiguous-width characters count one cell whatever the locale, so
	// output does not depend on the environment.
	rw := &runewidth.Condition{StrictEmojiNeutral: true}
	cells := make([][]string, len(rows))
	width := make([]int, len(cols))
	for i, c := range cols {
		width[i] = max(c.Min, rw.StringWidth(c.Header))
	}
	for r, row := range rows {
		cells[r] = make([]string, len(cols))
		for i, c := range cols {
			if i >= len(row) {
				continue
			}
			s := termtext.Line(row[i])
			if c.Max > 0 && rw.StringWidth(s) > c.Max {
				s = rw.Truncate(s, c.Max, c.Ellipsis)
			}
			cells[r][i] = s
			width[i] = max(width[i], rw.StringWidth(s))
		}
	}
	line := func(row []string) {
		var b strings.Builder
		for i, s := range row {
			b.WriteString(s)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-rw.StringWidth(s)+1))
			}
		}
		b.WriteByte('\n')
		_, _ = io.WriteString(w, b.String())
	}
	hdr := make([]string, len(cols))
	for i, c := range cols {
		hdr[i] = c.Header
	}
	line(hdr)
	if sep != "" {
		_, _ = io.WriteString(w, sep+"\n")
	}
	for _, row := range cells {
		line(row)
	}
}
