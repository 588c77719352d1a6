package tui

import "github.com/charmbracelet/lipgloss"

// styles are every look of the view. Without colour (NO_COLOR) only bold,
// faint and reverse video remain, so nothing depends on colour alone.
type styles struct {
	Header, Title, TitleActive lipgloss.Style
	Selected, Faint, Bold      lipgloss.Style
	Good, Warn, Bad, Event     lipgloss.Style
	Status, Error, Prompt      lipgloss.Style
}

func newStyles(r *lipgloss.Renderer, color bool) styles {
	s := styles{
		Header:      r.NewStyle().Bold(true).Reverse(true),
		Title:       r.NewStyle().Bold(true),
		TitleActive: r.NewStyle().Bold(true).Underline(true),
		Selected:    r.NewStyle().Reverse(true),
		Faint:       r.NewStyle().Faint(true),
		Bold:        r.NewStyle().Bold(true),
		Good:        r.NewStyle(),
		Warn:        r.NewStyle(),
		Bad:         r.NewStyle().Bold(true),
		Event:       r.NewStyle(),
		Status:      r.NewStyle(),
		Error:       r.NewStyle().Bold(true),
		Prompt:      r.NewStyle().Bold(true),
	}
	if color {
		s.Header = s.Header.Reverse(false).Background(lipgloss.Color("24")).Foreground(lipgloss.Color("231"))
		s.TitleActive = s.TitleActive.Foreground(lipgloss.Color("39"))
		s.Good = s.Good.Foreground(lipgloss.Color("2"))
		s.Warn = s.Warn.Foreground(lipgloss.Color("3"))
		s.Bad = s.Bad.Foreground(lipgloss.Color("1"))
		s.Event = s.Event.Foreground(lipgloss.Color("6"))
		s.Error = s.Error.Foreground(lipgloss.Color("1"))
	}
	return s
}
