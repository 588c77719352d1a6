package tui

import (
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// prompt is the one-line text input of an action that needs words (an
// answer, a message, an agent to reassign to, a search, a filter). submit
// turns the typed text into the command that performs the action.
type prompt struct {
	label  string
	input  textinput.Model
	submit func(text string) tea.Cmd
}

func newPrompt(st styles, label, value string, submit func(string) tea.Cmd) *prompt {
	in := textinput.New()
	in.Prompt = ""
	in.PromptStyle, in.TextStyle, in.PlaceholderStyle, in.CompletionStyle = st.Status, st.Status, st.Faint, st.Faint
	in.Cursor.Style, in.Cursor.TextStyle = st.Selected, st.Status
	in.CharLimit = 4000
	in.SetValue(value)
	in.Focus()
	return &prompt{label: label, input: in, submit: submit}
}

func (p *prompt) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return cmd
}

func (p *prompt) view(st styles, width int) string {
	p.input.Width = max(width-len([]rune(p.label))-3, 1)
	return st.Prompt.Render(p.label+": ") + p.input.View()
}
