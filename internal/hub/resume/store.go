package resume

import "github.com/blackboard-hub/bb/internal/hub/memory"

// Tx is the work loop's persistence port: the kernel's transaction and the
// shared memory's (a brief's relevant memory, a push's memories). The SQL
// store implements it (internal/store/sqlstore proves it at compile time);
// the kernel's hub.Tx does not name it.
type Tx interface {
	memory.Tx
}
