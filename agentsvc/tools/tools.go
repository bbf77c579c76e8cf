// Package tools is how a tool looks to the model: its compiled input schema, its
// model-facing name, and its result rendered as labelled, size-capped text.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	fastjson "github.com/segmentio/encoding/json"
)

// Schema is a compiled tool input schema with the cost model that bounds its validation.
type Schema struct {
	s    *jsonschema.Schema
	cost *cost
}

// refusingLoader refuses every URL that is not one of the built-in meta-schemas: a tool
// schema never makes the agent fetch anything, local or remote.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external $ref %q is not allowed", url)
}

const schemaURL = "urn:byomcp:tool-input"

// CompileSchema compiles a tool's inputSchema. An empty schema means "an object with any
// properties". The schema must describe an object (type "object" or no type). A schema over
// MaxSchemaBytes, MaxSchemaDepth or MaxSchemaObjects is refused before it is decoded, and one
// over MaxSchemaFanout right after it is compiled.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	if err := checkShape(raw, MaxSchemaBytes, MaxSchemaDepth, MaxSchemaObjects); err != nil {
		return nil, fmt.Errorf("tools: inputSchema too large: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("tools: inputSchema is not JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("tools: inputSchema must be a JSON object")
	}
	if t, has := obj["type"]; has && t != "object" {
		return nil, fmt.Errorf("tools: inputSchema type must be \"object\", got %v", t)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refusingLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("tools: inputSchema: %w", err)
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("tools: invalid inputSchema: %s", oneLine(err.Error()))
	}
	cm, err := analyse(s, MaxSchemaFanout)
	if err != nil {
		return nil, fmt.Errorf("tools: inputSchema too costly: %w", err)
	}
	return &Schema{s: s, cost: cm}, nil
}

// Root is the compiled schema, for readers of its keywords (the offline planner fills
// arguments from them); it must not be changed.
func (s *Schema) Root() *jsonschema.Schema { return s.s }

// Validate checks arguments (a JSON object; empty means {}) against the schema. The error
// message is written for the model, so it can correct its call. Arguments nested deeper than
// MaxArgumentDepth, or whose validation would take more than MaxValidationSteps, are refused
// before the validator runs, so a call costs at most that budget. When ctx is cancelled,
// Validate returns its error at once.
func (s *Schema) Validate(ctx context.Context, args json.RawMessage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if err := checkShape(args, len(args), MaxArgumentDepth, 0); err != nil {
		return fmt.Errorf("arguments are %v", err)
	}
	// Decoded as jsonschema.UnmarshalJSON does (numbers as json.Number, nothing after the
	// value), with segmentio/encoding: the agent validates every tool call's arguments.
	var inst any
	rest, err := fastjson.Parse(args, &inst, fastjson.UseNumber)
	if err == nil && len(bytes.TrimSpace(rest)) > 0 {
		err = fmt.Errorf("invalid character %q after the value", rest[0])
	}
	if err != nil {
		return fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	if _, ok := inst.(map[string]any); !ok {
		return errors.New("arguments must be a JSON object")
	}
	steps, err := s.cost.check(ctx, inst, MaxValidationSteps)
	if err != nil {
		return err
	}
	if steps <= inlineSteps {
		return s.validate(inst)
	}
	// A long validation (up to MaxValidationSteps) runs on its own goroutine, so that a
	// cancelled turn does not wait for it; it ends by itself soon after. A panic in it is
	// raised again here while the caller waits (where the caller's containment sees it).
	type result struct {
		err   error
		panic any
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{panic: p}
			}
		}()
		done <- result{err: s.validate(inst)}
	}()
	select {
	case r := <-done:
		if r.panic != nil {
			panic(r.panic)
		}
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// validate runs the validator and writes its errors for the model.
func (s *Schema) validate(inst any) error {
	if err := s.s.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return errors.New(describe(ve))
		}
		return err
	}
	return nil
}

// describe turns a validation error tree into a few lines naming each failing location.
func describe(ve *jsonschema.ValidationError) string {
	out := ve.BasicOutput()
	var lines []string
	for _, u := range out.Errors {
		if u.Error == nil {
			continue
		}
		msg := u.Error.String()
		if msg == "" || strings.HasPrefix(msg, "validation failed") {
			continue
		}
		loc := u.InstanceLocation
		if loc == "" {
			loc = "/"
		}
		line := fmt.Sprintf("at %s: %s", loc, msg)
		if len(lines) < 8 && !contains(lines, line) {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return "arguments do not match the schema: " + oneLine(ve.Error())
	}
	return "arguments do not match the schema: " + strings.Join(lines, "; ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
