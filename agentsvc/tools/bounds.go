package tools

import (
	"context"
	"fmt"
	"math/bits"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Bounds on what a page's schema may cost. A page is not trusted: its inputSchema is checked
// against the shape limits before it is compiled (one pass over the bytes, microseconds), its
// compiled form against the fan-out limit, and each call's arguments against a work budget
// before the validator runs. Every real tool schema fits these many times over: the demo's
// largest is 0.6 KiB, 3 levels deep, 10 objects, fan-out 1; compiling 1,000 objects takes
// about 30 ms.
const (
	// MaxSchemaBytes is the largest inputSchema compiled.
	MaxSchemaBytes = 64 << 10
	// MaxSchemaDepth is the deepest nesting of JSON objects and arrays in an inputSchema
	// (a property of a property of the top level is 5 deep: {properties:{a:{properties:{b:{}}}}}).
	MaxSchemaDepth = 64
	// MaxSchemaObjects is the most JSON objects an inputSchema may hold (each subschema is one).
	MaxSchemaObjects = 1000
	// MaxSchemaFanout is the most subschemas one subschema may apply to the same value through
	// $ref, allOf, anyOf, oneOf, not, if/then/else and dependentSchemas, counted with repeats
	// (allOf of two $refs to a schema that does the same again, 21 levels, is 2^21).
	MaxSchemaFanout = 1000
	// MaxValidationSteps is the work budget of one call's validation: the number of
	// (subschema, value) pairs the validator may visit, a string counting once per 64 bytes
	// it is matched against. A call over it is refused before the validator runs. A step
	// costs the validator about 1 µs, so a call costs at most some 50 ms; a call to the
	// demo's tools takes 20 to 60 steps, 500 rows of its search filters 12,000.
	MaxValidationSteps = 50_000
	// inlineSteps is the most steps validated on the caller's goroutine; a longer validation
	// runs on its own so that the caller returns as soon as its turn is cancelled.
	inlineSteps = 2_000
	// MaxArgumentDepth is the deepest nesting of objects and arrays in a call's arguments.
	MaxArgumentDepth = 64
)

// checkShape reports whether raw JSON is within the size, depth and object-count limits,
// scanning the bytes once without decoding them.
func checkShape(raw []byte, maxBytes, maxDepth, maxObjects int) error {
	if len(raw) > maxBytes {
		return fmt.Errorf("%d bytes, more than the %d allowed", len(raw), maxBytes)
	}
	depth, objects := 0, 0
	inString, escaped := false, false
	for _, c := range raw {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > maxDepth {
				return fmt.Errorf("nested more than %d levels deep", maxDepth)
			}
			if c == '{' {
				objects++
				if maxObjects > 0 && objects > maxObjects {
					return fmt.Errorf("more than %d objects", maxObjects)
				}
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}

// errTooMuchWork is returned when a call's validation would exceed its budget.
var errTooMuchWork = fmt.Errorf("arguments are too large or too deeply nested for this tool's schema: validating them would take more than %d steps", MaxValidationSteps)

// cost is the compile-time analysis of a schema's graph: every subschema reachable from the
// root, numbered so that a subschema comes after every subschema that applies it to the same
// value (a topological order of the "same value" edges), with those edges and the weights the
// per-call estimate needs.
type cost struct {
	nodes []*jsonschema.Schema
	index map[*jsonschema.Schema]int32
	root  int32
	local [][]int32 // same-value applicators of each node: $ref, allOf, anyOf, oneOf, not, if/then/else, dependentSchemas, dynamic refs
	// total is an upper bound of the (subschema, value) visits per value of the arguments
	// when the graph (all edges) has no cycle; 0 when it has one (a recursive schema).
	total uint64
	// unique reports whether some subschema has uniqueItems (its cost grows with the array).
	unique bool
}

// localEdges lists the subschemas that s applies to the value s itself is applied to.
// Dynamic and recursive references are resolved at run time to any subschema with the
// matching anchor, so they point to all of them (an over-estimate, never an under-estimate).
func localEdges(s *jsonschema.Schema, dynamic map[string][]*jsonschema.Schema, recursive []*jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	add := func(c *jsonschema.Schema) {
		if c != nil {
			out = append(out, c)
		}
	}
	add(s.Ref)
	if s.RecursiveRef != nil {
		add(s.RecursiveRef)
		out = append(out, recursive...)
	}
	if s.DynamicRef != nil {
		add(s.DynamicRef.Ref)
		if s.DynamicRef.Anchor != "" {
			out = append(out, dynamic[s.DynamicRef.Anchor]...)
		}
	}
	add(s.Not)
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	add(s.If)
	add(s.Then)
	add(s.Else)
	for _, k := range sortedKeys(s.DependentSchemas) {
		add(s.DependentSchemas[k])
	}
	for _, k := range sortedKeys(s.Dependencies) {
		if c, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
			add(c)
		}
	}
	return out
}

// childEdges lists the subschemas that s applies to the members or items of its value.
func childEdges(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	add := func(c any) {
		if c, ok := c.(*jsonschema.Schema); ok && c != nil {
			out = append(out, c)
		}
	}
	add(s.PropertyNames)
	for _, k := range sortedKeys(s.Properties) {
		add(s.Properties[k])
	}
	for _, c := range s.PatternProperties {
		add(c)
	}
	add(s.AdditionalProperties)
	add(s.UnevaluatedProperties)
	add(s.Contains)
	switch items := s.Items.(type) {
	case *jsonschema.Schema:
		add(items)
	case []*jsonschema.Schema:
		for _, c := range items {
			add(c)
		}
	}
	add(s.AdditionalItems)
	for _, c := range s.PrefixItems {
		add(c)
	}
	add(s.Items2020)
	add(s.UnevaluatedItems)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// analyse builds the cost model of a compiled schema and refuses one whose fan-out at a single
// value exceeds maxFanout, or that applies itself to the same value in a cycle (the validator
// would stop such a cycle with an error at every value it reaches).
func analyse(root *jsonschema.Schema, maxFanout uint64) (*cost, error) {
	// Every subschema reachable through any edge, once.
	var all []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{root: true}
	stack := []*jsonschema.Schema{root}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		all = append(all, s)
		next := childEdges(s)
		next = append(next, localEdges(s, nil, nil)...)
		for _, c := range next {
			if !seen[c] {
				seen[c] = true
				stack = append(stack, c)
			}
		}
	}
	dynamic := map[string][]*jsonschema.Schema{}
	var recursive []*jsonschema.Schema
	for _, s := range all {
		if s.DynamicAnchor != "" {
			dynamic[s.DynamicAnchor] = append(dynamic[s.DynamicAnchor], s)
		}
		if s.RecursiveAnchor {
			recursive = append(recursive, s)
		}
	}
	local := make(map[*jsonschema.Schema][]*jsonschema.Schema, len(all))
	for _, s := range all {
		local[s] = localEdges(s, dynamic, recursive)
	}

	// Topological order of the same-value edges (reverse post-order of a depth-first walk),
	// iteratively so that a deep chain cannot exhaust the stack.
	const (
		white = iota
		grey
		black
	)
	color := make(map[*jsonschema.Schema]int, len(all))
	post := make([]*jsonschema.Schema, 0, len(all))
	type frame struct {
		s *jsonschema.Schema
		i int
	}
	for _, start := range all {
		if color[start] != white {
			continue
		}
		color[start] = grey
		frames := []frame{{start, 0}}
		for len(frames) > 0 {
			f := &frames[len(frames)-1]
			if f.i < len(local[f.s]) {
				c := local[f.s][f.i]
				f.i++
				switch color[c] {
				case grey:
					return nil, fmt.Errorf("%s applies itself to the same value again (a $ref cycle that never reaches a property or item)", c.Location)
				case white:
					color[c] = grey
					frames = append(frames, frame{c, 0})
				}
				continue
			}
			color[f.s] = black
			post = append(post, f.s)
			frames = frames[:len(frames)-1]
		}
	}
	slices.Reverse(post)
	cm := &cost{nodes: post, index: make(map[*jsonschema.Schema]int32, len(post)), local: make([][]int32, len(post))}
	for i, s := range post {
		cm.index[s] = int32(i)
		if s.UniqueItems {
			cm.unique = true
		}
	}
	for i, s := range post {
		for _, c := range local[s] {
			cm.local[i] = append(cm.local[i], cm.index[c])
		}
	}

	cm.root = cm.index[root]

	// Fan-out: how many subschemas each one applies to one value, repeats counted. Children
	// come after parents in post, so walking it backwards sees every child first.
	fan := make([]uint64, len(post))
	for i := len(post) - 1; i >= 0; i-- {
		n := uint64(1)
		for _, c := range cm.local[i] {
			n = satAdd(n, fan[c])
		}
		if n > maxFanout {
			return nil, fmt.Errorf("%s applies more than %d subschemas to one value through $ref, allOf, anyOf, oneOf, not or if/then/else", post[i].Location, maxFanout)
		}
		fan[i] = n
	}

	// Total visits per value for a schema without cycles: every edge counted with repeats.
	cm.total = totalVisits(root, local)
	return cm, nil
}

// totalVisits is the number of subschemas visited when the whole graph is expanded into a
// tree, each weighted by its enum's length (every value is compared); 0 when the graph has a
// cycle through a property or item (a recursive schema), whose cost depends on the value.
func totalVisits(root *jsonschema.Schema, local map[*jsonschema.Schema][]*jsonschema.Schema) uint64 {
	const onStack = ^uint64(0)
	memo := map[*jsonschema.Schema]uint64{}
	type frame struct {
		s     *jsonschema.Schema
		edges []*jsonschema.Schema
		i     int
		sum   uint64
	}
	edgesOf := func(s *jsonschema.Schema) []*jsonschema.Schema {
		return append(childEdges(s), local[s]...)
	}
	weight := func(s *jsonschema.Schema) uint64 {
		if s.Enum != nil {
			return 1 + uint64(len(s.Enum.Values))
		}
		return 1
	}
	memo[root] = onStack
	frames := []frame{{root, edgesOf(root), 0, weight(root)}}
	for len(frames) > 0 {
		f := &frames[len(frames)-1]
		if f.i < len(f.edges) {
			c := f.edges[f.i]
			f.i++
			switch v, ok := memo[c]; {
			case !ok:
				memo[c] = onStack
				frames = append(frames, frame{c, edgesOf(c), 0, weight(c)})
			case v == onStack:
				return 0
			default:
				f.sum = satAdd(f.sum, v)
			}
			continue
		}
		memo[f.s] = f.sum
		done := f.sum
		frames = frames[:len(frames)-1]
		if len(frames) > 0 {
			p := &frames[len(frames)-1]
			p.sum = satAdd(p.sum, done)
		} else {
			return done
		}
	}
	return 0
}

func satAdd(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return ^uint64(0)
	}
	return s
}

func satMul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return ^uint64(0)
	}
	return lo
}

