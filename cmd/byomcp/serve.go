package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/byomcp/byomcp/agentsvc"
	"github.com/byomcp/byomcp/agentsvc/agui"
	"github.com/byomcp/byomcp/agentsvc/console"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/sites"
	"github.com/byomcp/byomcp/agentsvc/store"
	demosite "github.com/byomcp/byomcp/demo-site"
	"github.com/byomcp/byomcp/jsclient"
)

// common holds the flags every command shares; each flag mirrors an environment variable
// (the flag wins).
type common struct {
	model     string
	store     string
	mcpConfig string
	logLevel  string
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

func (c *common) register(fs *flag.FlagSet, getenv func(string) string, storeDefault, logDefault string) {
	fs.StringVar(&c.model, "model", getenv("BYOMCP_MODEL"), "model name (env BYOMCP_MODEL; default: the provider preset's)")
	fs.StringVar(&c.store, "store", envOr(getenv, "BYOMCP_STORE", storeDefault), "session store: memory, sqlite:PATH or redis://… (env BYOMCP_STORE)")
	fs.StringVar(&c.mcpConfig, "mcp-config", getenv("BYOMCP_MCP_CONFIG"), "mcp.json with server-side MCP servers (env BYOMCP_MCP_CONFIG)")
	fs.StringVar(&c.logLevel, "log-level", envOr(getenv, "BYOMCP_LOG_LEVEL", logDefault), "debug, info, warn or error (env BYOMCP_LOG_LEVEL)")
}

func newLogger(level string, w io.Writer) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	enc.EncodeDuration = zapcore.StringDurationEncoder // "4s", not a bare 4
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.Lock(zapcore.AddSync(w)), lvl)
	return zap.New(core), nil
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fset := flag.NewFlagSet("serve", flag.ContinueOnError)
	fset.SetOutput(stderr)
	var c common
	c.register(fset, getenv, "sqlite:byomcp.db", "info")
	addr := fset.String("addr", envOr(getenv, "BYOMCP_ADDR", "127.0.0.1:8080"), "listen address (env BYOMCP_ADDR)")
	origins := fset.String("allowed-origins", getenv("BYOMCP_ALLOWED_ORIGINS"), "comma-separated exact origins allowed to connect besides this server's own, which always is (env BYOMCP_ALLOWED_ORIGINS; default: http://localhost:*, http://127.0.0.1:*, http://[::1]:*, dropped once any is given)")
	publicURL := fset.String("public-url", getenv("BYOMCP_PUBLIC_URL"), "the URL visitors reach this server by, behind a proxy or under a name (env BYOMCP_PUBLIC_URL; default: its listen address); its origin is allowed and its host is accepted in the Host header")
	clientTurns := fset.Int("client-turns", envInt(getenv, "BYOMCP_CLIENT_TURNS", 32), "turns running at once per client address, loopback excepted (env BYOMCP_CLIENT_TURNS; 0 or negative: no limit)")
	maxTurns := fset.Int("max-turns", envInt(getenv, "BYOMCP_MAX_TURNS", 1024), "turns running at once in all (env BYOMCP_MAX_TURNS; 0 or negative: no limit)")
	clientSessions := fset.Int("client-sessions", envInt(getenv, "BYOMCP_CLIENT_SESSIONS", 120), "new conversations per client address per minute, in bursts of as many, loopback excepted (env BYOMCP_CLIENT_SESSIONS; 0 or negative: no limit)")
	confirm := fset.String("confirm-tools", getenv("BYOMCP_CONFIRM_TOOLS"), "comma-separated tool names that always need the visitor's confirmation: page tools, declarative forms and server tools as <server>__<tool>, in web conversations and AG-UI runs (env BYOMCP_CONFIRM_TOOLS)")
	sessionTTL := fset.Duration("session-ttl", envDuration(getenv, "BYOMCP_SESSION_TTL", 7*24*time.Hour), "delete sessions idle for longer (env BYOMCP_SESSION_TTL; 0 or negative = keep)")
	sitesPath := fset.String("sites", getenv("BYOMCP_SITES"), "sites.json: per-site origins, instructions, greeting, suggestions, model, tools and token budget; reloaded on SIGHUP (env BYOMCP_SITES; see docs/sites.md)")
	consoleToken := fset.String("console-token", getenv("BYOMCP_CONSOLE_TOKEN"), "turns the operator console at /console on; the token signs in to it (env BYOMCP_CONSOLE_TOKEN; at least 16 characters)")
	systemPrompt := fset.String("system-prompt", getenv("BYOMCP_SYSTEM_PROMPT"), "instructions for the assistant, for pages of no site in --sites (env BYOMCP_SYSTEM_PROMPT)")
	claimTTL := fset.Duration("claim-ttl", envDuration(getenv, "BYOMCP_CLAIM_TTL", 10*time.Second), "with several replicas on one Redis: how long a replica's claim on a live session lasts unless renewed, so how soon the others take over the sessions of a replica that died (env BYOMCP_CLAIM_TTL)")
	reconnectWait := fset.Duration("reconnect-wait", envDuration(getenv, "BYOMCP_RECONNECT_WAIT", 30*time.Second), "how long a running turn waits for its page to come back, e.g. after a tool navigated (env BYOMCP_RECONNECT_WAIT)")
	drainDelay := fset.Duration("drain-delay", envDuration(getenv, "BYOMCP_DRAIN_DELAY", 0), "on SIGINT or SIGTERM, how long /readyz answers 503 while everything is still served, before the shutdown starts: set it above the balancer's readiness check interval times its failures (env BYOMCP_DRAIN_DELAY)")
	allowEviction := fset.Bool("redis-allow-eviction", envBool(getenv, "BYOMCP_REDIS_ALLOW_EVICTION"), "with a Redis store: start even when Redis's maxmemory-policy evicts keys (conversations may then vanish; env BYOMCP_REDIS_ALLOW_EVICTION)")
	if err := fset.Parse(args); err != nil {
		return parseError(err)
	}
	if fset.NArg() > 0 {
		// flag stops at the first word that is not a flag: the flags after it would be
		// ignored without a word.
		return invalid(fmt.Errorf("serve: unexpected argument %q (flags are --name value; see byomcp serve --help)", fset.Arg(0)))
	}
	// A variable that does not parse is an error, unless its flag is given: the flag wins.
	given := map[string]bool{}
	fset.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for flagName, key := range map[string]string{"session-ttl": "BYOMCP_SESSION_TTL", "reconnect-wait": "BYOMCP_RECONNECT_WAIT", "claim-ttl": "BYOMCP_CLAIM_TTL", "drain-delay": "BYOMCP_DRAIN_DELAY"} {
		if v := getenv(key); v != "" && !given[flagName] {
			if _, err := time.ParseDuration(v); err != nil {
				return invalid(fmt.Errorf("%s=%q: want a duration such as 90s or 168h", key, v))
			}
		}
	}
	if v := getenv("BYOMCP_REDIS_ALLOW_EVICTION"); v != "" && !given["redis-allow-eviction"] {
		if _, err := strconv.ParseBool(v); err != nil {
			return invalid(fmt.Errorf("BYOMCP_REDIS_ALLOW_EVICTION=%q: want true or false", v))
		}
	}
	for flagName, key := range map[string]string{"client-turns": "BYOMCP_CLIENT_TURNS", "max-turns": "BYOMCP_MAX_TURNS", "client-sessions": "BYOMCP_CLIENT_SESSIONS"} {
		if v := getenv(key); v != "" && !given[flagName] {
			if _, err := strconv.Atoi(v); err != nil {
				return invalid(fmt.Errorf("%s=%q: want a whole number", key, v))
			}
		}
	}
	publicOrigin, err := originOf(*publicURL)
	if err != nil {
		return invalid(err)
	}
	if *sessionTTL <= 0 {
		*sessionTTL = -1
	}
	for _, d := range []struct {
		flag, env string
		v         time.Duration
	}{{"reconnect-wait", "BYOMCP_RECONNECT_WAIT", *reconnectWait}, {"drain-delay", "BYOMCP_DRAIN_DELAY", *drainDelay}} {
		if d.v < 0 {
			return invalid(fmt.Errorf("--%s %v: want a duration of 0 or more (env %s)", d.flag, d.v, d.env))
		}
	}
	if *claimTTL < 100*time.Millisecond {
		return invalid(fmt.Errorf("--claim-ttl %v is too short (at least 100ms; the default is 10s)", *claimTTL))
	}
	if *consoleToken != "" && len(*consoleToken) < 16 {
		// Checked before the agent listens and prints its URL, so that nothing reads it as
		// started (console.New says the same).
		return invalid(errors.New("--console-token: the console token must have at least 16 characters"))
	}
	log, err := newLogger(c.logLevel, stderr)
	if err != nil {
		return invalid(err)
	}
	defer func() { _ = log.Sync() }()

	// All the configuration is checked before the store, the model or the network is
	// touched: a value or file that cannot be used exits 2 with nothing created (no
	// database, no lock file), whatever else would fail after it.
	if err := store.CheckSpec(c.store); err != nil {
		return invalid(fmt.Errorf("--store: %w", err))
	}
	for _, o := range splitList(*origins) {
		if err := agentsvc.CheckOrigin(o); err != nil {
			return invalid(err)
		}
	}
	if *sitesPath != "" {
		// Read again by sites.Open below, once the store (shared budgets) and the models
		// are there.
		if _, err := sites.Load(*sitesPath, getenv); err != nil {
			if sites.IsInvalid(err) {
				return invalid(err)
			}
			return err
		}
	}
	var mcpConfig *mcpservers.Config
	if c.mcpConfig != "" {
		if mcpConfig, err = mcpservers.LoadConfig(c.mcpConfig); err != nil {
			return invalid(err)
		}
	}

	unlock, err := lockSQLite(c.store)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := store.Open(ctx, c.store)
	if err != nil {
		return err
	}
	defer st.Close()
	// A Redis that evicts when full loses conversations, claims and budget counts silently.
	var evicts *store.EvictionError
	switch err := store.CheckEviction(ctx, st); {
	case err == nil:
	case errors.As(err, &evicts) && evicts.MaxMemory > 0 && !*allowEviction:
		return fmt.Errorf("%w; or start with --redis-allow-eviction to accept it", err)
	case evicts != nil:
		log.Warn("the Redis store may lose conversations", zap.Error(err))
	default:
		log.Warn("the Redis store's maxmemory-policy could not be read: check that it is noeviction, else a full Redis evicts conversations", zap.Error(err))
	}

	model, desc, err := selectModel(ctx, c.model, getenv, log)
	if err != nil {
		return err
	}

	var srv *agentsvc.Server // set below; the site budgets count their refusals in its metrics
	var reg *sites.Registry
	if *sitesPath != "" {
		reg, err = sites.Open(*sitesPath, sites.Options{
			Env:      getenv,
			NewModel: siteModel(ctx, getenv, log),
			OnRefuse: func() { srv.CountRefused("token_budget") },
			Shared:   store.SharedOf(st), // with Redis, every replica spends one budget
			OnSharedError: func(err error) {
				log.Warn("sites: the shared token count failed; this replica counts alone meanwhile", zap.Error(err))
			},
		})
		if err != nil {
			if sites.IsInvalid(err) {
				return invalid(err)
			}
			return err
		}
		log.Info("sites", zap.String("file", *sitesPath), zap.Int("sites", len(reg.Config().Sites)))
		logSiteModels(reg, desc, log)
	}

	var serverTools mcpservers.ServerTools
	var webServers []string // the --mcp-config servers exposed to web pages
	if mcpConfig != nil {
		for _, sc := range mcpConfig.Servers {
			if slices.Contains(sc.Expose, mcpservers.AudienceWeb) {
				webServers = append(webServers, sc.Name)
			}
		}
		mgr := mcpservers.Start(ctx, mcpConfig, mcpservers.Options{Logger: log.Named("mcp"), CallsAsk: true})
		defer mgr.Close()
		serverTools = mgr
	}
	warnSiteServers(reg, webServers, log)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()                             // hs.Serve owns it once it runs; this covers the returns before
	own := agentsvc.OriginsOf("http", ln.Addr()) // from the real listener, never a Host header
	if publicOrigin != "" {
		own = append(own, publicOrigin)
	}
	var siteFor func(string) *sites.Site
	allowed := splitList(*origins)
	if reg != nil {
		siteFor = reg.Lookup
		allowed = append(allowed, reg.Origins()...) // given origins replace the local development ones
	}
	var feed *console.Feed
	var onEvent func(string, string, json.RawMessage)
	if *consoleToken != "" {
		feed = console.NewFeed(func(origin string) string { return reg.Lookup(origin).Label() })
		onEvent = feed.Publish
	}
	srv, err = agentsvc.NewServer(agentsvc.Config{
		OwnOrigins:         own,
		AllowedOrigins:     allowed,
		Sites:              siteFor,
		OnEvent:            onEvent,
		SystemPrompt:       *systemPrompt,
		ClientTurns:        orNoLimit(*clientTurns),
		MaxTurns:           orNoLimit(*maxTurns),
		ClientSessionRate:  float64(orNoLimit(*clientSessions)) / 60,
		ClientSessionBurst: max(1, *clientSessions),
		Store:              st,
		Model:              model,
		ServerTools:        serverTools,
		Logger:             log,
		ConfirmTools:       splitList(*confirm),
		OwnerID:            ownerFor(c.store),
		SessionTTL:         *sessionTTL,
		ReconnectWait:      *reconnectWait,
		ClaimTTL:           *claimTTL,
	})
	if err != nil {
		return invalid(err) // the options: origins, limits
	}

	ag, err := agui.New(agui.Options{
		Model:         srv.Model(),
		Store:         st,
		ServerTools:   serverTools,
		ConfirmTools:  splitList(*confirm), // an AG-UI run asks for these with an interrupt
		OriginAllowed: srv.OriginAllowed,
		Logger:        log.Named("agui"),
		Meter:         srv,
		StartRun:      srv.StartRun,
		Site:          func(origin string) agui.Site { return aguiSite{reg.Lookup(origin), srv} },
	})
	if err != nil {
		return err
	}

	// SIGHUP reloads --sites; without one there is nothing to reload, but the signal is
	// still taken, before the URL says the agent is up: its default action would end the
	// agent at once (a closed terminal, or a configuration manager's reload, would drop
	// every socket).
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go reloadOnHUP(ctx, hup, reg, webServers, log)

	url := "http://" + ln.Addr().String()
	if strings.HasPrefix(*addr, ":") || strings.HasPrefix(*addr, "0.0.0.0:") {
		url = "http://localhost:" + portOf(ln.Addr())
	}
	fmt.Fprintln(stdout, url) // the first line of stdout is the URL alone (DESIGN.md)
	// The replica's id is how the console and the other replicas name it.
	log.Info("serving", zap.String("url", url), zap.String("model", desc), zap.String("store", storeKind(c.store)), zap.String("replica", srv.Replica()))

	gatherers := prometheus.Gatherers{srv.Gatherer()}
	if reg != nil {
		gatherers = append(gatherers, reg.Gatherer())
	}
	var con *console.Handler
	if feed != nil {
		gatherers = append(gatherers, feed.Gatherer())
		con, err = console.New(console.Options{
			Token:    *consoleToken,
			Store:    st,
			Tabs:     consoleTabs(srv),
			Forget:   srv.Forget,
			Feed:     feed,
			Gatherer: gatherers,
			SiteOf:   func(origin string) string { return reg.Lookup(origin).Label() },
			IsSiteOrigin: func(origin string, r *http.Request) bool { // any page origin but the server's own
				return !slices.Contains(own, origin) && srv.OriginAllowed(origin, r)
			},
			Secure:  strings.HasPrefix(publicOrigin, "https:"),
			Logger:  log.Named("console"),
			Cluster: store.SharedOf(st), // with Redis: every replica's tabs and turns
			Replica: srv.Replica(),
			AppDocument: func(ctx context.Context, server, uri, sha string) (string, error) {
				doc, err := srv.AppDocument(ctx, server, uri, sha)
				if errors.Is(err, mcpservers.ErrAppGone) {
					return "", fmt.Errorf("%w (%v)", console.ErrAppGone, err)
				}
				if err != nil {
					return "", err
				}
				return doc.HTML, nil
			},
		})
		if err != nil {
			return invalid(fmt.Errorf("--console-token: %w", err))
		}
		go con.Run(ctx)
		log.Info("operator console on", zap.String("url", strings.TrimSuffix(publicOr(publicOrigin, ln), "/")+"/console/"))
	}

	var draining atomic.Bool // a stop signal came: /readyz says so
	mux := routes(srv, ag, reg, con, gatherers)
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Cache-Control", "no-store")
		if draining.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "draining\n")
			return
		}
		_, _ = io.WriteString(w, "ready\n")
	})
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          zap.NewStdLog(log.Named("http")),
	}
	hs.RegisterOnShutdown(func() { _ = ag.Shutdown(context.Background()) }) // AG-UI runs live in handlers
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	draining.Store(true)
	if *drainDelay > 0 {
		// The balancer takes the replica out of rotation on /readyz while its tabs, its turns
		// and new sockets are served as before.
		log.Info("draining: /readyz answers 503 until the shutdown starts (a second SIGINT or SIGTERM stops at once)", zap.Duration("drain_delay", *drainDelay))
		t := time.NewTimer(*drainDelay)
		select {
		case <-t.C:
		case err := <-errc:
			t.Stop()
			return err
		}
	}
	log.Info("shutting down (a second SIGINT or SIGTERM stops at once)")
	sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx) // stops accepting; hijacked sockets are closed by srv.Shutdown
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// routes serves the socket, the AG-UI endpoint (when ag is not nil), the site settings of
// reg (nil: none), the client scripts and the demo.
func routes(srv *agentsvc.Server, ag *agui.Handler, reg *sites.Registry, con *console.Handler, metrics prometheus.Gatherer) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /v1/ws", srv)
	mux.Handle("GET /v1/origin-check", srv.OriginCheckHandler())
	mux.Handle("GET /v1/site", sites.Handler(reg.Lookup))
	if ag != nil {
		// Every method: the handler answers the ones it does not serve with 405 and its own
		// Allow, instead of the demo's file server taking GET.
		for _, m := range []string{"GET", "POST", "OPTIONS", "PUT", "PATCH", "DELETE"} {
			mux.Handle(m+" /v1/agui", ag)
		}
	}
	mux.Handle("GET /byomcp/", http.StripPrefix("/byomcp/", jsclient.Handler()))
	mux.Handle("GET /byomcp/app-frame", jsclient.AppFrameHandler())
	mux.Handle("GET /byomcp/apps/{server}/{sha256}", srv.AppDocumentHandler())
	mux.Handle("GET /byomcp/sites.schema.json", sites.SchemaHandler())
	mux.Handle("GET /", static(demosite.FS))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "ok\n")
	})
	if metrics != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(metrics, promhttp.HandlerOpts{}))
	} else {
		mux.Handle("GET /metrics", srv.MetricsHandler())
	}
	if con != nil {
		for _, m := range []string{"GET", "POST", "DELETE"} {
			mux.Handle(m+" /console", con)
			mux.Handle(m+" /console/", con)
		}
	}
	return mux
}

