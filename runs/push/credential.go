package push

import (
	"bufio"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/segwi/segwi/internal/lib/redact"
)

// credentialUsername is the username GitHub expects with a token over HTTPS.
const credentialUsername = "x-access-token"

// newRedactor returns segwi's redactor (internal/lib/redact) for what git and GitHub print
// during a push: it also removes the token and the Basic authorization value git builds
// from it.
func newRedactor(token string) *redact.Redactor {
	basic := base64.StdEncoding.EncodeToString([]byte(credentialUsername + ":" + token))
	return redact.New(token, basic)
}

// credentialHelper is the credential helper git runs through sh as `f ACTION`, for a
// channel git inherits as descriptors answers and requests. It holds no secret. For get
// and erase it copies git's request, ended by a blank line, to the requests descriptor (an
// erase request names the refused password; it goes only back to segwi, which gave it);
// for get it then copies segwi's answer from the answers descriptor to git. Other actions
// (store) read and drop their input. See the package doc.
func credentialHelper(answers, requests int) string {
	return fmt.Sprintf(`!f() { `+
		`case "$1" in `+
		`get) { echo "action=get"; cat; echo; } >&%[2]d; exec cat <&%[1]d ;; `+
		`erase) { echo "action=erase"; cat; echo; } >&%[2]d ;; `+
		`*) cat >/dev/null ;; `+
		`esac; }; f`, answers, requests)
}

// credentialChannel answers git's credential requests for one push, over two pipes that
// git inherits (answers, then requests; childFiles).
type credentialChannel struct {
	protocol string // the only protocol answered
	host     string // the only host (with port, as git sends it) answered
	path     string // the only path (credential.useHttpPath), without its leading /
	token    string
	// guard, when set, is asked right before the token is given; an error withholds it.
	guard func() error

	answerR, answerW   *os.File // segwi writes answers; git's helper reads fd 3
	requestR, requestW *os.File // git's helper writes requests on fd 4; segwi reads

	mu       sync.Mutex
	answered bool // the answer pipe is closed: the token was given, or withheld, once
	gave     bool // the token was given
	channelOutcome
	done chan struct{}
}

// channelOutcome is what the channel learnt from git's requests.
type channelOutcome struct {
	rejected  bool   // git said the server refused the token segwi gave
	otherHost string // the protocol://host/path git asked about when it was not the remote's
	changed   error  // the guard's reason to withhold the token
}

// newCredentialChannel opens the pipes for a push to protocol://host/path. guard, when not
// nil, is called before the token is given, and withholds it by returning an error.
func newCredentialChannel(protocol, host, path, token string, guard func() error) (*credentialChannel, error) {
	ar, aw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("opening credential pipe: %w", err)
	}
	rr, rw, err := os.Pipe()
	if err != nil {
		ar.Close()
		aw.Close()
		return nil, fmt.Errorf("opening credential pipe: %w", err)
	}
	return &credentialChannel{
		protocol: protocol, host: host, path: strings.TrimPrefix(path, "/"), token: token, guard: guard,
		answerR: ar, answerW: aw, requestR: rr, requestW: rw,
		done: make(chan struct{}),
	}, nil
}

// childFiles are the files git inherits, answers then requests.
func (c *credentialChannel) childFiles() []*os.File {
	return []*os.File{c.answerR, c.requestW}
}

// start starts serving requests while git runs; finish closes this process's copies of
// git's ends once git has exited, after which serving ends when every other holder of the
// requests pipe (a process git left behind) has exited too.
func (c *credentialChannel) start() { go c.serve() }

func (c *credentialChannel) finish() {
	c.answerR.Close()
	c.requestW.Close()
}

// close releases the pipes. It is safe after started or instead of it.
func (c *credentialChannel) close() {
	c.answerR.Close()
	c.requestW.Close()
	c.requestR.Close()
	c.mu.Lock()
	c.closeAnswer()
	c.mu.Unlock()
}

// closeAnswer closes the answer pipe for good; c.mu must be held.
func (c *credentialChannel) closeAnswer() {
	c.answered = true
	c.answerW.Close()
}

// serve reads requests until EOF on fd 4.
func (c *credentialChannel) serve() {
	defer close(c.done)
	br := bufio.NewReader(c.requestR)
	for {
		req, err := readCredentialRequest(br)
		if len(req) > 0 {
			c.handle(req)
		}
		if err != nil {
			return
		}
	}
}

// handle answers one request.
func (c *credentialChannel) handle(req map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch req["action"] {
	case "erase":
		// git erases the credential the server refused; it is the token only when segwi
		// gave it and git names it (a password from the URL itself is not segwi's).
		if c.gave && subtle.ConstantTimeCompare([]byte(req["password"]), []byte(c.token)) == 1 {
			c.rejected = true
		}
	case "get":
		if c.answered {
			return // the answer pipe is closed: the helper reads EOF and answers nothing
		}
		if !strings.EqualFold(req["protocol"], c.protocol) || !strings.EqualFold(req["host"], c.host) || req["path"] != c.path {
			c.otherHost = req["protocol"] + "://" + req["host"]
			if req["path"] != "" {
				c.otherHost += "/" + req["path"]
			}
			c.closeAnswer()
			return
		}
		if c.guard != nil {
			if err := c.guard(); err != nil {
				c.changed = err
				c.closeAnswer()
				return
			}
		}
		// The pipe holds far more than this, so the write does not wait for the helper.
		_, _ = io.WriteString(c.answerW, "username="+credentialUsername+"\npassword="+c.token+"\n")
		c.gave = true
		c.closeAnswer()
	}
}

// readCredentialRequest reads key=value lines up to a blank line or EOF.
func readCredentialRequest(br *bufio.Reader) (map[string]string, error) {
	req := map[string]string{}
	for {
		line, err := br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if line == "" && err == nil {
			return req, nil
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			req[k] = v
		}
		if err != nil {
			return req, err
		}
	}
}

// outcome reports, after serving ended, what the channel learnt.
func (c *credentialChannel) outcome() channelOutcome {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.channelOutcome
}