// stringWeight is what matching a string costs in steps: one per 64 bytes, at least one.
func stringWeight(s string) uint64 { return 1 + uint64(len(s))/64 }

// measure counts the nodes of a decoded JSON value and the weight of its strings (keys too).
func measure(v any) (nodes, strs uint64) {
	stack := []any{v}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nodes++
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				strs += stringWeight(k)
				stack = append(stack, c)
			}
		case []any:
			stack = append(stack, v...)
		case string:
			strs += stringWeight(v)
		}
	}
	return nodes, strs
}

// check reports whether validating inst can stay within budget steps, and how many it may
// take. It first tries the
// bound of a schema without cycles (total visits per value times the size of the value);
// when that is too coarse, it estimates the visits by walking the value with, at each
// member or item, the subschemas that apply there and how many times each does.
func (cm *cost) check(ctx context.Context, inst any, budget uint64) (steps uint64, err error) {
	nodes, strs := measure(inst)
	if cm.total > 0 {
		bound := satMul(cm.total, satAdd(nodes, strs))
		if cm.unique {
			bound = satMul(bound, nodes)
		}
		if bound <= budget {
			return bound, nil
		}
	}
	e := estimate{cm: cm, ctx: ctx, budget: budget}
	err = e.visit(map[int32]uint64{cm.root: 1}, inst)
	return e.steps, err
}

