// Package sites is the per-site configuration of the agent (sites.json): which page Origins
// belong to which site, and each site's instructions, widget strings, model, tools and budget.
//
// The file is checked against a JSON Schema generated from File (Schema), then for what a
// schema cannot say (overlapping origins, missing files, unset key variables). A Registry
// holds the configuration in force, swaps in a new one atomically on Reload (SIGHUP), and
// keeps the token accounting of the budgets across reloads.
package sites

// File is the content of sites.json.
type File struct {
	// Schema is the JSON Schema editors check the file with (docs/sites.schema.json).
	Schema string `json:"$schema,omitempty" jsonschema:"description=The JSON Schema of this file (docs/sites.schema.json in the byomcp repository)."`
	// Sites are matched by the page's Origin; an origin belongs to at most one site.
	Sites []SiteConfig `json:"sites" jsonschema:"minItems=1,description=One entry per site; each page Origin belongs to at most one."`
}

// SiteConfig is one site's entry in sites.json.
type SiteConfig struct {
	Name    string   `json:"name" jsonschema:"minLength=1,maxLength=100,description=The site's name (logs metrics and the operator console); unique in the file."`
	Origins []string `json:"origins" jsonschema:"minItems=1,description=Exact page origins (https://shop.example); only the port may be a wildcard (http://localhost:*). They are allowed to connect besides --allowed-origins."`

	SystemPrompt     string `json:"systemPrompt,omitempty" jsonschema:"description=Instructions for the assistant on this site (its role / tone / what it may do). At most one of systemPrompt and systemPromptFile."`
	SystemPromptFile string `json:"systemPromptFile,omitempty" jsonschema:"description=A text file holding the instructions; relative to the directory of sites.json."`

	Greeting    string            `json:"greeting,omitempty" jsonschema:"maxLength=2000,description=The first words the widget shows before the visitor writes."`
	Suggestions []string          `json:"suggestions,omitempty" jsonschema:"maxItems=8,description=Starter questions the widget offers as buttons."`
	Strings     map[string]string `json:"strings,omitempty" jsonschema:"description=Widget UI strings by key (title / inputPlaceholder / send / ...); the script tag's data-strings wins."`
	Locale      string            `json:"locale,omitempty" jsonschema:"pattern=^[A-Za-z][A-Za-z][A-Za-z]?(-[A-Za-z0-9]+)*$,description=BCP 47 language tag of the site (en / de-CH); the assistant is told to answer in it."`

	Model *Model `json:"model,omitempty" jsonschema:"description=The model for this site; absent: the server's model (--model and the key variables)."`
	// MCPServers are the server-side MCP servers (names in --mcp-config, exposed to "web")
	// this site's conversations may use. Absent: all of them; empty: none.
	MCPServers []string `json:"mcpServers,omitempty" jsonschema:"description=Names of the --mcp-config servers (exposed to web) this site may use; absent: all of them; []: none."`
	// ConfirmTools are page tool names the visitor always confirms, besides --confirm-tools.
	ConfirmTools []string `json:"confirmTools,omitempty" jsonschema:"description=Page tool names the visitor must confirm before each call (added to --confirm-tools)."`
	Guards       *Guards  `json:"guards,omitempty" jsonschema:"description=Turn guards; absent fields keep the server's (10 model calls and 25 tool calls per turn)."`
	Budget       *Budget  `json:"budget,omitempty" jsonschema:"description=Model tokens a conversation and the whole site may use; over them turns are refused."`
}

// Model names a model for a site: any OpenAI-compatible endpoint.
type Model struct {
	Name string `json:"name" jsonschema:"minLength=1,description=The model name (gpt-4o-mini / llama3.1 / ...)."`
	// BaseURL of the OpenAI-compatible API; absent: the server's provider.
	BaseURL string `json:"baseURL,omitempty" jsonschema:"format=uri,pattern=^https?://,description=The OpenAI-compatible API (https://api.openai.com/v1 / http://127.0.0.1:11434/v1); absent: the server's provider with this model name."`
	// APIKeyEnv names the environment variable holding the key: keys are never in the file.
	APIKeyEnv string `json:"apiKeyEnv,omitempty" jsonschema:"pattern=^[A-Za-z_][A-Za-z0-9_]*$,description=The environment variable that holds the API key (keys are never written in this file); needs baseURL."`
}

// Guards bound one turn.
type Guards struct {
	MaxModelCalls int `json:"maxModelCalls,omitempty" jsonschema:"minimum=1,maximum=100,description=Model calls per turn (default 10)."`
	MaxToolCalls  int `json:"maxToolCalls,omitempty" jsonschema:"minimum=1,maximum=500,description=Tool calls per turn (default 25)."`
}

// Budget bounds model tokens (prompt + completion). Zero fields: no bound. The maximum,
// 10^15, keeps every count in an int64 (and in Redis's INCRBY) with room to spare.
type Budget struct {
	SessionTokensPerHour int64 `json:"sessionTokensPerHour,omitempty" jsonschema:"minimum=1,maximum=1000000000000000,description=Model tokens one conversation may use per clock hour (UTC); at most 10^15."`
	SiteTokensPerDay     int64 `json:"siteTokensPerDay,omitempty" jsonschema:"minimum=1,maximum=1000000000000000,description=Model tokens all conversations of the site may use per day (UTC); at most 10^15."`
}
