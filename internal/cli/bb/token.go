package bb

import (
	"github.com/blackboard-hub/bb/internal/hub/credentials"

	"github.com/blackboard-hub/bb/internal/hub/memory"

	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/termtext"
)

// bb token: the credentials bb serve accepts (docs/security.md).

func (a *app) tokenCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "token",
		Short: "Credentials of bb serve: one per agent, overseer or operator",
		Long: `A credential is a secret bb serve accepts instead of its own --token (which
is the operator's). An agent's credential acts only as its agent; an
overseer (a person) may also step in on other agents' work; an operator may
do everything. The secret is shown once; the board keeps only its hash.

Works on the local board, or through BB_SERVER with the operator's BB_TOKEN.`,
		Example: `  bb token create --agent claude-1
  BB_SERVER=http://hub:7777 BB_TOKEN=$OPERATOR bb token create --agent ana --role overseer --expires 30d --json
  bb token list
  bb token revoke claude-1`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(a.tokenCreateCmd(), a.tokenListCmd(), a.tokenRevokeCmd())
	return c
}

// credentialView is a credential as bb --json shows it.
type credentialView struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Agent     string  `json:"agent"`
	Role      string  `json:"role"`
	State     string  `json:"state"`
	CreatedBy string  `json:"created_by"`
	CreatedAt string  `json:"created_at"`
	ExpiresAt *string `json:"expires_at"`
	RevokedAt *string `json:"revoked_at"`
	Token     string  `json:"token,omitempty"`
}

func viewCredential(c hub.Credential, now time.Time) credentialView {
	v := credentialView{ID: c.ID, Name: c.Name, Agent: c.Agent, Role: string(c.Role), State: c.State(now),
		CreatedBy: c.CreatedBy, CreatedAt: hub.FormatTime(c.CreatedAt)}
	if c.ExpiresAt != nil {
		s := hub.FormatTime(*c.ExpiresAt)
		v.ExpiresAt = &s
	}
	if c.RevokedAt != nil {
		s := hub.FormatTime(*c.RevokedAt)
		v.RevokedAt = &s
	}
	return v
}

func (a *app) tokenCreateCmd() *cobra.Command {
	var in credentials.Input
	var role, expires string
	c := &cobra.Command{
		Use:     "create --agent <id>",
		Short:   "Create a credential and print its secret (once)",
		Example: `  bb token create --agent claude-1 --expires 7d`,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if in.Role, err = hub.ParseAccess("role", role); err != nil {
				return err
			}
			if expires != "" {
				if in.Expires, err = memory.CheckExpiresIn("expires", expires); err != nil {
					return err
				}
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			nc, err := svc.CreateCredential(cmd.Context(), in)
			if err != nil {
				return err
			}
			v := viewCredential(nc.Credential, svc.Now())
			v.Token = nc.Token
			return a.reply(cmd, v, func(w io.Writer) {
				who := "the operator"
				if nc.Agent != "" {
					who = "agent " + termtext.Line(nc.Agent)
				}
				fmt.Fprintf(w, "Created credential %s (%s, acts as %s)\n", termtext.Line(nc.Name), nc.Role, who)
				fmt.Fprintf(w, "Token (shown once; give it as BB_TOKEN with BB_SERVER):\n%s\n", nc.Token)
			})
		},
	}
	f := c.Flags()
	f.StringVar(&in.Agent, "agent", "", "the agent the credential acts as (required unless --role operator)")
	f.StringVar(&role, "role", string(hub.AccessAgent), "agent, overseer or operator")
	f.StringVar(&in.Name, "name", "", "name shown in lists and in the audit (default: the agent id)")
	f.StringVar(&expires, "expires", "", "lifetime: 90m, 12h, 30d, 2w (default: until revoked)")
	return c
}

func (a *app) tokenListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List credentials (never their secrets)",
		Example: `  bb token list
  BB_SERVER=http://hub:7777 BB_TOKEN=$OPERATOR_TOKEN bb --json token list`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			cs, err := svc.ListCredentials(cmd.Context())
			if err != nil {
				return err
			}
			now := svc.Now()
			vs := make([]credentialView, 0, len(cs))
			for _, c := range cs {
				vs = append(vs, viewCredential(c, now))
			}
			return a.reply(cmd, vs, func(w io.Writer) {
				if len(vs) == 0 {
					fmt.Fprintln(w, "No credentials (bb token create --agent <id>).")
					return
				}
				for i, v := range vs {
					exp := ""
					if e := cs[i].ExpiresAt; e != nil {
						exp = "  expires " + hub.WhenText(now, *e)
					}
					fmt.Fprintf(w, "%-20s %-9s %-8s %-24s%s\n", termtext.Line(v.Name), v.Role, v.State, termtext.Line(v.Agent), exp)
				}
			})
		},
	}
}

func (a *app) tokenRevokeCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "revoke <id-or-name>",
		Short:   "Revoke a credential: it stops working at once",
		Example: `  bb token revoke claude-1`,
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			c, err := svc.RevokeCredential(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			v := viewCredential(c, svc.Now())
			return a.reply(cmd, v, func(w io.Writer) { fmt.Fprintf(w, "Revoked credential %s\n", termtext.Line(c.Name)) })
		},
	}
}
