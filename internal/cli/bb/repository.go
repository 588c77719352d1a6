package bb

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/termtext"
)

// bb repository: the repository a board serves (its claim, docs/security.md).

func (a *app) repositoryCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "repository",
		Short: "The repository the board serves: show it, or reset it (operator)",
		Long: `A board serves one repository, named by its first commit: a checkout of
another repository reaching it through bb serve is refused (WRONG_REPOSITORY),
so that its paths never mix with the board's. The first bb serve started in a
checkout, or the operator, fixes it; an agent's or overseer's checkout never
does. If the board was claimed for the wrong repository, the operator resets
the claim and the next checkout to call in claims it again.`,
		Example: `  bb repository show
  BB_SERVER=http://hub:7777 BB_TOKEN=$OPERATOR bb repository reset
  bb --json repository reset`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(a.repositoryShowCmd(), a.repositoryResetCmd())
	return c
}

// repositoryView is the board's repository as bb --json shows it.
type repositoryView struct {
	// Repository is the first commit of the repository the board serves
	// ("" when none is claimed yet).
	Repository string `json:"repository"`
}

func (a *app) repositoryShowCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "show",
		Short: "Show the repository the board serves (its first commit)",
		Example: `  bb repository show
  bb --json repository show`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			id, err := svc.ClaimRepository(cmd.Context(), "")
			if err != nil {
				return err
			}
			return a.reply(cmd, repositoryView{Repository: id}, func(w io.Writer) {
				if id == "" {
					fmt.Fprintln(w, "The board serves no repository yet: the first bb serve in a checkout, or the operator's checkout, claims it.")
					return
				}
				fmt.Fprintf(w, "The board serves the repository whose first commit is %s.\n", termtext.Line(id))
			})
		},
	}
}

func (a *app) repositoryResetCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "reset",
		Short: "Forget the repository the board serves (operator only)",
		Long: `Forget the repository the board serves: the next checkout that reaches the
board through bb serve with the operator's token (or the next bb serve started
in a checkout) claims it again. The reset is recorded on the timeline
(repository.reset) with the credential that made it. Agents and overseers are
refused (FORBIDDEN).`,
		Example: `  BB_SERVER=http://hub:7777 BB_TOKEN=$OPERATOR bb repository reset
  bb --json repository reset`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			res, err := svc.ResetRepository(cmd.Context())
			if err != nil {
				return err
			}
			return a.reply(cmd, res, func(w io.Writer) {
				if res.Was == "" {
					fmt.Fprintln(w, "The board served no repository: nothing to reset.")
					return
				}
				fmt.Fprintf(w, "The board no longer serves the repository whose first commit is %s: the next checkout to call in claims it.\n", termtext.Line(res.Was))
			})
		},
	}
}
