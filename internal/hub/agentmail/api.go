package agentmail

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// API is Agent Mail's role: what the agent-mail drop-in asks of the board.
type API interface {
	SendAgentMail(ctx context.Context, in MailSendInput) (hub.MailRow, error)
	ReadAgentMail(ctx context.Context, in MailReadInput) ([]hub.MailRow, error)
	AckAgentMail(ctx context.Context, agent, id string) (MailAckResult, error)
	AgentMailStatus(ctx context.Context, agent, project string) ([]hub.MailCounts, error)
	CleanAgentMail(ctx context.Context, dryRun bool) (MailCleanupResult, error)
}

var _ API = (*Service)(nil)
