package sites

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// SchemaID is the $id of the published schema (docs/sites.schema.json), a raw URL editors
// can load; every agent also serves it at /byomcp/sites.schema.json (SchemaHandler).
const SchemaID = "https://raw.githubusercontent.com/byomcp/byomcp/main/docs/sites.schema.json"

// SchemaHandler serves Schema() (as application/schema+json) for editors and $schema.
func SchemaHandler() http.Handler {
	b := Schema()
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/schema+json")
		w.Header().Set("Access-Control-Allow-Origin", "*") // editors in a browser fetch it too
		_, _ = w.Write(b)
	})
}

// Schema returns the JSON Schema of sites.json, generated from File, indented.
func Schema() []byte {
	r := invopop.Reflector{ExpandedStruct: true}
	s := r.Reflect(&File{})
	s.ID = SchemaID
	s.Title = "byomcp sites.json"
	s.Description = "Per-site configuration of the byomcp agent (--sites / BYOMCP_SITES)."
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic("sites: marshalling the schema: " + err.Error()) // a bug in File's tags
	}
	return append(b, '\n')
}

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, err
	}
	return c.Compile(SchemaID)
})

// Errors is every problem found in a sites.json, one per line, each naming its key.
type Errors struct {
	Path string
	List []string
}

func (e *Errors) Error() string {
	return e.Path + ": " + strings.Join(e.List, "\n"+e.Path+": ")
}

// Env reads an environment variable; os.Getenv fits.
type Env func(string) string

// Parse reads sites.json from data; dir resolves relative systemPromptFile paths and env
// reads the variables named by apiKeyEnv. The error is *Errors when the file is not valid.
func Parse(path string, data []byte, env Env) (*Config, error) {
	fail := func(list ...string) (*Config, error) { return nil, &Errors{Path: path, List: list} }
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fail("not JSON: " + jsonProblem(data, err))
	}
	sch, err := compiled()
	if err != nil {
		return nil, fmt.Errorf("sites: compiling the schema: %w", err)
	}
	if err := sch.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		return fail(schemaProblems(ve)...)
	}
	// Decoded again from the checked document, with its whole numbers written as such.
	if data, err = json.Marshal(integral(doc)); err != nil {
		return nil, fmt.Errorf("sites: encoding %s again: %w", path, err)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		// The schema took it, but a Go field cannot hold it (a number past the schema's
		// bounds would be one; the schema's maxima are there to prevent it): still a
		// problem of the file, named by its key.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fail(fmt.Sprintf("%s: %s does not fit (want %s)", te.Field, te.Value, te.Type))
		}
		return fail("(the whole file): " + err.Error())
	}
	if env == nil {
		env = os.Getenv
	}
	cfg := &Config{}
	var problems []string
	names := map[string]int{}
	type owned struct {
		pat  pattern
		site int
		key  string
	}
	var seen []owned
	for i := range f.Sites {
		s := &f.Sites[i]
		at := fmt.Sprintf("sites[%d]", i)
		if j, dup := names[s.Name]; dup {
			problems = append(problems, fmt.Sprintf("%s.name: %q is already the name of sites[%d]", at, s.Name, j))
		}
		names[s.Name] = i
		site := &Site{SiteConfig: *s}
		for k, o := range s.Origins {
			key := fmt.Sprintf("%s.origins[%d]", at, k)
			p, err := parsePattern(o)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", key, err))
				continue
			}
			for _, other := range seen {
				if other.pat.overlaps(p) {
					problems = append(problems, fmt.Sprintf("%s: %q overlaps %s %q (an origin belongs to one site)", key, o, other.key, other.pat.raw))
				}
			}
			seen = append(seen, owned{p, i, key})
			site.patterns = append(site.patterns, p)
		}
		site.prompt = s.SystemPrompt
		switch {
		case s.SystemPrompt != "" && s.SystemPromptFile != "":
			problems = append(problems, at+".systemPromptFile: give systemPrompt or systemPromptFile, not both")
		case s.SystemPromptFile != "":
			file := s.SystemPromptFile
			if !filepath.IsAbs(file) {
				file = filepath.Join(filepath.Dir(path), file)
			}
			b, err := os.ReadFile(file)
			switch {
			case errors.Is(err, os.ErrNotExist):
				problems = append(problems, fmt.Sprintf("%s.systemPromptFile: %s does not exist", at, file))
			case err != nil:
				problems = append(problems, fmt.Sprintf("%s.systemPromptFile: %v", at, err))
			case len(bytes.TrimSpace(b)) == 0:
				problems = append(problems, fmt.Sprintf("%s.systemPromptFile: %s is empty", at, file))
			default:
				site.prompt = strings.TrimSpace(string(b))
			}
		}
		if m := s.Model; m != nil {
			if m.APIKeyEnv != "" && m.BaseURL == "" {
				problems = append(problems, at+".model.apiKeyEnv: needs model.baseURL (without it the server's provider and key are used)")
			} else if m.APIKeyEnv != "" && env(m.APIKeyEnv) == "" {
				problems = append(problems, fmt.Sprintf("%s.model.apiKeyEnv: the environment variable %s is not set", at, m.APIKeyEnv))
			}
		}
		for k, sug := range s.Suggestions {
			if strings.TrimSpace(sug) == "" {
				problems = append(problems, fmt.Sprintf("%s.suggestions[%d]: empty", at, k))
			}
		}
		cfg.Sites = append(cfg.Sites, site)
	}
	if len(problems) > 0 {
		return fail(problems...)
	}
	return cfg, nil
}

