// Package state is what the App remembers across deliveries and shares
// across replicas, each behind one interface with its in-memory and Redis
// implementations side by side: the deliveries seen (DeliverySet:
// store.go, redis_dedup.go), the per-PR leases (Locker and Lease:
// store.go, redis_lease.go), the work queue (redis_work.go), the ledger of
// heads and edits (ledger.go, redis_ledger.go), the heads set aside
// (deadletter.go), and the blob caches (cache.go, with the shared tier in
// redis_blobs.go). redis.go connects, watches Redis's health and retries
// with backoff: while Redis is down, Up is false and callers fall back
// (acknowledge now, claim later) rather than wait.
package state
