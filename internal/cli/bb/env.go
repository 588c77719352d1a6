package bb

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub/leases"
	"github.com/blackboard-hub/bb/internal/shellquote"
)

// envCmd is `bb env`: the variables that put the drop-ins (agent-mail,
// vybe, and their hooks) on this project's board, leaving their own
// defaults (~/.agent-mail/mail.db, ~/.config/vybe/vybe.db) untouched.
func (a *app) envCmd() *cobra.Command {
	var withLeases bool
	c := &cobra.Command{
		Use:   "env",
		Short: "Print the variables that put agent-mail and vybe on this board",
		Long: `Print shell export lines that make agent-mail and vybe (and the hooks
they run) use this project's board instead of their own default databases:
AGENT_MAIL_DB and VYBE_DB_PATH name .bb/blackboard.db, or with a PostgreSQL
board ($BB_DATABASE_URL / --database-url) AGENT_MAIL_DB and BB_DATABASE_URL
name the database. --json gives the same as an object.

--leases prints instead the acting agent's ports and names (bb lease;
the leases a session gets at its start with leases.session), as
BB_PORT_<LABEL> and BB_LEASE_<LABEL>.`,
		Example: `  eval "$(bb env)"            # in this shell, agent-mail and vybe see the board
  bb env >> .envrc            # or keep it with direnv
  eval "$(bb env --leases)"   # BB_PORT_WEB=41017, BB_LEASE_DB=db-wise-robin
  npm run dev -- --port "$(bb -q lease acquire --port web)"`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if withLeases {
				return a.envLeases(cmd)
			}
			cfg, err := a.boardConfig()
			if err != nil {
				return err
			}
			vars := [][2]string{}
			if cfg.DatabaseURL != "" {
				vars = append(vars, [2]string{"AGENT_MAIL_DB", cfg.DatabaseURL}, [2]string{"BB_DATABASE_URL", cfg.DatabaseURL})
			} else {
				vars = append(vars, [2]string{"AGENT_MAIL_DB", cfg.SQLitePath}, [2]string{"VYBE_DB_PATH", cfg.SQLitePath})
			}
			data := map[string]string{}
			for _, v := range vars {
				data[v[0]] = v[1]
			}
			return a.reply(cmd, data, func(w io.Writer) {
				for _, v := range vars {
					fmt.Fprintf(w, "export %s=%s\n", v[0], shellquote.Quote(v[1]))
				}
			})
		},
	}
	c.Flags().BoolVar(&withLeases, "leases", false, "print the acting agent's leased ports and names instead")
	return c
}

// envLeases is bb env --leases: export lines of the acting agent's
// leases that hand out a value (ports, names).
func (a *app) envLeases(cmd *cobra.Command) error {
	agent, err := a.taskActor()
	if err != nil {
		return err
	}
	svc, err := a.service(cmd.Context())
	if err != nil {
		return err
	}
	ss, err := svc.ListLeases(cmd.Context(), leases.ListFilter{Agent: agent})
	if err != nil {
		return err
	}
	var mine []leases.Lease
	for _, s := range ss {
		for _, h := range s.Holders {
			if h.Agent == agent && !h.Expired {
				mine = append(mine, h.Lease)
			}
		}
	}
	lines := leases.EnvLines(mine)
	data := map[string]string{}
	for _, kv := range lines {
		k, v, _ := strings.Cut(kv, "=")
		data[k] = v
	}
	return a.reply(cmd, data, func(w io.Writer) {
		for _, kv := range lines {
			k, v, _ := strings.Cut(kv, "=")
			fmt.Fprintf(w, "export %s=%s\n", k, shellquote.Quote(v))
		}
	})
}
