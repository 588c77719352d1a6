package hub

// ClientFacts is what the board knows of a coding-agent client by its
// short name (the client a hook session names): what a person calls it,
// and whether bb can wake an idle session of it when something arrives
// for its agent (a waiter that runs between turns: Claude Code's
// asyncRewake hook, OpenCode's plugin). install writes the clients' files
// from these facts; the attention list tells the person about a session
// that cannot be woken.
type ClientFacts struct {
	Name  string
	Title string
	Wakes bool
}

// Client returns the facts of the client named name; an unknown client
// is titled by its name and cannot be woken.
func Client(name string) ClientFacts {
	f := ClientFacts{Name: name, Title: name}
	switch name {
	case "claude":
		f.Title, f.Wakes = "Claude Code", true
	case "opencode":
		f.Title, f.Wakes = "OpenCode", true
	case "codex":
		f.Title = "Codex CLI"
	case "gemini":
		f.Title = "Gemini CLI"
	case "cursor":
		f.Title = "Cursor"
	case "copilot":
		f.Title = "GitHub Copilot CLI"
	case "qwen":
		f.Title = "Qwen Code"
	case "kimi":
		f.Title = "Kimi CLI"
	case "kilo":
		f.Title = "Kilo Code"
	}
	return f
}
