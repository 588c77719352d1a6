package bb

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestAppleString(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:           `"plain"`,
		`say "hi"`:        `"say \"hi\""`,
		`back\slash`:      `"back\\slash"`,
		"two\nlines":      `"two lines"`,
		`"; do shell x "`: `"\"; do shell x \""`,
	} {
		if got := appleString(in); got != want {
			t.Errorf("appleString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestDesktopNotifierNeedsItsProgram(t *testing.T) {
	none := func(string) (string, error) { return "", errors.New("not found") }
	for _, goos := range []string{"linux", "darwin", "windows", "freebsd"} {
		if _, err := desktopNotifier(goos, none); err == nil {
			t.Errorf("%s without its program: no error", goos)
		}
	}
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	for _, goos := range []string{"darwin", "windows", "linux"} {
		if _, err := desktopNotifier(goos, found); err != nil {
			t.Errorf("%s with its program: %v", goos, err)
		}
	}
}

// The toast's command line is fixed: the title and text travel in the
// environment as one line each and never reach PowerShell's parser or the
// toast's XML as code.
func TestToastCommand(t *testing.T) {
	title, text := `Blackboard: blocked'); Remove-Item C:\ -Recurse; ('`, "carol <b>is</b> blocked & \"stuck\"\non dana\x00"
	args, env := toastCommand(`C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`, title, text)
	want := []string{`C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`, "-NoProfile", "-NonInteractive", "-WindowStyle", "Hidden", "-EncodedCommand"}
	if len(args) != len(want)+1 || strings.Join(args[:len(want)], " ") != strings.Join(want, " ") {
		t.Fatalf("args %q, want %q and the encoded script", args, want)
	}
	raw, err := base64.StdEncoding.DecodeString(args[len(want)])
	if err != nil || len(raw)%2 != 0 {
		t.Fatalf("-EncodedCommand is not base64 of UTF-16: %v", err)
	}
	units := make([]uint16, len(raw)/2)
	for i := range units {
		units[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
	}
	script := string(utf16.Decode(units))
	if script != toastScript {
		t.Fatalf("decoded script differs:\n%s", script)
	}
	for _, part := range []string{toastAppID, "Windows.UI.Notifications.ToastNotificationManager", "CreateTextNode($env:BB_TOAST_TITLE)", "CreateTextNode($env:BB_TOAST_TEXT)"} {
		if !strings.Contains(script, part) {
			t.Errorf("script lacks %q", part)
		}
	}
	if strings.Contains(strings.Join(args, " "), "Remove-Item") || strings.Contains(script, "carol") {
		t.Error("the item's words reached the command line")
	}
	wantEnv := []string{"BB_TOAST_TITLE=" + title, "BB_TOAST_TEXT=carol <b>is</b> blocked & \"stuck\" on dana"}
	if strings.Join(env, "|") != strings.Join(wantEnv, "|") {
		t.Errorf("env %q, want %q", env, wantEnv)
	}
}
