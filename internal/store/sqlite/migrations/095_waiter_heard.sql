-- When a lease waiter last wrote its place in the queue. A waiting
-- process renews it at least every 10 seconds; a waiter not heard from
-- for 30 seconds is passed over, on any host: its process is gone even
-- when its pid was reused by another, or it ran on another machine.
-- '' for rows from before (read as since).
ALTER TABLE lease_waiters ADD COLUMN heard_at TEXT NOT NULL DEFAULT '';
