package bb

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/notify"
)

// notifyCmd is `bb notify`: webhooks for what needs a person
// (internal/notify).
func (a *app) notifyCmd() *cobra.Command {
	var hooks []string
	var dashboard string
	var desktop bool
	c := &cobra.Command{
		Use:   "notify (--webhook <url> | --desktop)",
		Short: "POST what needs a person (blockers, handoffs, critical posts) to webhooks, or show it on the desktop",
		Long: `Run until interrupted, POSTing one JSON object to every --webhook for each
thing on the board that needs a person: a HANDOFF or BLOCKED nobody accepted
(type handoff, blocked), an agent whose status is blocked (stuck), a critical
post (critical), an edit inside another agent's reservation (incursion) — and
once more, with "escalated": true, when a HANDOFF or BLOCKED is still not
accepted after the board's attention.escalate_after minutes (bb config;
default 15). It wakes when the board changes (or, with $BB_SERVER, the
server's board) and when an escalation falls due.

The object (Content-Type: application/json):
  {"id": "blocked:<message id>", "type": "blocked", "escalated": false,
   "agent": "carol", "to": "dana", "bead_id": "bb-2",
   "subject": "need the schema", "text": "carol is blocked on dana on bb-2: need the schema",
   "waiting_minutes": 3, "at": "2026-11-26T10:00:00Z",
   "board": "/home/dana/proj", "link": "http://127.0.0.1:7777/"}
"id" is stable for as long as the item waits (an escalation appends
":escalated"); "text" is one line for a chat message; "link" is --dashboard.

Delivery: each object is retried up to 5 times (pauses of 1, 2, 4, 8 s) on a
network error or a status other than 2xx, then dropped with a line on
stderr; at most 256 wait to be sent (more are dropped, said on stderr). Each
delivery that succeeded is recorded on the board per webhook (by a hash of
its URL) and for the desktop, so on start bb notify sends what still waits
and was never delivered there: an item made while it was stopped arrives,
one delivered before does not arrive again (stopped between a delivery and
its record, that one is sent again: receivers can tell by "id"); an item that
came and went while bb notify was not running is not sent.

--desktop shows each item as a desktop notification instead of (or beside)
webhooks: notify-send on Linux and the BSDs (package libnotify-bin), osascript
on macOS, a toast through Windows PowerShell on Windows (nothing to install);
title "Blackboard: <type>", body the item's text.`,
		Example: `  bb notify --webhook https://hooks.example.com/T000/B000/XXX
  bb notify --webhook http://127.0.0.1:9000/bb --webhook https://ntfy.sh/my-team
  bb config set attention.escalate_after 30 && bb notify --webhook "$HOOK"
  bb notify --desktop &`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkWebhooks(hooks); err != nil {
				return err
			}
			if len(hooks) == 0 && !desktop {
				return usageErr{errors.New("give --webhook <url> (repeatable), --desktop, or both")}
			}
			var show func(ctx context.Context, title, text string) error
			if desktop {
				var err error
				if show, err = desktopNotifier(runtime.GOOS, exec.LookPath); err != nil {
					return err
				}
			}
			a.longLived = true
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			n := notify.New(svc, notify.Options{Webhooks: hooks, Desktop: show, Dashboard: dashboard, Log: a.env.Stderr})
			if !a.g.quiet {
				to := fmt.Sprintf("%d webhook(s)", len(hooks))
				if desktop {
					to += " and the desktop"
				}
				fmt.Fprintf(a.env.Stderr, "bb notify: sending what needs a person on %s to %s; Ctrl+C to stop\n", svc.Root(), to)
			}
			return n.Run(cmd.Context())
		},
	}
	c.Flags().StringArrayVar(&hooks, "webhook", nil, "POST each item to this URL (repeatable)")
	c.Flags().BoolVar(&desktop, "desktop", false, "show each item as a desktop notification (notify-send, osascript, a PowerShell toast on Windows)")
	c.Flags().StringVar(&dashboard, "dashboard", "http://127.0.0.1:7777/", "the dashboard's URL, sent as \"link\"")
	return c
}

// checkWebhooks refuses a --webhook that is not an http(s) URL.
func checkWebhooks(hooks []string) error {
	for _, h := range hooks {
		u, err := url.Parse(h)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return hub.FieldErr(hub.CodeInvalidInput, "webhook", "invalid --webhook %q: expected an http:// or https:// URL", h)
		}
	}
	return nil
}

// startNotify runs bb notify's engine beside bb serve (--webhook) until
// the returned stop is called; stop waits for it to end.
func (a *app) startNotify(ctx context.Context, svc notify.API, hooks []string, dashboard string, delivered func(ok bool)) (stop func()) {
	if len(hooks) == 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := notify.New(svc, notify.Options{Webhooks: hooks, Dashboard: dashboard, Log: a.env.Stderr, Delivered: delivered}).Run(ctx); err != nil {
			fmt.Fprintf(a.env.Stderr, "bb serve: webhooks stopped: %s\n", hub.WordsOf(err, hub.Vocabulary{}))
		}
	}()
	return func() { cancel(); <-done }
}
