package hub

import (
	"strings"
	"testing"
)

func TestFieldErrRendersEachSurfacesNames(t *testing.T) {
	e := FieldErr(CodeInvalidArgs, "ttl_minutes", "{field} must be between %d and %d minutes, got %d", 5, 1440, 2)
	if e.Message != "ttl_minutes must be between 5 and 1440 minutes, got 2" || e.Field != "ttl_minutes" {
		t.Fatalf("domain message: %q (field %q)", e.Message, e.Field)
	}
	flag := func(f string) string { return "--" + strings.ReplaceAll(f, "_", "-") }
	if got := e.Render(flag); got != "--ttl-minutes must be between 5 and 1440 minutes, got 2" {
		t.Errorf("flag rendering: %q", got)
	}
	two := FieldErr(CodeInvalidInput, "body", "Cannot use both {body} and {body_file}. Choose one.")
	if got := two.Render(flag); got != "Cannot use both --body and --body-file. Choose one." {
		t.Errorf("two fields: %q", got)
	}
	// Braces in arguments are the user's text, never fields; braces in the
	// format that are not a field name stay.
	v := FieldErr(CodeInvalidInput, "tag", "{field} %q is not {JSON} or {}", "{field}")
	if got := v.Render(flag); got != `--tag "{field}" is not {JSON} or {}` {
		t.Errorf("arguments rendered: %q", got)
	}
	// A message without a field placeholder renders as is.
	plain := FieldErr(CodeInvalidInput, "agent", "agent id too long")
	if plain.Template != "" || plain.Render(flag) != "agent id too long" {
		t.Errorf("plain: %+v", plain)
	}
	if got := RenderMessage(e, nil); got != e.Message {
		t.Errorf("nil namer: %q", got)
	}
}

func TestValidateRequestID(t *testing.T) {
	for _, ok := range []string{"r1", "oc_task_set_1739373000456_b72a9d", "0b5e1c2a-7d0c-4c1e-9f43-1f4b0b3f8a11", strings.Repeat("x", MaxRequestIDLen)} {
		if err := ValidateRequestID(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", strings.Repeat("x", MaxRequestIDLen+1), "a b", "a\nb", "café"} {
		err := ValidateRequestID(bad)
		if !IsCode(err, CodeInvalidInput) {
			t.Errorf("%q: %v", bad, err)
			continue
		}
		if f := err.(*Error).Field; f != "request_id" {
			t.Errorf("%q: field %q", bad, f)
		}
	}
}

func FuzzFieldErr(f *testing.F) {
	f.Add("{field} must be %s", "x")
	f.Add("{a} and {b_c} but not {X} or {", "{field}")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, format, arg string) {
		if strings.Contains(format, FieldMark) || strings.Contains(arg, FieldMark) || strings.Contains(format, "%") {
			return
		}
		e := FieldErr(CodeInvalidInput, "f", format, arg)
		// Rendering with the domain names gives back Message, and a
		// rendering never leaks a mark.
		if got := e.Render(func(s string) string { return s }); got != e.Message {
			t.Fatalf("identity rendering %q != message %q", got, e.Message)
		}
		if strings.Contains(e.Render(func(s string) string { return "--" + s }), FieldMark) {
			t.Fatalf("mark leaked")
		}
	})
}

// An error's action is data: the core's message words it plainly (no
// surface's syntax), and each surface words it its own way.
func TestErrorActionsAreWordedBySurfaces(t *testing.T) {
	err := AgentNotFound("agent", "jade-fjord")
	var he *Error
	if !errorsAs(err, &he) || len(he.Actions) != 1 || he.Actions[0].Do != ActRegister || he.Actions[0].Args["agent"] != "jade-fjord" {
		t.Fatalf("AgentNotFound: %#v", err)
	}
	if strings.Contains(he.Message, "--") || strings.Contains(he.Message, "bb ") {
		t.Fatalf("the core's message words a command: %q", he.Message)
	}
	if want := `agent "jade-fjord" not found (register it with: the registration of agent "jade-fjord")`; he.Message != want {
		t.Fatalf("plain message = %q, want %q", he.Message, want)
	}
	cli := Vocabulary{Field: func(f string) string { return "--" + f }, Action: func(a Action) string {
		return "bb agent register --name " + a.Args["agent"]
	}}
	if got, want := he.Words(cli), `agent "jade-fjord" not found (register it with: bb agent register --name jade-fjord)`; got != want {
		t.Fatalf("CLI words = %q, want %q", got, want)
	}
	// A surface without words for the action falls back to the plain ones.
	if got := he.Words(Vocabulary{Action: func(Action) string { return "" }}); got != he.Message {
		t.Fatalf("fallback = %q, want %q", got, he.Message)
	}
	// Fields and actions in one message.
	e := FieldErr(CodeIdentityRequired, "agent", "{field} is required ({do})").With(Action{Do: ActIdentify})
	if got, want := e.Words(cli), "--agent is required (bb agent register --name )"; got != want {
		t.Fatalf("fields and actions = %q, want %q", got, want)
	}
	if got, want := e.Message, "agent is required (name the acting agent)"; got != want {
		t.Fatalf("plain = %q, want %q", got, want)
	}
}
