package hub

// TaskTx is the data access of tasks and dependencies (seed 002).
type TaskTx interface{}

// MemoryTx is the data access of shared memory (seed 002).
type MemoryTx interface{}
