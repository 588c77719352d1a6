package mcp

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Mail: messages addressed to an agent about a bead (bb agent
// send/inbox/read/ack). Board posts are not mail: they are read with
// bb_read_messages and never fill the inbox.

type sendIn struct {
	Agent     string `json:"agent,omitempty" jsonschema:"recipient or broadcast"`
	Bead      string `json:"bead,omitempty" jsonschema:"task/bead id"`
	InReplyTo string `json:"in_reply_to,omitempty" jsonschema:"mail id answered"`
	Category  string `json:"category,omitempty" jsonschema:"default INFO"`
	Subject   string `json:"subject,omitempty" jsonschema:"one line"`
	Body      string `json:"body" jsonschema:"the mail"`
	Thread    string `json:"thread,omitempty" jsonschema:"default bead:ID"`
	Priority  string `json:"priority,omitempty" jsonschema:"default normal"`
}

type inboxIn struct {
	State    string `json:"state,omitempty" jsonschema:"only this"`
	Bead     string `json:"bead,omitempty" jsonschema:"only this"`
	MarkRead bool   `json:"mark_read,omitempty" jsonschema:"mark shown read"`
	Limit    int    `json:"limit,omitempty" jsonschema:"default 50"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"next_cursor"`
}

type mailListOut struct {
	Messages   []MailOut `json:"messages"`
	NextCursor string    `json:"next_cursor,omitempty"`
}

type messageIDIn struct {
	MessageID string `json:"message_id" jsonschema:"mail id"`
}

func (s *Server) addMailTools() {
	addTool(s, tool{name: "bb_send_mail", needsID: true, touchFirst: true, core: true,
		desc: "Mail one agent (or broadcast) about a bead."},
		func(ctx context.Context, c *call, in sendIn) (MailOut, error) {
			if in.InReplyTo != "" { // recipient, bead, thread and subject come from it
				m, err := c.svc.ReplyMail(ctx, hub.ReplyInput{Agent: c.agent, Message: in.InReplyTo, Body: in.Body, Category: in.Category, Priority: in.Priority})
				return mailOut(m), err
			}
			cat := in.Category
			if cat == "" {
				cat = hub.CategoryInfo
			}
			m, err := c.svc.SendMail(ctx, hub.SendInput{From: c.agent, To: in.Agent, BeadID: in.Bead, Category: cat, Subject: in.Subject, Body: in.Body, ThreadID: in.Thread, Priority: in.Priority})
			out := mailOut(m)
			out.Wait = hub.WaitLine(m.Wait, mcpAction)
			return out, err
		})

	addTool(s, tool{name: "bb_inbox", needsID: true, touchFirst: true, core: true, idempotent: true,
		desc: "Your mail, newest first."},
		func(ctx context.Context, c *call, in inboxIn) (mailListOut, error) {
			off, err := offsetOf(in.Cursor)
			if err != nil {
				return mailListOut{}, err
			}
			limit := limitOr(in.Limit, hub.DefaultInboxLimit)
			items, err := c.svc.Inbox(ctx, hub.InboxQuery{Agent: c.agent, State: in.State, BeadID: in.Bead, MailOnly: true,
				Limit: min(off+limit+1, hub.MaxInboxLimit)})
			if err != nil {
				return mailListOut{}, err
			}
			page, next := pageOf(items, off, limit)
			if in.MarkRead {
				// The unread of the page are read in one transaction.
				var unread []string
				at := map[string]int{}
				for i, it := range page {
					if it.State == hub.StateUnread {
						at[it.UUID] = i
						unread = append(unread, it.UUID)
					}
				}
				if len(unread) > 0 {
					read, err := c.svc.ReadMailMany(ctx, c.agent, unread)
					if err != nil {
						return mailListOut{}, err
					}
					for _, it := range read {
						page[at[it.UUID]] = it
					}
				}
			}
			out := mailListOut{Messages: make([]MailOut, 0, len(page)), NextCursor: next}
			for _, it := range page {
				out.Messages = append(out.Messages, mailOut(it))
			}
			return out, nil
		})

	addTool(s, tool{name: "bb_ack", needsID: true, core: true, idempotent: true,
		desc: "Acknowledge HANDOFF/BLOCKED mail to you."},
		func(ctx context.Context, c *call, in messageIDIn) (MailOut, error) {
			m, err := c.svc.AckMail(ctx, c.agent, in.MessageID)
			return mailOut(m), err
		})
}