// integral rewrites the numbers of a document that have a whole value but are not written
// as one (1e6, 5.0, which JSON Schema's "integer" takes) as whole numbers, which
// encoding/json decodes into an int64. Others stay as they are.
func integral(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = integral(x)
		}
	case []any:
		for i, x := range v {
			v[i] = integral(x)
		}
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			if f, _, err := big.ParseFloat(string(v), 10, 64, big.ToNearestEven); err == nil {
				if n, acc := f.Int64(); acc == big.Exact {
					return json.Number(strconv.FormatInt(n, 10))
				}
			}
		}
	}
	return v
}

// Load reads and checks the sites.json at path. A file that cannot be read (missing, a
// directory, not readable) is an *Errors too: a problem of the configuration.
func Load(path string, env Env) (*Config, error) {
	fail := func(problem string) (*Config, error) { return nil, &Errors{Path: path, List: []string{problem}} }
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fail("is a directory; want the sites.json file")
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fail("the file does not exist")
	case err != nil:
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path starts the line already
		}
		return fail("cannot be read: " + err.Error())
	}
	return Parse(path, data, env)
}

// jsonProblem says where JSON text stops being JSON.
func jsonProblem(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("line %d: %v", line, se)
	}
	var v any
	if e := json.Unmarshal(data, &v); e != nil {
		return jsonProblem(data, e)
	}
	return err.Error()
}

var printer = message.NewPrinter(language.English)

// schemaProblems turns a validation error into one line per leaf, naming the key:
// "sites[0].greeting: got number, want string".
func schemaProblems(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		at := keyPath(e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.AdditionalProperties:
			for _, p := range k.Properties {
				out = append(out, fmt.Sprintf("%s: unknown key (not in the schema; check its spelling)", joinKey(at, p)))
			}
		case *kind.Required:
			for _, p := range k.Missing {
				out = append(out, fmt.Sprintf("%s: missing (required)", joinKey(at, p)))
			}
		case *kind.Type:
			out = append(out, fmt.Sprintf("%s: got %s, want %s", orRoot(at), k.Got, strings.Join(k.Want, " or ")))
		default:
			out = append(out, fmt.Sprintf("%s: %s", orRoot(at), e.ErrorKind.LocalizedString(printer)))
		}
	}
	walk(ve)
	slices.Sort(out)
	return slices.Compact(out)
}

// keyPath writes an instance location as sites[0].model.name.
func keyPath(loc []string) string {
	var b strings.Builder
	for _, p := range loc {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

func joinKey(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

func orRoot(at string) string {
	if at == "" {
		return "(the whole file)"
	}
	return at
}

// pattern is an origin of sites.json: exact, but for a port that may be "*".
type pattern struct {
	raw, scheme, host, port string // port normalised (80/443 filled in); "*" matches any
}

func parsePattern(p string) (pattern, error) {
	u, err := url.Parse(strings.Replace(p, ":*", ":0", 1))
	if p == "*" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.Contains(p, "*") && !strings.HasSuffix(p, ":*") {
		return pattern{}, errors.New("want an origin such as https://shop.example (only the port may be *)")
	}
	if u.Path == "/" {
		return pattern{}, errors.New("an origin has no path: drop the trailing /")
	}
	port := u.Port()
	switch {
	case strings.HasSuffix(p, ":*"):
		port = "*"
	case port == "":
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return pattern{raw: p, scheme: u.Scheme, host: strings.ToLower(u.Hostname()), port: port}, nil
}

func (p pattern) overlaps(q pattern) bool {
	return p.scheme == q.scheme && p.host == q.host && (p.port == q.port || p.port == "*" || q.port == "*")
}

// match reports whether the Origin header value o (already parsed) is p's.
func (p pattern) match(scheme, host, port string) bool {
	return p.scheme == scheme && p.host == host && (p.port == "*" || p.port == port)
}

// splitOrigin parses an Origin header value into scheme, lower-case host and port (80/443
// filled in); ok is false for anything but http(s)://host[:port].
func splitOrigin(origin string) (scheme, host, port string, ok bool) {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.User != nil {
		return "", "", "", false
	}
	port = u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme, strings.ToLower(u.Hostname()), port, true
}
