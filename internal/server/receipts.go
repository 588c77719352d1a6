package server

import (
	"net/http"

	"github.com/blackboard-hub/bb/internal/hub"
)

// markRead and ack are the dashboard's read and ack actions; reservations
// lists active reservations. They call the mail and reservation use cases
// of the core.

func (s *Server) markRead(r *http.Request, agent string, seq int64) error {
	return hub.Errorf(hub.CodeInvalidInput, "reading messages from the dashboard needs the mail feature")
}

func (s *Server) ack(r *http.Request, agent string, seq int64) error {
	return hub.Errorf(hub.CodeInvalidInput, "acknowledging messages from the dashboard needs the mail feature")
}

func (s *Server) reservations(r *http.Request) ([]reservationRow, bool) {
	return nil, false
}
