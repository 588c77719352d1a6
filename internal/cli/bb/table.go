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
// Cut (optional) shortens a cell its own way instead of Max. Fill pads
// the column even when it is the last one (a layout that keeps trailing
// spaces). Mark (optional) gives row r a marker printed after its cell
// (after a space when the cell is not empty), in colour on a colour
// terminal.
type column struct {
	Header   string
	Min, Max int
	Ellipsis string
	Cut      func(s string) string
	Fill     bool
	Mark     func(r int) (string, style)
}

// cellWidth is the display width of s in terminal cells. Ambiguous-width
// characters count one cell whatever the locale, so output does not
// depend on the environment.
func cellWidth(s string) int { return cellCond.StringWidth(s) }

var cellCond = &runewidth.Condition{StrictEmojiNeutral: true}

// keepEnd shortens s to its last cells so that ellipsis plus them take at
// most width cells (for paths, whose end says the most).
func keepEnd(s string, width int, ellipsis string) string {
	if cellWidth(s) <= width {
		return s
	}
	r := []rune(s)
	room := width - cellWidth(ellipsis)
	i := len(r)
	for i > 0 && cellWidth(string(r[i-1:])) <= room {
		i--
	}
	return ellipsis + string(r[i:])
}

// writeTable prints header and rows aligned by display width. Every cell is
// escaped (termtext.Line) before it is measured, so stored control
// characters neither reach the terminal nor break the layout. The last
// column is not padded, nor are empty cells at the end of a row. sep is printed under the header when not empty;
// after, when not nil, prints extra lines under row r.
func writeTable(w io.Writer, cols []column, rows [][]string, sep string, after func(w io.Writer, r int)) {
	rw := cellCond
	type cell struct {
		text, mark string
		st         style
		width      int
	}
	cells := make([][]cell, len(rows))
	width := make([]int, len(cols))
	for i, c := range cols {
		width[i] = max(c.Min, rw.StringWidth(c.Header))
	}
	for r, row := range rows {
		cells[r] = make([]cell, len(cols))
		for i, c := range cols {
			var x cell
			if i < len(row) {
				x.text = termtext.Line(row[i])
				switch {
				case c.Cut != nil:
					x.text = c.Cut(x.text)
				case c.Max > 0 && rw.StringWidth(x.text) > c.Max:
					x.text = rw.Truncate(x.text, c.Max, c.Ellipsis)
				}
			}
			x.width = rw.StringWidth(x.text)
			if c.Mark != nil {
				if x.mark, x.st = c.Mark(r); x.mark != "" {
					x.mark = termtext.Line(x.mark)
					if x.text != "" {
						x.width++
					}
					x.width += rw.StringWidth(x.mark)
				}
			}
			cells[r][i] = x
			width[i] = max(width[i], x.width)
		}
	}
	pad := func(i, used int) {
		if i < len(cols)-1 {
			_, _ = io.WriteString(w, strings.Repeat(" ", width[i]-used+1))
		} else if cols[i].Fill {
			_, _ = io.WriteString(w, strings.Repeat(" ", width[i]-used))
		}
	}
	for i, c := range cols {
		_, _ = io.WriteString(w, c.Header)
		pad(i, rw.StringWidth(c.Header))
	}
	_, _ = io.WriteString(w, "\n")
	if sep != "" {
		_, _ = io.WriteString(w, sep+"\n")
	}
	for r, row := range cells {
		// Cells after the last one with text are left out: no trailing
		// spaces unless a column asks for them.
		last := -1
		for i, x := range row {
			if x.width > 0 || cols[i].Fill {
				last = i
			}
		}
		for i, x := range row[:last+1] {
			_, _ = io.WriteString(w, x.text)
			if x.mark != "" {
				if x.text != "" {
					_, _ = io.WriteString(w, " ")
				}
				mark(w, x.st, x.mark)
			}
			if i < last || cols[i].Fill {
				pad(i, x.width)
			}
		}
		_, _ = io.WriteString(w, "\n")
		if after != nil {
			after(w, r)
		}
	}
}
