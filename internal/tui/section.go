package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/blackboard-hub/bb/internal/termtext"
)

// row is one line of a section: plain text (stored text is escaped by
// newRow, so the board cannot send escape codes to the terminal) and the
// style it is drawn in when not selected.
type row struct {
	text  string
	style lipgloss.Style
	// styled is false for rows drawn plain.
	styled bool
	// hint is shown after the section's title while the row is selected
	// (the keys that act on it); "" for none.
	hint string
}

func newRow(text string) row { return row{text: termtext.Line(text)} }

// in gives r a style.
func (r row) in(st lipgloss.Style) row { r.style, r.styled = st, true; return r }

// section is one titled list of the page: its rows are already rendered
// (one line each), the cursor selects one, and only the rows around the
// cursor that fit its height are shown.
type section struct {
	title  string
	rows   []row
	empty  string // shown when there are no rows
	cursor int
	offset int
	// width and height are the section's size, its title line included.
	width, height int
}

// setRows replaces the rows, keeping the cursor on the same index (clamped).
func (s *section) setRows(rows []row) {
	s.rows = rows
	s.clamp()
}

// move moves the cursor by d rows.
func (s *section) move(d int) {
	s.cursor += d
	s.clamp()
}

func (s *section) clamp() {
	s.cursor = min(max(s.cursor, 0), max(len(s.rows)-1, 0))
	visible := max(s.height-1, 0)
	if s.cursor < s.offset {
		s.offset = s.cursor
	}
	if visible > 0 && s.cursor >= s.offset+visible {
		s.offset = s.cursor - visible + 1
	}
	s.offset = min(s.offset, max(len(s.rows)-visible, 0))
}

// setSize gives the section its width and height (title line included).
func (s *section) setSize(w, h int) {
	s.width, s.height = w, h
	s.clamp()
}

// wants is how many lines the section would like: its title and rows.
func (s *section) wants() int { return 1 + max(len(s.rows), 1) }

// view renders the section at its size; focused marks its title and the
// selected row.
func (s *section) view(st styles, focused bool) string {
	if s.height <= 0 {
		return ""
	}
	var b strings.Builder
	title := s.title
	if len(s.rows) > 0 {
		title += " (" + itoa(len(s.rows)) + ")"
	}
	if focused && s.cursor < len(s.rows) && s.rows[s.cursor].hint != "" {
		title += " · " + s.rows[s.cursor].hint
	}
	if focused {
		b.WriteString(st.TitleActive.Render(fit("▸ "+title, s.width)))
	} else {
		b.WriteString(st.Title.Render(fit("  "+title, s.width)))
	}
	lines := 1
	if len(s.rows) == 0 && s.height > 1 {
		b.WriteString("\n" + st.Faint.Render(fit("  "+s.empty, s.width)))
		lines++
	}
	for i := s.offset; i < len(s.rows) && lines < s.height; i++ {
		r := s.rows[i]
		line := fit("  "+r.text, s.width)
		switch {
		case focused && i == s.cursor:
			line = st.Selected.Render(fit("› "+r.text, s.width))
		case r.styled:
			line = r.style.Render(line)
		}
		b.WriteString("\n" + line)
		lines++
	}
	for ; lines < s.height; lines++ {
		b.WriteString("\n")
	}
	return b.String()
}

// fit cuts s (plain text) to w cells, padding it with spaces.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = ansi.Truncate(s, w, "…")
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}
