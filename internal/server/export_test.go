package server

import "net/http"

// HandlerUnobserved is Handler without its observation (request ids, the
// per-request metrics and log line): the baseline of the cost benchmark.
func (s *Server) HandlerUnobserved() http.Handler { return s.guard(s.mux) }
