package server

import (
	_ "embed"
	"net/http"
)

// openAPIDoc is the OpenAPI 3.1 description of the HTTP API. A test keeps
// it true: every route the server registers is described, every described
// route exists, and it validates (kin-openapi).
//
//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the OpenAPI 3.1 document of the API.
func OpenAPI() []byte { return append([]byte(nil), openAPIDoc...) }

// openAPI serves GET /api/v1/openapi.json.
func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(openAPIDoc)
}
