package bb

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/shellquote"
)

// envCmd is `bb env`: the variables that put the drop-ins (agent-mail,
// vybe, and their hooks) on this project's board, leaving their own
// defaults (~/.agent-mail/mail.db, ~/.config/vybe/vybe.db) untouched.
func (a *app) envCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "env",
		Short: "Print the variables that put agent-mail and vybe on this board",
		Long: `Print shell export lines that make agent-mail and vybe (and the hooks
they run) use this project's board instead of their own default databases:
AGENT_MAIL_DB and VYBE_DB_PATH name .bb/blackboard.db, or with a PostgreSQL
board ($BB_DATABASE_URL / --database-url) AGENT_MAIL_DB and BB_DATABASE_URL
name the database. --json gives the same as an object.`,
		Example: `  eval "$(bb env)"            # in this shell, agent-mail and vybe see the board
  bb env >> .envrc            # or keep it with direnv`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
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
}
