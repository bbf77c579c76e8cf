package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Open opens the store a --store value names:
//
//	memory              NewMemory
//	sqlite:PATH         OpenSQLite(PATH), e.g. sqlite:byomcp.db
//	redis://…, rediss:// OpenRedis, e.g. redis://127.0.0.1:6379/0?prefix=byomcp:&ttl=24h
//
// Anything else is an error that lists these forms.
func Open(ctx context.Context, spec string) (Store, error) {
	switch {
	case spec == "memory":
		return NewMemory(), nil
	case strings.HasPrefix(spec, "sqlite:"):
		path := strings.TrimPrefix(spec, "sqlite:")
		if path == "" {
			return nil, fmt.Errorf("store: %q names no file (want sqlite:PATH)", spec)
		}
		return OpenSQLite(ctx, path)
	case strings.HasPrefix(spec, "redis://"), strings.HasPrefix(spec, "rediss://"):
		return OpenRedis(ctx, spec)
	}
	return nil, errUnknownStore(spec)
}

func errUnknownStore(spec string) error {
	return fmt.Errorf("store: unknown store %q (want memory, sqlite:PATH, redis://HOST:PORT/DB or rediss://…)", spec)
}

// CheckSpec says whether Open takes the form of spec, without opening anything (no file is
// created, no server dialled): a command checks its configuration first.
func CheckSpec(spec string) error {
	switch {
	case spec == "memory":
		return nil
	case strings.HasPrefix(spec, "sqlite:"):
		if path := strings.TrimPrefix(spec, "sqlite:"); path == "" || path == ":memory:" || path == "file::memory:" {
			return fmt.Errorf("store: %q names no file (want sqlite:PATH)", spec)
		}
		return nil
	case strings.HasPrefix(spec, "redis://"), strings.HasPrefix(spec, "rediss://"):
		_, rest, err := redisURLOptions(spec)
		if err != nil {
			return err
		}
		if _, err := redis.ParseURL(rest); err != nil {
			return fmt.Errorf("store: redis: %w", err)
		}
		return nil
	}
	return errUnknownStore(spec)
}
