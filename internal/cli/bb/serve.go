package bb

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/server"
)

func (a *app) serveCmd() *cobra.Command {
	var addr, token string
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the board over HTTP: JSON API, live events, the Sessions dashboard",
		Long: `Run one long-lived server over this project's board:

  /                        the Sessions dashboard (live, no refresh needed)
  /api/v1/...              the JSON API (the bb --json envelope)
  /api/v1/events/stream    every new event as Server-Sent Events

It listens on 127.0.0.1:7777 by default. Listening on any other address
needs a token (--token or $BB_TOKEN), checked on every request: send
"Authorization: Bearer <token>", or open the dashboard once with
?token=<token>. Other bb processes, agents and tools keep using the same
database while it runs. See docs/serve.md.`,
		Example: `  bb serve
  bb serve --addr 0.0.0.0:7777 --token "$(openssl rand -hex 16)"
  curl -s localhost:7777/api/v1/status`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if token == "" {
				token = strings.TrimSpace(a.env.Getenv("BB_TOKEN"))
			}
			if err := server.CheckBind(addr, token); err != nil {
				return err
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			lvl := slog.LevelInfo
			if a.g.quiet {
				lvl = slog.LevelWarn
			}
			lg := slog.New(slog.NewTextHandler(a.env.Stderr, &slog.HandlerOptions{Level: lvl}))
			srv, err := server.New(server.Config{Service: svc, Addr: addr, Token: token, Log: lg})
			if err != nil {
				return err
			}
			return srv.Run(cmd.Context(), func(bound string) {
				url := "http://" + bound + "/"
				if a.g.json {
					writeJSON(a.env.Stdout, Envelope{OK: true, Command: "serve", Data: map[string]any{
						"url": url, "api": url + "api/v1/", "project_dir": svc.ProjectRoot, "auth": token != ""}})
					return
				}
				fmt.Fprintf(a.env.Stdout, "Blackboard is serving %s\n  dashboard  %s\n  API        %sapi/v1/\n  events     %sapi/v1/events/stream\n", svc.ProjectRoot, url, url, url)
				if token != "" {
					fmt.Fprintf(a.env.Stdout, "  auth       Authorization: Bearer <token> (browser: open %s?token=<token> once)\n", url)
				}
				fmt.Fprintln(a.env.Stdout, "Press Ctrl+C to stop.")
			})
		},
	}
	c.Flags().StringVar(&addr, "addr", server.DefaultAddr, "host:port to listen on (non-loopback needs --token)")
	c.Flags().StringVar(&token, "token", "", "require this bearer token on every request (default $BB_TOKEN)")
	return c
}
