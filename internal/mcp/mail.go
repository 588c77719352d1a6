package mcp

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Direct mail of seed 000 §6 (bb agent send/inbox/read/ack).

type sendIn struct {
	To       string `json:"to" jsonschema:"agent id, or broadcast"`
	Bead     string `json:"bead" jsonschema:"task/bead id the message is about"`
	Category string `json:"category,omitempty" jsonschema:"HANDOFF|BLOCKED|DECISION|INFO (default INFO); HANDOFF and BLOCKED require an ack"`
	Subject  string `json:"subject"`
	Body     string `json:"body"`
	Thread   string `json:"thread,omitempty" jsonschema:"default bead:<bead>"`
}

type inboxIn struct {
	State string `json:"state,omitempty" jsonschema:"unread|read|acked"`
	Bead  string `json:"bead,omitempty"`
	Limit int    `json:"limit,omitempty" jsonschema:"1-500, default 50"`
}

type mailListOut struct {
	Messages []MailOut `json:"messages"`
}

type messageIDIn struct {
	MessageID string `json:"message_id"`
}

func (s *Server) addMailTools() {
	addTool(s, tool{name: "bb_send", needsID: true, touchFirst: true, core: true,
		desc: "Send mail to one agent (or broadcast) about a bead: HANDOFF work, report BLOCKED, record a DECISION, or INFO."},
		func(ctx context.Context, c *call, in sendIn) (MailOut, error) {
			cat := in.Category
			if cat == "" {
				cat = hub.CategoryInfo
			}
			m, err := c.svc.SendMail(ctx, hub.SendInput{From: c.agent, To: in.To, BeadID: in.Bead, Category: cat, Subject: in.Subject, Body: in.Body, ThreadID: in.Thread})
			return mailOut(m), err
		})

	addTool(s, tool{name: "bb_inbox", needsID: true, touchFirst: true, readOnly: true, core: true,
		desc: "List mail addressed to you (newest first) with its state; check it when notices report unread mail or acks owed."},
		func(ctx context.Context, c *call, in inboxIn) (mailListOut, error) {
			items, err := c.svc.Inbox(ctx, hub.InboxQuery{Agent: c.agent, State: in.State, BeadID: in.Bead, Limit: in.Limit})
			out := mailListOut{Messages: make([]MailOut, 0, len(items))}
			for _, it := range items {
				out.Messages = append(out.Messages, mailOut(it))
			}
			return out, err
		})

	addTool(s, tool{name: "bb_read_mail", needsID: true,
		desc: "Mark one message of your inbox read (after acting on it) and get it."},
		func(ctx context.Context, c *call, in messageIDIn) (MailOut, error) {
			m, err := c.svc.ReadMail(ctx, c.agent, in.MessageID)
			return mailOut(m), err
		})

	addTool(s, tool{name: "bb_ack", needsID: true, core: true,
		desc: "Acknowledge a message addressed to you; HANDOFF and BLOCKED messages wait for it."},
		func(ctx context.Context, c *call, in messageIDIn) (MailOut, error) {
			m, err := c.svc.AckMail(ctx, c.agent, in.MessageID)
			return mailOut(m), err
		})

	addTool(s, tool{name: "bb_heartbeat", needsID: true, touchFirst: true,
		desc: "Say you are alive during long work without other calls (any call does it too); returns your liveness."},
		func(ctx context.Context, c *call, _ emptyIn) (AgentInfoOut, error) {
			a, err := c.svc.Heartbeat(ctx, c.agent)
			return agentInfoOut(a), err
		})
}
