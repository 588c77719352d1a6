package hub

// AgentMailTx is the data access Agent Mail (seed 004) needs beyond MailTx:
// inbox reads with its filters, threads, status counts, TTL cleanup.
type AgentMailTx interface{}
