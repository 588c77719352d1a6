package bb

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

// desktopNotifier returns what shows a desktop notification on goos,
// through the platform's standard mechanism: notify-send (freedesktop
// notifications, Linux and the BSDs), osascript's `display notification`
// (macOS) or a toast raised by Windows PowerShell (desktop_toast.go). lookPath finds the program; a platform without
// one is a clear error naming the way out.
func desktopNotifier(goos string, lookPath func(string) (string, error)) (func(ctx context.Context, title, text string) error, error) {
	run := func(ctx context.Context, name string, args ...string) error {
		out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v %s", name, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	switch goos {
	case "darwin":
		bin, err := lookPath("osascript")
		if err != nil {
			return nil, hub.FieldErr(hub.CodeInvalidInput, "desktop", "desktop notifications need osascript, which is not on PATH; use --webhook")
		}
		return func(ctx context.Context, title, text string) error {
			return run(ctx, bin, "-e", "display notification "+appleString(text)+" with title "+appleString(title))
		}, nil
	case "windows":
		bin, err := lookPath("powershell.exe")
		if err != nil {
			return nil, hub.FieldErr(hub.CodeInvalidInput, "desktop", "desktop notifications need Windows PowerShell (powershell.exe), which is not on PATH; use --webhook")
		}
		return func(ctx context.Context, title, text string) error {
			args, env := toastCommand(bin, title, text)
			c := exec.CommandContext(ctx, args[0], args[1:]...)
			c.Env = append(c.Environ(), env...)
			hideConsole(c)
			if out, err := c.CombinedOutput(); err != nil {
				return fmt.Errorf("powershell toast: %v %s", err, strings.TrimSpace(string(out)))
			}
			return nil
		}, nil
	default:
		bin, err := lookPath("notify-send")
		if err != nil {
			return nil, hub.FieldErr(hub.CodeInvalidInput, "desktop", "desktop notifications need notify-send (Debian/Ubuntu: apt install libnotify-bin), which is not on PATH; use --webhook")
		}
		return func(ctx context.Context, title, text string) error {
			return run(ctx, bin, "--app-name=bb", "--", title, text)
		}, nil
	}
}

// appleString quotes s as an AppleScript string literal.
func appleString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	s = strings.ReplaceAll(s, "\n", " ")
	return `"` + s + `"`
}
