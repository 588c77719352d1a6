package hub

// ReservationTx is the data access of file reservations (bb agent reserve).
type ReservationTx interface{}
