package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap is every key of bb top; the help line shows them (? for all).
type keyMap struct {
	Quit, Help             key.Binding
	Next, Prev, Up, Down   key.Binding
	Accept, Answer, Msg    key.Binding
	Nudge, StepIn          key.Binding
	Release, Reassign      key.Binding
	Search, Filter, Cancel key.Binding
	Submit                 key.Binding
}

func defaultKeyMap() keyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Quit:     b([]string{"q", "ctrl+c"}, "q", "quit"),
		Help:     b([]string{"?"}, "?", "keys"),
		Next:     b([]string{"tab"}, "tab", "next section"),
		Prev:     b([]string{"shift+tab"}, "shift+tab", "previous section"),
		Up:       b([]string{"up", "k"}, "↑/k", "up"),
		Down:     b([]string{"down", "j"}, "↓/j", "down"),
		Accept:   b([]string{"a"}, "a", "accept handoff/blocker"),
		Answer:   b([]string{"r"}, "r", "answer"),
		Nudge:    b([]string{"n"}, "n", "nudge"),
		StepIn:   b([]string{"s"}, "s", "step in"),
		Msg:      b([]string{"m"}, "m", "message agent"),
		Release:  b([]string{"x"}, "x", "release reservation"),
		Reassign: b([]string{"g"}, "g", "reassign"),
		Search:   b([]string{"/"}, "/", "search"),
		Filter:   b([]string{"f"}, "f", "filter by agent"),
		Cancel:   b([]string{"esc"}, "esc", "back"),
		Submit:   b([]string{"enter"}, "enter", "send"),
	}
}

// ShortHelp is the one-line help (help.KeyMap).
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Accept, k.Answer, k.Msg, k.Release, k.Reassign, k.Search, k.Filter, k.Quit, k.Help}
}

// FullHelp is the help of ? (help.KeyMap).
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Next, k.Prev, k.Up, k.Down},
		{k.Accept, k.Answer, k.Nudge, k.StepIn, k.Msg, k.Release, k.Reassign},
		{k.Search, k.Filter, k.Cancel, k.Quit},
	}
}
