package hub

import (
	"fmt"
	"strings"
)

// Text is a text the core writes for a reader (a session brief, new mail,
// an edit denial, an end-of-turn reminder): runs of the core's own words
// and, where it names the next step, actions in domain terms. It is data,
// not a string with hidden marks: a surface words it once, at the edge,
// with its own syntax for the actions (Words), and what a sender wrote can
// never become one of them.
//
// Texts are built by appending: fmt.Fprintf(&t, …) and t.WriteString add
// words, t.Act an action, t.Add words, actions and other texts in order.
type Text []Span

// Span is one run of a Text: the core's words, or one action (Act).
type Span struct {
	Words string  `json:"words,omitempty"`
	Act   *Action `json:"act,omitempty"`
}

// Do is the action do with its arguments, given in pairs (for Add).
func Do(do string, args ...string) Action {
	a := Action{Do: do, Args: make(map[string]string, len(args)/2)}
	for i := 0; i+1 < len(args); i += 2 {
		a.Args[args[i]] = args[i+1]
	}
	return a
}

// TextOf is the text of parts in order (see Add).
func TextOf(parts ...any) Text {
	var t Text
	t.Add(parts...)
	return t
}

// Add appends parts in order: a string is the core's words, an Action
// (or *Action) an action, a Text is spliced in; anything else is words as
// fmt.Sprint gives them.
func (t *Text) Add(parts ...any) {
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			t.addWords(v)
		case Action:
			t.Act(v)
		case *Action:
			if v != nil {
				t.Act(*v)
			}
		case Text:
			for _, s := range v {
				if s.Act != nil {
					t.Act(*s.Act)
				} else {
					t.addWords(s.Words)
				}
			}
		default:
			t.addWords(fmt.Sprint(v))
		}
	}
}

// Act appends the action a.
func (t *Text) Act(a Action) { *t = append(*t, Span{Act: &a}) }

// Write appends p as words (so that fmt.Fprintf writes into a Text).
func (t *Text) Write(p []byte) (int, error) {
	t.addWords(string(p))
	return len(p), nil
}

// WriteString appends s as words.
func (t *Text) WriteString(s string) (int, error) {
	t.addWords(s)
	return len(s), nil
}

func (t *Text) addWords(s string) {
	if s == "" {
		return
	}
	if n := len(*t); n > 0 && (*t)[n-1].Act == nil {
		(*t)[n-1].Words += s
		return
	}
	*t = append(*t, Span{Words: s})
}

// Empty reports whether t says nothing.
func (t Text) Empty() bool {
	for _, s := range t {
		if s.Act != nil || s.Words != "" {
			return false
		}
	}
	return true
}

// Words is t in a surface's words: each action worded by words, or in the
// core's plain words (PlainAction) where words is nil or has none for it.
func (t Text) Words(words ActionWords) string {
	if len(t) == 1 && t[0].Act == nil {
		return t[0].Words
	}
	var b strings.Builder
	for _, s := range t {
		if s.Act != nil {
			b.WriteString(words.Word(*s.Act))
		} else {
			b.WriteString(s.Words)
		}
	}
	return b.String()
}

// String is t in the core's plain words.
func (t Text) String() string { return t.Words(nil) }

// Actions lists the actions t names, in order.
func (t Text) Actions() []Action {
	var out []Action
	for _, s := range t {
		if s.Act != nil {
			out = append(out, *s.Act)
		}
	}
	return out
}

// JoinText is the texts ts with sep between them.
func JoinText(ts []Text, sep string) Text {
	var out Text
	for i, t := range ts {
		if i > 0 {
			out.addWords(sep)
		}
		out.Add(t)
	}
	return out
}

// WaitForScope is the line that names the wait for a scope another agent
// holds, in every text that tells an agent it is refused it (the edit
// denial, a reserve's conflict, the reply to its BLOCKED): "wait for
// src/a.go: bb agent wait --for-scope src/a.go" in bb's words.
func WaitForScope(agent, scope string) Text {
	return TextOf("wait for "+scope+": ", WaitForScopeAction(agent, scope))
}

// TrimSuffix is t without the words suffix at its end, if it ends so.
func (t Text) TrimSuffix(suffix string) Text {
	n := len(t)
	if n == 0 || t[n-1].Act != nil || !strings.HasSuffix(t[n-1].Words, suffix) {
		return t
	}
	out := append(Text(nil), t[:n-1]...)
	out.addWords(strings.TrimSuffix(t[n-1].Words, suffix))
	return out
}