// estimate walks a value with the subschemas that apply to each part of it.
type estimate struct {
	cm     *cost
	ctx    context.Context
	budget uint64
	steps  uint64
	visits int
}

func (e *estimate) spend(n uint64) error {
	e.steps = satAdd(e.steps, n)
	if e.steps > e.budget {
		return errTooMuchWork
	}
	return nil
}

// visit charges the work of applying front (subschema → times applied) to v and to its parts.
func (e *estimate) visit(front map[int32]uint64, v any) error {
	if e.visits++; e.visits%256 == 0 && e.ctx.Err() != nil {
		return e.ctx.Err()
	}
	// Everything applied here: the front and what it applies to the same value, in
	// topological order so that each subschema is charged once with all its repeats.
	queue := make([]int32, 0, len(front))
	for i := range front {
		queue = append(queue, i)
	}
	slices.Sort(queue)
	applied := make([]int32, 0, len(queue))
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		m := front[i]
		applied = append(applied, i)
		s := e.cm.nodes[i]
		w := uint64(1)
		if s.Enum != nil {
			w += uint64(len(s.Enum.Values))
		}
		switch v := v.(type) {
		case string:
			w = satMul(w, stringWeight(v))
		case []any:
			if s.UniqueItems {
				w = satAdd(w, uint64(len(v)))
			}
		case map[string]any:
			if len(s.PatternProperties) > 0 {
				w = satAdd(w, uint64(len(s.PatternProperties)*len(v)))
			}
		}
		if err := e.spend(satMul(m, w)); err != nil {
			return err
		}
		for _, c := range e.cm.local[i] {
			if _, queued := front[c]; !queued {
				at, _ := slices.BinarySearch(queue, c)
				queue = slices.Insert(queue, at, c)
			}
			front[c] = satAdd(front[c], m)
		}
	}

	switch v := v.(type) {
	case map[string]any:
		for k, item := range v {
			child, names := map[int32]uint64{}, map[int32]uint64{}
			for _, i := range applied {
				m, s := front[i], e.cm.nodes[i]
				if s.PropertyNames != nil {
					e.add(names, s.PropertyNames, m)
				}
				matched := false
				if c := s.Properties[k]; c != nil {
					e.add(child, c, m)
					matched = true
				}
				for re, c := range s.PatternProperties {
					if re.MatchString(k) {
						e.add(child, c, m)
						matched = true
					}
				}
				if c, ok := s.AdditionalProperties.(*jsonschema.Schema); ok && !matched {
					e.add(child, c, m)
				}
				if s.UnevaluatedProperties != nil {
					e.add(child, s.UnevaluatedProperties, m)
				}
			}
			if len(names) > 0 {
				if err := e.visit(names, k); err != nil {
					return err
				}
			}
			if len(child) > 0 {
				if err := e.visit(child, item); err != nil {
					return err
				}
			}
		}
	case []any:
		for j, item := range v {
			child := map[int32]uint64{}
			for _, i := range applied {
				m, s := front[i], e.cm.nodes[i]
				switch items := s.Items.(type) {
				case *jsonschema.Schema:
					e.add(child, items, m)
				case []*jsonschema.Schema:
					if j < len(items) {
						e.add(child, items[j], m)
					} else if c, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
						e.add(child, c, m)
					}
				}
				if j < len(s.PrefixItems) {
					e.add(child, s.PrefixItems[j], m)
				} else if s.Items2020 != nil {
					e.add(child, s.Items2020, m)
				}
				if s.Contains != nil {
					e.add(child, s.Contains, m)
				}
				if s.UnevaluatedItems != nil {
					e.add(child, s.UnevaluatedItems, m)
				}
			}
			if len(child) > 0 {
				if err := e.visit(child, item); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (e *estimate) add(front map[int32]uint64, s *jsonschema.Schema, m uint64) {
	if i, ok := e.cm.index[s]; ok {
		front[i] = satAdd(front[i], m)
	}
}