// static serves an embedded tree with caching headers suited to files that change with
// each release, and with CORS so other sites can load the client as a module.
func static(fsys fs.FS) http.Handler {
	files := http.FileServerFS(fsys)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".go") {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	})
}

// consoleTabs gives the console the open tabs of srv.
func consoleTabs(srv *agentsvc.Server) func() []console.Tab {
	return func() []console.Tab {
		var out []console.Tab
		for _, t := range srv.Tabs() {
			ct := console.Tab{ConnID: t.ConnID, Origin: t.Origin, SessionID: t.SessionID, URL: t.URL, Title: t.Title, Since: t.Since, Tools: []console.Tool{}}
			for _, tool := range t.Tools {
				ct.Tools = append(ct.Tools, console.Tool{Name: tool.Name, Description: tool.Description, InputSchema: tool.InputSchema})
			}
			out = append(out, ct)
		}
		return out
	}
}

// publicOr is the public origin, else the listener's URL.
func publicOr(public string, ln net.Listener) string {
	if public != "" {
		return public
	}
	return "http://" + ln.Addr().String()
}

// reloadOnHUP reads the sites file again at each SIGHUP; an invalid file is logged and the
// configuration in force stays. Open sockets are not touched.
func reloadOnHUP(ctx context.Context, hup <-chan os.Signal, reg *sites.Registry, webServers []string, log *zap.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			if reg == nil {
				log.Info("SIGHUP: no --sites file to reload; carrying on")
				continue
			}
			if err := reg.Reload(); err != nil {
				log.Error("sites: reload failed; the configuration in force stays", zap.String("file", reg.Path()), zap.Error(err))
				continue
			}
			log.Info("sites: reloaded", zap.String("file", reg.Path()), zap.Int("sites", len(reg.Config().Sites)))
			warnSiteServers(reg, webServers, log)
		}
	}
}

