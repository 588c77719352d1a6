package clienttest

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// plans is the script the model server follows: every prompt the tests
// send carries "[session X] [step S]"; the answer to a request of step S
// is its plan's next tool call (by the number of tool results that came
// back since the prompt), then the text "done S". Requests of no step get
// "ok".
type plans struct {
	mu    sync.Mutex
	steps map[string][]turnPart
	// calls counts the requests served per step: a client that loops is
	// answered with text after a bound, so no test runs forever.
	calls map[string]int
	// before runs when the model first serves a step's request (once),
	// for a step that needs the world to change mid-turn.
	before map[string]func()
}

func newPlans() *plans {
	return &plans{steps: map[string][]turnPart{}, before: map[string]func(){}, calls: map[string]int{}}
}

func (p *plans) set(step string, parts ...turnPart) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps[step] = parts
}

// onFirst runs fn when step's first request arrives (before answering).
func (p *plans) onFirst(step string, fn func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.before[step] = fn
}

func (p *plans) answer(step string, done int) []turnPart {
	p.mu.Lock()
	parts := p.steps[step]
	fn := p.before[step]
	delete(p.before, step)
	p.calls[step]++
	looping := p.calls[step] > 2*len(parts)+8
	p.mu.Unlock()
	if looping {
		return []turnPart{{Text: "done " + step + " (the client kept asking)"}}
	}
	if fn != nil {
		fn()
	}
	if done < len(parts) {
		return []turnPart{parts[done]}
	}
	return []turnPart{{Text: "done " + step}}
}

var stepRe = regexp.MustCompile(`\[step ([A-Za-z0-9-]+)\]`)

// lastStep is the step named last in s.
func lastStep(s string) string {
	m := stepRe.FindAllStringSubmatch(s, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1][1]
}

// progress finds, in a request body of any of the three APIs, the step of
// the latest prompt and how many tool results came back after it.
func progress(api, body string) (step string, done int) {
	switch api {
	case "chat":
		return chatProgress(body)
	case "anthropic":
		var req struct {
			Tools    []json.RawMessage `json:"tools"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal([]byte(body), &req) != nil || len(req.Tools) == 0 {
			return "", 0
		}
		for _, m := range req.Messages {
			var blocks []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			var text string
			if json.Unmarshal(m.Content, &text) == nil {
				blocks = append(blocks, struct {
					Type string `json:"type"`
					Text string `json:"text"`
				}{"text", text})
			} else {
				_ = json.Unmarshal(m.Content, &blocks)
			}
			for _, b := range blocks {
				switch {
				case m.Role == "user" && b.Type == "text" && strings.HasPrefix(strings.TrimSpace(b.Text), "[session "):
					step, done = lastStep(b.Text), 0
				case b.Type == "tool_result":
					done++
				}
			}
		}
	case "openai":
		var req struct {
			Input []struct {
				Type    string          `json:"type"`
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"input"`
		}
		if json.Unmarshal([]byte(body), &req) != nil {
			return "", 0
		}
		for _, it := range req.Input {
			switch {
			case it.Type == "message" && it.Role == "user":
				var parts []struct {
					Text string `json:"text"`
				}
				_ = json.Unmarshal(it.Content, &parts)
				for _, p := range parts {
					if strings.HasPrefix(strings.TrimSpace(p.Text), "[session ") {
						step, done = lastStep(p.Text), 0
					}
				}
			case strings.HasSuffix(it.Type, "_output"):
				done++
			}
		}
	case "gemini":
		var req struct {
			Contents []struct {
				Role  string `json:"role"`
				Parts []struct {
					Text             string          `json:"text"`
					FunctionResponse json.RawMessage `json:"functionResponse"`
				} `json:"parts"`
			} `json:"contents"`
		}
		if json.Unmarshal([]byte(body), &req) != nil {
			return "", 0
		}
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				switch {
				// Gemini CLI puts a hook's context before the prompt
				// in the same part.
				case c.Role == "user" && strings.Contains(p.Text, "[session "):
					step, done = lastStep(p.Text), 0
				case len(p.FunctionResponse) > 0:
					done++
				}
			}
		}
	}
	return step, done
}

// script is the model server's script for plans.
func (p *plans) script(req modelRequest) []turnPart {
	step, done := progress(req.API, req.Body)
	if step == "" {
		return nil
	}
	return p.answer(step, done)
}
