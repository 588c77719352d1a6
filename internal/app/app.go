// Package app composes the core's roles into the one API every surface
// uses: the kernel and shared domain (internal/hub), the hook application
// (internal/hub/hooks), the Agent Mail v1 rules (internal/hub/agentmail),
// the dashboard's read model (internal/hub/overview), an agent's work
// loop (internal/hub/resume), the shared memory (internal/hub/memory) and
// the full-text search (internal/hub/search), the credentials of bb serve
// (internal/hub/credentials), the operator's housekeeping
// (internal/hub/housekeeping), the artifact register
// (internal/hub/artifacts) and a person's oversight of reservations
// (internal/hub/oversight).
// The core never imports its features; this package sits one level up.
//
// API is implemented by *Service (the local board, built by internal/boot)
// and by the remote client of internal/server/remote (a bb serve reached
// through BB_SERVER). A surface that uses only some roles declares an
// interface of those roles and is handed an API.
package app

import (
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/agentmail"
	"github.com/blackboard-hub/bb/internal/hub/artifacts"
	"github.com/blackboard-hub/bb/internal/hub/credentials"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/hub/housekeeping"
	"github.com/blackboard-hub/bb/internal/hub/leases"
	"github.com/blackboard-hub/bb/internal/hub/memory"
	"github.com/blackboard-hub/bb/internal/hub/oversight"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/hub/resume"
	"github.com/blackboard-hub/bb/internal/hub/search"
)

// API is every role of the board.
type API interface {
	hub.Identity
	hub.Messages
	hub.Mail
	hub.Reservations
	hub.Tasks
	hub.Timeline
	hub.Admin
	hooks.API
	agentmail.API
	overview.API
	resume.API
	memory.API
	search.API
	artifacts.API
	credentials.API
	housekeeping.API
	oversight.API
	leases.API
}

// The parts of Service, named for what they are.
type (
	kernel          = hub.Service
	hookApp         = hooks.Service
	agentMailApp    = agentmail.Service
	overviewApp     = overview.Service
	resumeApp       = resume.Service
	memoryApp       = memory.Service
	searchApp       = search.Service
	artifactsApp    = artifacts.Service
	credentialsApp  = credentials.Service
	housekeepingApp = housekeeping.Service
	oversightApp    = oversight.Service
	leasesApp       = leases.Service
)

// Service is the local board: the kernel with its applications.
type Service struct {
	*kernel
	*hookApp
	*agentMailApp
	*overviewApp
	*resumeApp
	*memoryApp
	*searchApp
	*artifactsApp
	*credentialsApp
	*housekeepingApp
	*oversightApp
	*leasesApp
}

// New composes the applications over the kernel k.
func New(k *hub.Service) *Service {
	return &Service{kernel: k, hookApp: hooks.New(k), agentMailApp: agentmail.New(k), overviewApp: overview.New(k),
		resumeApp: resume.New(k), memoryApp: memory.New(k), searchApp: search.New(k), artifactsApp: artifacts.New(k),
		credentialsApp: credentials.New(k), housekeepingApp: housekeeping.New(k), oversightApp: oversight.New(k),
		leasesApp: leases.New(k)}
}

// Kernel is the core under the applications (for internal/boot, which
// closes its store).
func (s *Service) Kernel() *hub.Service { return s.kernel }

var _ API = (*Service)(nil)
