package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Target is the agent under load: a process serving the page socket at /v1/ws and its
// Prometheus metrics at /metrics, whose memory is read from /proc.
type Target struct {
	// Name labels the target in reports ("byomcp", "node-ref").
	Name string
	// URL is the HTTP base URL, e.g. http://127.0.0.1:8080.
	URL string
	// PID is the process whose resident memory is measured (0: not measured).
	PID int

	cmd    *exec.Cmd
	exited chan struct{}
	stderr *tailBuffer
}

// Attach returns a Target for an agent that is already running.
func Attach(name, url string, pid int) *Target {
	return &Target{Name: name, URL: strings.TrimRight(url, "/"), PID: pid}
}

// urlRE finds the URL a server prints on its first line (byomcp prints it alone).
var urlRE = regexp.MustCompile(`https?://[^\s/]+`)

// Spawn starts argv with the fake model's URL in OPENAI_BASE_URL (and a dummy key and model
// name), waits for the URL it prints on its first line of standard output, and returns it as
// a Target. The other model keys of the environment are removed, so that the model is the
// fake one; extraEnv is added (e.g. Model.Env). Stop it when done.
func Spawn(ctx context.Context, name string, argv []string, modelURL string, extraEnv ...string) (*Target, error) {
	if len(argv) == 0 {
		return nil, errors.New("loadgen: empty command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	env := []string{"OPENAI_BASE_URL=" + modelURL, "OPENAI_API_KEY=bench-key", "BYOMCP_MODEL=fake-model"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "OPENAI_BASE_URL", "OPENAI_API_KEY", "BYOMCP_MODEL", "OPENROUTER_API_KEY", "GEMINI_API_KEY":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, extraEnv...) // the last value of a name wins
	// A pipe of our own (not StdoutPipe, which Wait closes) so that the first line is read
	// even when the command has already exited.
	out, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	t := &Target{Name: name, cmd: cmd, exited: make(chan struct{}), stderr: &tailBuffer{max: 8 << 10, count: connectFailure}}
	cmd.Stderr = t.stderr
	err = cmd.Start()
	w.Close()
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("loadgen: starting %s: %w", argv[0], err)
	}
	t.PID = cmd.Process.Pid
	first := make(chan string, 1)
	go func() {
		defer out.Close()
		br := bufio.NewReader(out)
		line, _ := br.ReadString('\n')
		first <- line
		_, _ = io.Copy(io.Discard, br) // keep draining so the child never blocks on stdout
	}()
	go func() {
		_ = cmd.Wait()
		close(t.exited)
	}()
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	select {
	case line := <-first:
		u := urlRE.FindString(line)
		if u == "" {
			t.Stop()
			return nil, fmt.Errorf("loadgen: %s printed %q, not its URL; stderr: %s", name, strings.TrimSpace(line), t.stderr)
		}
		t.URL = u
		return t, nil
	case <-timer.C:
	case <-ctx.Done():
	}
	t.Stop()
	return nil, fmt.Errorf("loadgen: %s did not print its URL; stderr: %s", name, t.stderr)
}

// Stop ends a spawned target: SIGTERM, then SIGKILL after 30 s. It does nothing for an
// attached one.
func (t *Target) Stop() {
	if t.cmd == nil {
		return
	}
	_ = t.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-t.exited:
		return
	case <-time.After(30 * time.Second):
	}
	_ = t.cmd.Process.Kill()
	<-t.exited
}

// Exited reports whether a spawned target has ended.
func (t *Target) Exited() bool {
	if t.cmd == nil {
		return false
	}
	select {
	case <-t.exited:
		return true
	default:
		return false
	}
}

// WSURL is the page socket's URL.
func (t *Target) WSURL() string {
	return "ws" + strings.TrimPrefix(t.URL, "http") + "/v1/ws"
}

// RSS returns the target's resident memory in bytes (VmRSS of /proc/PID/status).
func (t *Target) RSS() (int64, error) {
	if t.PID == 0 {
		return 0, errors.New("loadgen: no process to measure")
	}
	return readStatus(t.PID, "VmRSS")
}

// RSSAnon returns the anonymous part of the target's resident memory in bytes (RssAnon of
// /proc/PID/status): VmRSS without the file-backed pages, which are mostly the program's
// own code and libraries paged in as they are first run (shared, and the same for 10 tabs
// as for 10,000).
func (t *Target) RSSAnon() (int64, error) {
	if t.PID == 0 {
		return 0, errors.New("loadgen: no process to measure")
	}
	return readStatus(t.PID, "RssAnon")
}

// readStatus reads a field in kB of /proc/PID/status, in bytes.
func readStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			if len(f) != 2 || f[1] != "kB" {
				break
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("loadgen: no %s in /proc/%d/status", field, pid)
}

// CPU returns the processor time the target has used so far (user + system).
func (t *Target) CPU() (time.Duration, error) {
	if t.PID == 0 {
		return 0, errors.New("loadgen: no process to measure")
	}
	return readCPU(t.PID)
}

// clockTick is the unit of /proc/PID/stat times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

func readCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces: count from after it.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("loadgen: malformed /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("loadgen: malformed /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// Scrape reads the target's /metrics.
func (t *Target) Scrape(ctx context.Context) (Metrics, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.URL+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("loadgen: scraping %s: %w", t.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("loadgen: scraping %s: HTTP %d", t.Name, resp.StatusCode)
	}
	return parseMetrics(resp.Body)
}

// connectFailure is what byomcp logs (and the Node reference prints) for a model call whose
// connection could not be made.
const connectFailure = "cannot reach the model API"

// failedConnects is how many times a spawned target said connectFailure on its standard
// error, or -1 for a target whose output is not read.
func (t *Target) failedConnects() int {
	if t.stderr == nil {
		return -1
	}
	t.stderr.mu.Lock()
	defer t.stderr.mu.Unlock()
	return t.stderr.seen
}

// tailBuffer keeps the last max bytes written to it, and counts the lines that contain
// count (written whole, as loggers do).
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	b     []byte
	count string
	seen  int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.count != "" {
		t.seen += bytes.Count(p, []byte(t.count))
	}
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = bytes.Clone(t.b[over:])
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
