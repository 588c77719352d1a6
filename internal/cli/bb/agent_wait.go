package bb

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
)

// waitJSON is bb agent wait's --json data.
type waitJSON struct {
	AgentID   string   `json:"agent_id"`
	Condition string   `json:"condition"`
	Met       bool     `json:"met"`
	TimedOut  bool     `json:"timed_out"`
	Delivered []string `json:"delivered"`
	// Text is what the items say, as a hook would put them into the
	// agent's context.
	Text      string     `json:"text"`
	AckedAt   *time.Time `json:"acked_at,omitempty"`
	Scope     string     `json:"scope,omitempty"`
	TaskID    string     `json:"task_id,omitempty"`
	WaitedMS  int64      `json:"waited_ms"`
	TimeoutMS int64      `json:"timeout_ms"`
}

func (a *app) agentWaitCmd() *cobra.Command {
	var agent, timeout string
	var in hooks.WaitInput
	c := &cobra.Command{
		Use:   "wait",
		Short: "Wait until something arrives for an agent, or a reply, a free scope or a ready task",
		Long: `Block until something arrives for the agent, instead of asking again and
again: new mail addressed to it (HANDOFF, BLOCKED, DECISION, INFO), a reply to
its mail, an escalation of its own unaccepted HANDOFF or BLOCKED, an urgent
board post. What arrives is printed and recorded as delivered, once: the next
hook of the agent's session does not repeat it.

With a condition, only the condition ends the wait, and other mail stays for
the next hook or wait:
  --for-reply <message>  a reply to that message (one the agent sent), or its ack
  --for-scope <path>     the path is free for this agent (nobody active holds it)
  --for-task <task>      the task is ready: every task it depends on is completed

When the time runs out, it says so and exits 0 (--json: "timed_out": true).
--timeout is at most 1h (default 10m). The wait reads nothing while nothing
happens: it wakes on the board's own change signal, on this machine, on
PostgreSQL, or through bb serve.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, err := a.agentActor(cmd, agent, "agent")
			if err != nil {
				return err
			}
			in.Agent, in.Via = id, hooks.ViaWait
			if in.Timeout, err = waitTimeout(timeout); err != nil {
				return err
			}
			if in.ForScope != "" {
				if in.Wd, in.ForScope, err = a.scopeArg(in.ForScope); err != nil {
					return err
				}
			}
			svc, err := a.service(cmd.Context())
			if err != nil {
				return err
			}
			res, err := svc.Wait(cmd.Context(), in, nil)
			if err != nil {
				return err
			}
			return a.reply(cmd, waitView(res, in.Timeout), func(w io.Writer) { a.printWait(w, res, in) })
		},
	}
	f := c.Flags()
	f.StringVar(&agent, "agent", "", "who waits (default --as / $BB_AGENT_ID)")
	f.StringVar(&in.ForReply, "for-reply", "", "wait for a reply to (or the ack of) this message the agent sent")
	f.StringVar(&in.ForScope, "for-scope", "", "wait until this path is free for the agent")
	f.StringVar(&in.ForTask, "for-task", "", "wait until this task's dependencies are completed (id or handle)")
	f.StringVar(&timeout, "timeout", "10m", "how long to wait: a number and a unit s, m or h, at most 1h")
	c.MarkFlagsMutuallyExclusive("for-reply", "for-scope", "for-task")
	return c
}

// waitTimeout reads --timeout, a compact duration; its bounds, (0, 1h],
// are the core's (hooks.MaxWait) and refused there.
func waitTimeout(v string) (time.Duration, error) {
	d, err := hub.ParseDuration(v)
	if err != nil {
		return 0, hub.FieldErr(hub.CodeInvalidInput, "timeout", "--timeout %q: use a number and a unit s, m or h (e.g. 30s, 10m), at most %s", v, hooks.MaxWait)
	}
	return d, nil
}

func waitView(res hooks.WaitResult, timeout time.Duration) waitJSON {
	v := waitJSON{AgentID: res.AgentID, Condition: res.Condition, Met: res.Met, TimedOut: res.TimedOut,
		Delivered: res.Delivery.Delivered, Text: hookWords(deliveryText(res.Delivery)), AckedAt: res.AckedAt, Scope: res.Scope,
		WaitedMS: res.Waited.Milliseconds(), TimeoutMS: timeout.Milliseconds()}
	if v.Delivered == nil {
		v.Delivered = []string{}
	}
	if res.Task != nil {
		v.TaskID = res.Task.ID
	}
	return v
}

func (a *app) printWait(w io.Writer, res hooks.WaitResult, in hooks.WaitInput) {
	what := map[string]string{
		"":      "nothing arrived for " + res.AgentID,
		"reply": "no reply to " + in.ForReply + " and no ack",
		"scope": res.Scope + " is still held",
		"task":  "the task's dependencies are not all completed",
	}[res.Condition]
	if res.TimedOut {
		fmt.Fprintf(w, "Timed out after %s: %s.\n", in.Timeout, what)
		return
	}
	if text := hookWords(deliveryText(res.Delivery)); text != "" {
		fmt.Fprint(w, text)
	}
	switch res.Condition {
	case "reply":
		if len(res.Delivery.Delivered) == 0 && res.AckedAt != nil {
			fmt.Fprintf(w, "Message %s was acknowledged %s.\n", in.ForReply, a.when().at(*res.AckedAt))
		}
	case "scope":
		fmt.Fprintf(w, "%s is free for %s: bb agent reserve --agent %s --scope %s\n", res.Scope, res.AgentID, res.AgentID, res.Scope)
	case "task":
		handle := ""
		if res.Task != nil {
			handle = hub.ShortID(res.Task.ID)
		}
		fmt.Fprintf(w, "Task %s is ready: every task it depends on is completed (bb task begin %s).\n", handle, handle)
	}
}
