// Package jsonerr says what is wrong with a JSON value in the terms of the JSON a client
// sent, not of the Go types it was decoded into.
package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Describe says why decoding the member at path (JSON member names joined by ".", "" for the
// whole value) failed: "text must be a string, not a number". An error that is not a type
// mismatch is given as it is.
func Describe(path string, err error) string {
	te, ok := errors.AsType[*json.UnmarshalTypeError](err)
	if !ok {
		if path != "" {
			return path + ": " + err.Error()
		}
		return err.Error()
	}
	switch {
	case path != "" && te.Field != "":
		path += "." + te.Field
	case te.Field != "":
		path = te.Field
	}
	if path == "" {
		path = "the value"
	}
	if lo, hi, ok := intRange(te.Type); ok && strings.HasPrefix(te.Value, "number ") {
		// A number, but not one the member takes: 1.5, or 1e308 for a 64-bit count.
		return fmt.Sprintf("%s must be a whole number from %d to %d, not %s", path, lo, hi, strings.TrimPrefix(te.Value, "number "))
	}
	if want := kind(te.Type); want != "" {
		return path + " must be " + want + ", not " + article(te.Value)
	}
	return path + " must not be " + article(te.Value)
}

// intRange is the range of an integer type (through pointers); ok is false for the others.
func intRange(t reflect.Type) (lo int64, hi uint64, ok bool) {
	if t == nil {
		return 0, 0, false
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	bits := t.Bits
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := bits()
		return -1 << (n - 1), 1<<(n-1) - 1, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return 0, 1<<bits() - 1, true
	}
	return 0, 0, false
}

// kind is the JSON kind a Go type decodes from, with its article ("" when any would do).
func kind(t reflect.Type) string {
	if t == nil {
		return ""
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return ""
}

// article is a JSON kind as json.UnmarshalTypeError.Value names it, with its article.
func article(v string) string {
	switch v {
	case "array", "object":
		return "an " + v
	case "":
		return "this value"
	case "bool":
		return "a boolean"
	default:
		if strings.HasPrefix(v, "number ") { // "number 1.5": a number that does not fit
			return v
		}
		return "a " + v
	}
}