// siteModel builds the model a site names: its own OpenAI-compatible endpoint (key from
// the variable apiKeyEnv names), or the server's provider with another model name.
func siteModel(ctx context.Context, getenv func(string) string, log *zap.Logger) func(sites.Model) (llm.Model, error) {
	return func(m sites.Model) (llm.Model, error) {
		if m.BaseURL == "" {
			model, _, err := selectModel(ctx, m.Name, getenv, log)
			return model, err
		}
		key := "byomcp-no-key" // a local server needs none
		if m.APIKeyEnv != "" {
			key = getenv(m.APIKeyEnv)
		}
		return llm.NewOpenAI(llm.Options{BaseURL: m.BaseURL, APIKey: key, Model: m.Name, Provider: llm.ProviderCustom, Logger: log.Named("model")}), nil
	}
}

// invalid marks err as a command line, environment variable or configuration file that
// cannot be used: the process exits with status 2 (1 is for failures while running).
func invalid(err error) error { return exitError{code: 2, err: err} }

// exitError ends the process with its code (main prints the error).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// envDuration reads a duration such as "90s" or "168h" from the environment (runServe
// reports a value that does not parse).
func envDuration(getenv func(string) string, key string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(getenv(key)); err == nil {
		return d
	}
	return def
}

// envBool reads true or false from the environment (runServe reports a value that does not
// parse); default false.
func envBool(getenv func(string) string, key string) bool {
	b, _ := strconv.ParseBool(getenv(key))
	return b
}

