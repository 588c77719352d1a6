package hub

// MailTx is the data access of direct mail with read/ack receipts
// (bb agent send/inbox/read/ack, seed 000 §6).
type MailTx interface{}
