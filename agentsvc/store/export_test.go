package store

import "time"

// SetClock makes s read the time from now: update times and claims of the memory and SQLite
// stores, update times of the Redis store (Redis expires its claims on its own clock).
func SetClock(s Store, now func() time.Time) {
	switch s := s.(type) {
	case *memory:
		s.now = now
	case *sqliteStore:
		s.now = now
	case *redisStore:
		s.now = now
	}
}

// Migrations is the number of schema migrations, the user_version of an up-to-date file.
var Migrations = len(migrations)