// envInt reads a whole number from the environment (runServe reports one that does not parse).
func envInt(getenv func(string) string, key string, def int) int {
	if n, err := strconv.Atoi(getenv(key)); err == nil {
		return n
	}
	return def
}

// orNoLimit maps the flags' "0 or negative: no limit" to agentsvc's negative.
func orNoLimit(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// originOf is the origin (scheme://host[:port]) of --public-url, "" for none.
func originOf(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	u, err := neturl.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("--public-url %q: want a URL such as https://agent.example", raw)
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func portOf(a net.Addr) string {
	_, port, _ := net.SplitHostPort(a.String())
	return port
}

func storeKind(spec string) string {
	kind, _, _ := strings.Cut(spec, ":")
	return kind // never the whole URL: it may hold a password
}

// ownerFor names this process as the owner of the sessions it serves. With a local store
// (memory, SQLite) the name is stable across restarts, so a restarted server takes its
// sessions back at once; with Redis each process is its own owner.
func ownerFor(spec string) string {
	if strings.HasPrefix(spec, "redis") {
		return ""
	}
	host, _ := os.Hostname()
	return "local-" + host + "-" + spec
}

// aguiSite is a request's site as the AG-UI endpoint sees it (nil: none): the site's own
// model counted in the server's model metrics, as the page socket's turns count it.
type aguiSite struct {
	*sites.Site
	srv *agentsvc.Server
}

func (s aguiSite) Model(def llm.Model) llm.Model {
	if m := s.Site.Model(nil); m != nil {
		return s.srv.Metered(m)
	}
	return def
}

// redisLogger writes go-redis's own log lines (a pool that cannot dial, and the like) to
// the agent's log as warnings, instead of plain text between its JSON lines.
type redisLogger struct{ log *zap.Logger }

func (l redisLogger) Printf(_ context.Context, format string, v ...any) {
	l.log.Warn(strings.TrimSpace(fmt.Sprintf(format, v...)))
}

// parseError is what a command returns when its flags do not parse: nil for -h and
// --help (flag has printed the usage: asking for help is not a failure), errUsage else
// (flag has printed the error and the usage; the exit status is 2).
func parseError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return errUsage
}

// lockSQLite takes the lock file PATH.lock of a sqlite:PATH store for this process, or says
// which other process serves it. Two agents on one SQLite file would both take its sessions
// for their own (a replica's claims on SQLite are this host's and this file's, so that a
// restarted agent resumes its sessions at once) and their turns would collide; SQLite
// serves one process (several replicas: redis://). The lock goes with the process, however
// it ends.
func lockSQLite(spec string) (unlock func(), err error) {
	path, ok := strings.CutPrefix(spec, "sqlite:")
	if !ok || path == "" {
		return func() {}, nil
	}
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("store: sqlite: the lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path + ".lock")
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("store: %s is in use by another byomcp (%s); SQLite serves one process: for several, use redis://", spec, strings.TrimSpace(string(holder)))
		}
		return nil, fmt.Errorf("store: sqlite: locking %s.lock: %w", path, err)
	}
	_ = f.Truncate(0)
	_, _ = fmt.Fprintf(f, "pid %d\n", os.Getpid())
	return func() { f.Close() }, nil
}

// warnSiteServers warns of each site whose mcpServers names a server that no page of it
// can use: not in --mcp-config, or not exposed to "web". A typo there would leave the
// site without the tools its owner meant it to have, silently.
// logSiteModels logs, at start-up, the model each site's pages get: the "serving" line's
// model is only that of pages of no site.
func logSiteModels(reg *sites.Registry, serverModel string, log *zap.Logger) {
	for _, site := range reg.Config().Sites {
		model := serverModel + " (the server's)"
		if m := site.SiteConfig.Model; m != nil {
			model = m.Name
			if m.BaseURL != "" {
				model += " at " + m.BaseURL
			}
		}
		log.Info("site", zap.String("site", site.Label()), zap.Strings("origins", site.Origins), zap.String("model", model))
	}
}

func warnSiteServers(reg *sites.Registry, webServers []string, log *zap.Logger) {
	if reg == nil {
		return
	}
	for _, site := range reg.Config().Sites {
		for _, name := range site.MCPServers {
			if !slices.Contains(webServers, name) {
				log.Warn(`sites: a site's mcpServers names a server that is not in --mcp-config with "expose": ["web"]; its pages will not have its tools`,
					zap.String("site", site.Label()), zap.String("server", name))
			}
		}
	}
}
