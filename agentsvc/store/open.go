package store

import (
	"context"
	"fmt"
	"strings"
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
	return nil, fmt.Errorf("store: unknown store %q (want memory, sqlite:PATH, redis://HOST:PORT/DB or rediss://…)", spec)
}
