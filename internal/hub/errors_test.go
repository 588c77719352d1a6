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
