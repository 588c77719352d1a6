package bb

import (
	"errors"
	"testing"
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
	if _, err := desktopNotifier("darwin", found); err != nil {
		t.Errorf("darwin with osascript: %v", err)
	}
}
